package dev.turnstile.rental;

import java.time.Instant;
import java.util.UUID;

import jakarta.inject.Singleton;

import io.smallrye.mutiny.Uni;

/** Workshop leases on existing bikes. The token is a random UUID: knowing it is what proves the holder. */
@Singleton
public class LeaseService {

    private final BikeRepository bikes;
    private final LeaseRepository leases;

    LeaseService(BikeRepository bikes, LeaseRepository leases) {
        this.bikes = bikes;
        this.leases = leases;
    }

    public Uni<Lease> acquire(String bikeId, String holder, int ttlSeconds) {
        return bikes.get(bikeId).flatMap(bike -> {
            Instant now = Instant.now();
            Lease lease = new Lease(bikeId, holder, UUID.randomUUID().toString(),
                    Instant.ofEpochSecond(now.getEpochSecond() + ttlSeconds));
            return leases.acquire(lease, now);
        });
    }

    public Uni<Void> release(String bikeId, String token) {
        return leases.release(bikeId, token);
    }
}
