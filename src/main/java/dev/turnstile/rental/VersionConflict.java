package dev.turnstile.rental;

import java.util.Optional;

/**
 * A conditional write lost a race: the bike's version is no longer the one that was read. The service retries on it
 * (re-reading each time) and decides what the client hears when the retries run out ({@link RentalProblems}).
 */
final class VersionConflict extends RuntimeException {

    private final String bikeId;
    private final transient Bike current;

    VersionConflict(String bikeId, Bike current) {
        super("Bike " + bikeId + " was changed concurrently", null, false, false);
        this.bikeId = bikeId;
        this.current = current;
    }

    String bikeId() {
        return bikeId;
    }

    /** The bike as it is now, when the store said (a transaction conflict does not tell which version won). */
    Optional<Bike> current() {
        return Optional.ofNullable(current);
    }
}
