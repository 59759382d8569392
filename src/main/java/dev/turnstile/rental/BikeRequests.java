package dev.turnstile.rental;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;

import dev.turnstile.json.AccountId;
import dev.turnstile.json.Identifier;
import dev.turnstile.json.StorableText;

/** The request bodies of {@link BikeResource}. Limits keep every item far below DynamoDB's 400 KB. */
public final class BikeRequests {

    private BikeRequests() {
    }

    public record NewBike(
            @NotBlank @Identifier String bikeId,
            @NotBlank @Identifier String station,
            @PositiveOrZero @Max(1_000_000) Integer ridesSinceService,
            @Pattern(regexp = "AVAILABLE|MAINTENANCE", message = "must be AVAILABLE or MAINTENANCE") String status) {

        Bike toBike() {
            return Bike.newAt(bikeId, station, ridesSinceService == null ? 0 : ridesSinceService,
                    status == null ? BikeStatus.AVAILABLE : BikeStatus.valueOf(status));
        }
    }

    /** {@code customerId} is optional: the token says who rents; when given it must be the token's subject (or staff's customer). */
    public record Rent(@AccountId String customerId) {
    }

    public record Return(
            @AccountId String customerId,
            @NotBlank @Identifier String station) {
    }

    public record Note(@NotBlank @Size(max = 500) @StorableText String note) {
    }

    public record LeaseTerms(
            @NotBlank @Size(max = 64) @StorableText String holder,
            @NotNull @Min(1) @Max(86_400) Integer ttlSeconds) {
    }
}
