package dev.turnstile.booking;

/** One fare: a flight's fare class. */
public record FareKey(String flightId, String fareClass) {

    /** A fare class is a short code, not an id: 1-8 letters or digits. */
    public static final String FARE_CLASS = "[A-Za-z0-9]{1,8}";
}
