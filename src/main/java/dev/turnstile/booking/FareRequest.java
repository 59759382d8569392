package dev.turnstile.booking;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/** Body of {@code PUT /flights/{flightId}/fares/{fareClass}}: the capacity of a fare. */
@EliteReserveWithinSeats
public record FareRequest(
        @NotNull @Min(0) @Max(1_000_000) Integer seats,
        @Min(0) @Max(1_000_000) Integer eliteReserve,
        @Min(1) @Max(64) Integer shards) {

    public int eliteReserveOrZero() {
        return eliteReserve == null ? 0 : eliteReserve;
    }

    public int shardsOrOne() {
        return shards == null ? 1 : shards;
    }
}
