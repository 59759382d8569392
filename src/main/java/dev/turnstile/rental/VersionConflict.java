package dev.turnstile.rental;

import java.util.Map;
import java.util.Optional;

import dev.turnstile.problem.ProblemException;

/**
 * A conditional write lost a race: the bike's version is no longer the one that was read. The service retries on it
 * (re-reading each time); when the retries run out it reaches the client as 409 {@code VERSION_CONFLICT} with the
 * current bike, when known (a transaction conflict does not tell which version won).
 */
public final class VersionConflict extends ProblemException {

    private final transient Bike current;

    public VersionConflict(String bikeId, Bike current) {
        super(409, "VERSION_CONFLICT", "Version conflict",
                "Bike " + bikeId + " was changed concurrently; try again",
                current == null ? Map.of() : Map.of("current", current));
        this.current = current;
    }

    public Optional<Bike> current() {
        return Optional.ofNullable(current);
    }
}
