package dev.turnstile.booking;

import java.util.List;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** The invariant seatsTotal = seatsAvailable + confirmedBookings, read in one snapshot, with the figures. */
@RegisterForReflection
public record AuditView(String flightId, String fareClass, boolean consistent, int seatsTotal, int seatsAvailable,
        long confirmedBookings, int eliteReserve, List<Integer> shardSeatsAvailable, boolean anyShardNegative) {
}
