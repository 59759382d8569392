package dev.turnstile.booking;

import dev.turnstile.json.AccountId;

/**
 * Body of {@code POST /flights/{flightId}/fares/{fareClass}/bookings}. The passenger is the token's subject:
 * {@code passengerId} may be left out, and a customer may name only themselves; staff name the passenger they book
 * for. {@code elite} counts only from staff (see {@link BookingResource}).
 */
public record BookingRequest(@AccountId String passengerId, Boolean elite) {

    public boolean isElite() {
        return Boolean.TRUE.equals(elite);
    }
}
