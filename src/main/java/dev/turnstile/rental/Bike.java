package dev.turnstile.rental;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * A bike as stored. {@code version} is the optimistic-locking counter: it starts at 1, every successful write adds
 * one. {@code generation} is random per creation, so a bike deleted and created again under the same id never shows
 * an entity tag of its predecessor ({@code "<version>-<generation>"}). The rules never change either; only the
 * repository's conditional write does.
 *
 * <p>A workshop lease lives in the item ({@code leaseHolder}, {@code leaseExpiresAt}, and the secret
 * {@code leaseToken}), so every conditional write on the bike also checks it, and deleting the bike ends it.
 * {@code appliedKeys} are the marks of the last {@link #APPLIED_KEYS} keyed writes this item took ({@link
 * KeyedRequest#mark}: the key's digest and the claim that wrote it): the proof, after a crash, that a keyed request was
 * applied (docs/rental.md, "Idempotency"). The claim is part of the mark because a key outlives its record: after the
 * record expires the key starts a new life, and a mark of the old life must not pass for the new claim's write.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@RegisterForReflection
public record Bike(
        String bikeId,
        String station,
        BikeStatus status,
        int ridesSinceService,
        String rentedBy,
        Instant rentedAt,
        String note,
        long version,
        @JsonIgnore String generation,
        String leaseHolder,
        Instant leaseExpiresAt,
        @JsonIgnore String leaseToken,
        @JsonIgnore List<String> appliedKeys) {

    static final int APPLIED_KEYS = 16;

    public Bike {
        appliedKeys = appliedKeys == null ? List.of() : List.copyOf(appliedKeys);
    }

    public static Bike newAt(String bikeId, String station, int ridesSinceService, BikeStatus status) {
        return new Bike(bikeId, station, status, ridesSinceService, null, null, null, 1,
                UUID.randomUUID().toString().substring(0, 8), null, null, null, List.of());
    }

    /** The entity tag's value: version and generation. */
    @JsonIgnore
    public String tag() {
        return version + "-" + generation;
    }

    /** Whether a lease held by someone else than the bearer of {@code leaseToken} blocks changes at {@code now}. */
    boolean leasedAgainst(String presentedToken, Instant now) {
        return leaseToken != null && leaseExpiresAt != null && now.isBefore(leaseExpiresAt)
                && !leaseToken.equals(presentedToken);
    }

    /** The mark this item keeps for the key with digest {@code keyDigest}, if one of its writes was applied here. */
    Optional<String> appliedMark(String keyDigest) {
        return appliedKeys.stream().filter(mark -> KeyedRequest.markOf(mark, keyDigest)).findFirst();
    }

    Bike rentedTo(String customerId, Instant at) {
        return new Bike(bikeId, station, BikeStatus.RENTED, ridesSinceService + 1, customerId, at, note, version,
                generation, leaseHolder, leaseExpiresAt, leaseToken, appliedKeys);
    }

    Bike returnedTo(String newStation, BikeStatus newStatus) {
        return new Bike(bikeId, newStation, newStatus, ridesSinceService, null, null, note, version,
                generation, leaseHolder, leaseExpiresAt, leaseToken, appliedKeys);
    }

    Bike serviced() {
        return new Bike(bikeId, station, BikeStatus.AVAILABLE, 0, rentedBy, rentedAt, note, version,
                generation, leaseHolder, leaseExpiresAt, leaseToken, appliedKeys);
    }

    /** This bike as shown to someone who may not know who rents it. */
    Bike withoutRenter() {
        return new Bike(bikeId, station, status, ridesSinceService, null, rentedAt, note, version,
                generation, leaseHolder, leaseExpiresAt, leaseToken, appliedKeys);
    }

    Bike withNote(String newNote) {
        return new Bike(bikeId, station, status, ridesSinceService, rentedBy, rentedAt, newNote, version,
                generation, leaseHolder, leaseExpiresAt, leaseToken, appliedKeys);
    }

    Bike withVersion(long newVersion) {
        return new Bike(bikeId, station, status, ridesSinceService, rentedBy, rentedAt, note, newVersion,
                generation, leaseHolder, leaseExpiresAt, leaseToken, appliedKeys);
    }

    /**
     * This state, remembering that the write marked {@code mark} made it: the key's older mark, if any, is replaced,
     * and only the last few are kept.
     */
    Bike applying(String keyDigest, String mark) {
        List<String> keys = new ArrayList<>(appliedKeys.stream().filter(kept -> !KeyedRequest.markOf(kept, keyDigest)).toList());
        keys.add(mark);
        return new Bike(bikeId, station, status, ridesSinceService, rentedBy, rentedAt, note, version,
                generation, leaseHolder, leaseExpiresAt, leaseToken, keys.subList(Math.max(0, keys.size() - APPLIED_KEYS), keys.size()));
    }
}
