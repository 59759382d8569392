package dev.turnstile.booking;

import jakarta.validation.constraints.NotNull;

import dev.turnstile.json.Identifier;

/** Body of {@code POST /flights/{flightId}/fares/{fareClass}/bookings}. */
public record BookingRequest(@NotNull @Identifier String passengerId, Boolean elite) {

    public boolean isElite() {
        return Boolean.TRUE.equals(elite);
    }
}
