package dev.turnstile.rental;

import dev.turnstile.problem.ProblemException;

public final class BikeNotFound extends ProblemException {

    public BikeNotFound(String bikeId) {
        super(404, "BIKE_NOT_FOUND", "Bike not found", "There is no bike " + bikeId);
    }
}
