package dev.turnstile.rental;

import dev.turnstile.problem.ProblemException;

/** A business "no" (409): the state that was read does not allow the action. Never retried: reading again won't change it. */
public final class RentalRejected extends ProblemException {

    public RentalRejected(String reason, String detail) {
        super(409, reason, "Rental rejected", detail);
    }
}
