package dev.turnstile.booking;

import java.util.Collection;
import java.util.List;
import java.util.Locale;

/** How a booking takes its seat; see docs/booking.md for what each one costs and guarantees. */
public enum Strategy {
    /** Read seats and versions, decide in Java, update WHERE version = read version; conflicts are retried. */
    OPTIMISTIC,
    /** SELECT ... FOR UPDATE on every shard row of the fare, then decide, update and insert. */
    PESSIMISTIC,
    /** As pessimistic, but FOR UPDATE NOWAIT: a locked fare answers 503 BUSY at once. */
    NOWAIT,
    /** The rule inside one UPDATE ... WHERE seats_available > ... statement; no read. */
    ATOMIC,
    /** Read, decide and update under SERIALIZABLE isolation; serialization failures are retried. */
    SERIALIZABLE,
    /** As atomic, but starting on a random shard row, so that concurrent bookings spread over the shards. */
    SHARDED,
    /**
     * Concurrent bookings of one fare are collected for a short window and taken together: one locked read, one
     * UPDATE, one multi-row INSERT and one COMMIT for the whole batch ({@link BatchedTakes}).
     */
    BATCHED;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    static List<String> labels(Collection<Strategy> strategies) {
        return strategies.stream().sorted().map(Strategy::label).toList();
    }
}
