package dev.turnstile.rental;

import java.util.Map;

import dev.turnstile.problem.ProblemException;

/** 412: the client's {@code If-Match} names an older version. The body carries the current bike so the form can be redone. */
public final class StaleVersion extends ProblemException {

    public StaleVersion(Bike current) {
        super(412, "STALE_VERSION", "Precondition failed",
                "Bike " + current.bikeId() + " is at version " + current.version() + "; reload it and apply the edit again",
                Map.of("current", current));
    }
}
