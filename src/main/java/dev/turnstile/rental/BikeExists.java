package dev.turnstile.rental;

import dev.turnstile.problem.ProblemException;

public final class BikeExists extends ProblemException {

    public BikeExists(String bikeId) {
        super(409, "BIKE_EXISTS", "Bike exists", "Bike " + bikeId + " already exists; it was left unchanged");
    }
}
