package dev.turnstile.rental;

/** A rent transaction found the customer's active-rental marker already set. The service answers it. */
final class CustomerHasActiveRental extends RuntimeException {

    CustomerHasActiveRental() {
        super("The customer already has an active rental", null, false, false);
    }
}
