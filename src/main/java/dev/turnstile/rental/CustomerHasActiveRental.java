package dev.turnstile.rental;

import java.util.Optional;

/**
 * A rent transaction found the customer's active-rental marker already set. The service answers it; the marker's
 * rental id comes with it when the store returned the customer's item.
 */
final class CustomerHasActiveRental extends RuntimeException {

    private final transient String activeRentalId;

    CustomerHasActiveRental() {
        this(null);
    }

    CustomerHasActiveRental(String activeRentalId) {
        super("The customer already has an active rental", null, false, false);
        this.activeRentalId = activeRentalId;
    }

    Optional<String> activeRentalId() {
        return Optional.ofNullable(activeRentalId);
    }
}
