package dev.turnstile.rental;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;

import dev.turnstile.json.StorableText;

/** The request bodies of {@link BikeResource}. Limits keep every item far below DynamoDB's 400 KB. */
public final class BikeRequests {

    static final String ID = "[A-Za-z0-9._:-]{1,64}";
    static final String ID_MESSAGE = "must be 1-64 characters of A-Z a-z 0-9 . _ : -";
    static final String STATUS = "AVAILABLE|RENTED|MAINTENANCE";
    static final String STATUS_MESSAGE = "must be AVAILABLE, RENTED or MAINTENANCE";

    private BikeRequests() {
    }

    public record NewBike(
            @NotBlank @Pattern(regexp = ID, message = ID_MESSAGE) String bikeId,
            @NotBlank @Size(max = 64) @StorableText String station,
            @PositiveOrZero @Max(1_000_000) Integer ridesSinceService,
            @Pattern(regexp = "AVAILABLE|MAINTENANCE", message = "must be AVAILABLE or MAINTENANCE") String status) {

        Bike toBike() {
            return Bike.newAt(bikeId, station, ridesSinceService == null ? 0 : ridesSinceService,
                    status == null ? BikeStatus.AVAILABLE : BikeStatus.valueOf(status));
        }
    }

    public record Rent(@NotBlank @Pattern(regexp = ID, message = ID_MESSAGE) String customerId) {
    }

    public record Return(
            @NotBlank @Pattern(regexp = ID, message = ID_MESSAGE) String customerId,
            @NotBlank @Size(max = 64) @StorableText String station) {
    }

    public record Note(@NotBlank @Size(max = 500) @StorableText String note) {
    }

    public record LeaseTerms(
            @NotBlank @Size(max = 64) @StorableText String holder,
            @NotNull @Min(1) @Max(86_400) Integer ttlSeconds) {
    }
}
