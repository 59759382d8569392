package dev.turnstile.rental;

/** The store has no bike under this id. The service answers it ({@link RentalProblems#bikeNotFound}). */
final class BikeNotFound extends RuntimeException {

    private final String bikeId;

    BikeNotFound(String bikeId) {
        super("There is no bike " + bikeId, null, false, false);
        this.bikeId = bikeId;
    }

    String bikeId() {
        return bikeId;
    }
}
