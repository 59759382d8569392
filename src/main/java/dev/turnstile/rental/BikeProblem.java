package dev.turnstile.rental;

import java.util.Map;
import java.util.function.UnaryOperator;

import dev.turnstile.problem.ProblemException;

/**
 * An answer that shows the bike as it is now ({@code current}), so that the client can decide again. The service does
 * not know who asks; the resource shows the bike as it shows it on GET ({@link #shownAs}), so a lost race never tells a
 * customer who rents the bike now.
 */
final class BikeProblem extends ProblemException {

    private final String title;
    private final Bike current;

    BikeProblem(int status, String reason, String title, String detail, Bike current) {
        super(status, reason, title, detail, Map.of("current", current));
        this.title = title;
        this.current = current;
    }

    BikeProblem shownAs(UnaryOperator<Bike> view) {
        return new BikeProblem(status(), reason(), title, getMessage(), view.apply(current));
    }
}
