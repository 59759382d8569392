package dev.turnstile.booking;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** What {@code GET /flights/{flightId}/fares/{fareClass}} answers. */
@RegisterForReflection
public record FareView(String flightId, String fareClass, int seatsTotal, int seatsAvailable, long booked, int eliteReserve,
        int shards, long version) {
}
