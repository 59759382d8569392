package dev.turnstile.booking;

/** What {@code GET /flights/{flightId}/fares/{fareClass}} answers. */
public record FareView(String flightId, String fareClass, int seatsTotal, int seatsAvailable, long booked, int eliteReserve,
        int shards, long version) {
}
