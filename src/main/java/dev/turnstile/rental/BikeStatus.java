package dev.turnstile.rental;

/** Where a bike is in its life cycle; the rules in {@link RentalRules} are the only way from one to the next. */
public enum BikeStatus {
    AVAILABLE,
    RENTED,
    MAINTENANCE
}
