package dev.turnstile.rental;

/** How {@code POST /bikes/{bikeId}/rent} writes: its {@code mode} query parameter, read by {@link RentalParams}. */
public enum RentMode {
    /** One UpdateItem whose condition is the whole rule: no read first, no retry, no Idempotency-Key. */
    CONDITION("condition"),
    /** Read, decide, conditional write, retried on a lost race (the default). */
    READ_DECIDE_WRITE("read-decide-write");

    static final String PARAMETER = "mode";

    private final String label;

    RentMode(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
