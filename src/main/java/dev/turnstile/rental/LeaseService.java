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

    /**
     * A live lease (anyone's) refuses the request with its holder and expiry; a bike changed meanwhile is a conflict.
     * A live lease with this request's own token is this request's: the AWS SDK sends a write again when its answer
     * was lost, and the resend fails its condition on the lease the first one wrote. Refused, that lease would have
     * blocked the bike until it expired, its token known to nobody.
     */
    public Uni<Lease> acquire(String bikeId, String holder, int ttlSeconds) {
        Instant now = Instant.now();
        Lease lease = new Lease(bikeId, holder, UUID.randomUUID().toString(), Lease.expiry(now, ttlSeconds));
        return bikes.acquireLease(lease, now)
                .onFailure(VersionConflict.class).recoverWithUni(failure -> {
                    Bike current = ((VersionConflict) failure).current().orElse(null);
                    if (current == null) {
                        return Uni.createFrom().failure(failure);
                    }
                    if (lease.token().equals(current.leaseToken())) {
                        return Uni.createFrom().item(lease);
                    }
                    return Uni.createFrom().failure(current.leasedAgainst(null, now)
                            ? RentalProblems.leased(current.bikeId(), current.leaseHolder(), current.leaseExpiresAt())
                            : failure);
                })
                .onFailure().transform(RentalProblems::answer);
    }

    public Uni<Void> release(String bikeId, String token) {
        return bikes.releaseLease(bikeId, token).<Void>map(released -> {
            if (!released) {
                throw RentalProblems.leaseNotHeld(bikeId);
            }
            return null;
        }).onFailure().transform(RentalProblems::answer);
    }
}
