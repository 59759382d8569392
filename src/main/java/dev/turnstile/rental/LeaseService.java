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

    public Uni<Lease> acquire(String bikeId, String holder, int ttlSeconds) {
        Instant now = Instant.now();
        return bikes.acquireLease(new Lease(bikeId, holder, UUID.randomUUID().toString(),
                Instant.ofEpochSecond(now.getEpochSecond() + ttlSeconds)), now);
    }

    public Uni<Void> release(String bikeId, String token) {
        return bikes.releaseLease(bikeId, token);
    }
}
