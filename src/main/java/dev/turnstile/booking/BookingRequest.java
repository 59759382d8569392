package dev.turnstile.booking;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

import dev.turnstile.json.StorableText;

/** Body of {@code POST /flights/{flightId}/fares/{fareClass}/bookings}. */
public record BookingRequest(@NotBlank @Size(max = 64) @StorableText String passengerId, Boolean elite) {

    public boolean isElite() {
        return Boolean.TRUE.equals(elite);
    }
}
