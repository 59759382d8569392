package dev.turnstile.rental;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonInclude;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * A bike as stored. {@code version} is the optimistic-locking counter: it starts at 1, every successful write adds
 * one, and it is what the {@code ETag} shows. The rules never change it; only the repository's conditional write does.
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
        long version) {

    public static Bike newAt(String bikeId, String station, int ridesSinceService, BikeStatus status) {
        return new Bike(bikeId, station, status, ridesSinceService, null, null, null, 1);
    }

    Bike rentedTo(String customerId, Instant at) {
        return new Bike(bikeId, station, BikeStatus.RENTED, ridesSinceService + 1, customerId, at, note, version);
    }

    Bike returnedTo(String newStation, BikeStatus newStatus) {
        return new Bike(bikeId, newStation, newStatus, ridesSinceService, null, null, note, version);
    }

    Bike serviced() {
        return new Bike(bikeId, station, BikeStatus.AVAILABLE, 0, rentedBy, rentedAt, note, version);
    }

    Bike withNote(String newNote) {
        return new Bike(bikeId, station, status, ridesSinceService, rentedBy, rentedAt, newNote, version);
    }

    Bike withVersion(long newVersion) {
        return new Bike(bikeId, station, status, ridesSinceService, rentedBy, rentedAt, note, newVersion);
    }
}
