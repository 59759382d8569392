package dev.turnstile.rental;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.turnstile.problem.ProblemException;

/** How {@code POST /bikes/{bikeId}/rent} writes: its {@code mode} query parameter. */
public enum RentMode {
    /** One UpdateItem whose condition is the whole rule: no read first, no retry, no Idempotency-Key. */
    CONDITION("condition"),
    /** Read, decide, conditional write, retried on a lost race (the default). */
    READ_DECIDE_WRITE("read-decide-write");

    static final String PARAMETER = "mode";
    static final List<String> LABELS = Arrays.stream(values()).map(RentMode::label).toList();

    private final String label;

    RentMode(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    static Optional<RentMode> named(String label) {
        return Arrays.stream(values()).filter(mode -> mode.label.equals(label)).findFirst();
    }

    /** Any other value is the client's error: the answer names the parameter and the values it may take. */
    static ProblemException unknown() {
        return ProblemException.invalid(List.of(new ProblemException.FieldError(PARAMETER, "must be one of " + LABELS)),
                Map.of("allowed", LABELS));
    }
}
