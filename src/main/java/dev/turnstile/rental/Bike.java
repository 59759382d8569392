package dev.turnstile.rental;

import java.time.Instant;
import java.util.List;
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
 * {@code appliedKeys} are the digests of the last {@link #APPLIED_KEYS} idempotency keys whose write this item took:
 * the proof, after a crash, that a keyed request was applied (docs/rental.md, "Idempotency").
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

    boolean applied(String keyDigest) {
        return appliedKeys.contains(keyDigest);
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

    Bike withNote(String newNote) {
        return new Bike(bikeId, station, status, ridesSinceService, rentedBy, rentedAt, newNote, version,
                generation, leaseHolder, leaseExpiresAt, leaseToken, appliedKeys);
    }

    Bike withVersion(long newVersion) {
        return new Bike(bikeId, station, status, ridesSinceService, rentedBy, rentedAt, note, newVersion,
                generation, leaseHolder, leaseExpiresAt, leaseToken, appliedKeys);
    }

    /** This state, remembering that the write under {@code keyDigest} made it; only the last few are kept. */
    Bike applying(String keyDigest) {
        List<String> kept = appliedKeys.size() < APPLIED_KEYS ? appliedKeys
                : appliedKeys.subList(appliedKeys.size() - APPLIED_KEYS + 1, appliedKeys.size());
        List<String> keys = new java.util.ArrayList<>(kept);
        keys.add(keyDigest);
        return new Bike(bikeId, station, status, ridesSinceService, rentedBy, rentedAt, note, version,
                generation, leaseHolder, leaseExpiresAt, leaseToken, keys);
    }
}
