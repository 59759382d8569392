package dev.turnstile.rental;

import java.time.Instant;
import java.util.UUID;

import jakarta.inject.Singleton;

import io.smallrye.mutiny.Uni;

/**
 * Workshop leases, kept in the bike item itself. The token is a random UUID: presenting it as {@code Lease-Token}
 * is what proves the holder.
 */
@Singleton
public class LeaseService {

    private final BikeRepository bikes;

    LeaseService(BikeRepository bikes) {
        this.bikes = bikes;
    }

    /** A live lease (anyone's) refuses the request with its holder and expiry; a bike changed meanwhile is a conflict. */
    public Uni<Lease> acquire(String bikeId, String holder, int ttlSeconds) {
        Instant now = Instant.now();
        return bikes.acquireLease(new Lease(bikeId, holder, UUID.randomUUID().toString(),
                Lease.expiry(now, ttlSeconds)), now)
                .onFailure(VersionConflict.class).transform(failure -> {
                    Bike current = ((VersionConflict) failure).current().orElseThrow();
                    return current.leasedAgainst(null, now)
                            ? RentalProblems.leased(current.bikeId(), current.leaseHolder(), current.leaseExpiresAt())
                            : failure;
                })
                .onFailure().transform(RentalProblems::answer);
    }

    public Uni<Void> release(String bikeId, String token) {
        return bikes.releaseLease(bikeId, token).map(released -> {
            if (!released) {
                throw RentalProblems.leaseNotHeld(bikeId);
            }
            return null;
        });
    }
}
