package dev.turnstile.booking;

import java.util.List;

/** The invariant seatsTotal = seatsAvailable + confirmedBookings, read in one snapshot, with the figures. */
public record AuditView(String flightId, String fareClass, boolean consistent, int seatsTotal, int seatsAvailable,
        long confirmedBookings, int eliteReserve, List<Integer> shardSeatsAvailable, boolean anyShardNegative) {
}
