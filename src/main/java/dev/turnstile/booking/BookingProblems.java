package dev.turnstile.booking;

import java.util.Map;
import java.util.UUID;

import dev.turnstile.problem.ProblemException;

/** The answers a booking can end in, other than success. */
public final class BookingProblems {

    /** A decision of the seat rules: final for this request, so it is stored under an idempotency key. */
    public static final class Rejected extends ProblemException {
        Rejected(String reason, String title, String detail) {
            super(409, reason, title, detail);
        }

        Rejected(String reason, String title, String detail, Map<String, Object> extensions) {
            super(409, reason, title, detail, extensions);
        }
    }

    /** The database could not serve the request in time; the same request may succeed a moment later. */
    public static final class Busy extends ProblemException {
        Busy(String reason, String detail, long retryAfterSeconds) {
            super(503, reason, "Service busy", detail, Map.of(), retryAfterSeconds);
        }
    }

    /** An optimistic conflict, a serialization failure or a deadlock: the attempt is retried from its first read. */
    public static class RetryableConflict extends RuntimeException {
        RetryableConflict(String message) {
            super(message, null, false, false);
        }
    }

    private BookingProblems() {
    }

    static Rejected rejected(SeatRules.Decision decision) {
        return switch (decision) {
            case SOLD_OUT -> new Rejected("SOLD_OUT", "Sold out", "No seat is left in this fare.");
            case ELITE_RESERVE -> new Rejected("ELITE_RESERVE", "Seats reserved for elite passengers",
                    "The seats left are kept for elite passengers.");
            case OK -> throw new IllegalArgumentException("OK is not a rejection");
        };
    }

    /** The passenger already holds a confirmed seat on this flight; the answer names that booking. */
    static Rejected alreadyBooked(UUID existing) {
        return new Rejected("ALREADY_BOOKED", "Already booked",
                "This passenger already holds a confirmed seat on this flight: booking " + existing + ".",
                Map.of("bookingId", existing.toString()));
    }

    static ProblemException fareNotFound(FareKey fare) {
        return new ProblemException(404, "FARE_NOT_FOUND", "Fare not found",
                "Flight " + fare.flightId() + " has no fare class " + fare.fareClass() + ".");
    }

    static ProblemException bookingNotFound(UUID bookingId) {
        return new ProblemException(404, "BOOKING_NOT_FOUND", "Booking not found", "There is no booking " + bookingId + ".");
    }

    static ProblemException contention(long retryAfterSeconds) {
        return new ProblemException(409, "CONTENTION", "Too much contention",
                "Concurrent bookings kept conflicting with this one; retry shortly.", Map.of(), retryAfterSeconds);
    }

    static ProblemException seatsBelowBooked(long booked) {
        return new ProblemException(409, "SEATS_BELOW_BOOKED", "Fewer seats than bookings",
                "The fare has " + booked + " confirmed bookings; seats cannot be set below that.", Map.of("booked", booked));
    }

    /**
     * The client's {@code If-Match} or {@code If-None-Match} did not hold for the fare as it is now (or, with no fare,
     * an {@code If-Match} had nothing to match). The same reason as a stale bike edit: reload, then decide again.
     */
    static ProblemException staleFare(FareKey fare, boolean exists) {
        return new ProblemException(412, "STALE_VERSION", "Precondition failed", exists
                ? "Fare " + fare.flightId() + "/" + fare.fareClass() + " does not meet the If-Match or If-None-Match sent (it changed since, or exists already); GET it and decide again."
                : "Flight " + fare.flightId() + " has no fare class " + fare.fareClass() + " for If-Match to match.");
    }

    /** The booking is not in the state the client's If-Match names: cancelled or ticketed since it was read. */
    static ProblemException staleBooking(UUID bookingId) {
        return new ProblemException(412, "STALE_VERSION", "Precondition failed",
                "Booking " + bookingId + " does not meet the If-Match sent (it was cancelled or ticketed since); GET it and decide again.");
    }

    static Busy lockNotAvailable(long retryAfterSeconds) {
        return new Busy("BUSY", "The fare is locked by another booking; retry shortly.", retryAfterSeconds);
    }

    /** The pool's wait queue ({@code turnstile.booking.pool.max-wait-queue}) is full: shed load rather than queue it. */
    static Busy poolFull(long retryAfterSeconds) {
        return new Busy("BUSY", "Too many requests are waiting for a database connection; retry shortly.", retryAfterSeconds);
    }

    /**
     * Too many bookings of the same fare wait in its gate ({@link FareGates}), or this one waited there longer than
     * the pool's acquire timeout.
     */
    static Busy fareQueueFull(long retryAfterSeconds) {
        return new Busy("BUSY", "Too many bookings of this fare are waiting; retry shortly.", retryAfterSeconds);
    }

    static Busy statementTimeout(long retryAfterSeconds) {
        return new Busy("TIMEOUT", "The database did not answer in time; retry shortly.", retryAfterSeconds);
    }
}
