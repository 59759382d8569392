package dev.turnstile.booking;

import java.util.EnumMap;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;

/**
 * Per-strategy counters (tag {@code strategy}). SmallRye FT's own retry metrics are per method, and one method serves
 * every strategy, so these say which strategy pays for its conflicts. Created at start, so every series is published
 * at zero before the first booking: a dashboard's {@code rate()} and an alert on it see the series from the start.
 */
@Startup
@ApplicationScoped
public class BookingMetrics {

    private final Map<Strategy, Counters> counters = new EnumMap<>(Strategy.class);

    BookingMetrics(MeterRegistry registry) {
        for (Strategy strategy : Strategy.values()) {
            counters.put(strategy, new Counters(registry, strategy.label()));
        }
    }

    void attempt(Strategy strategy, boolean retry) {
        Counters c = counters.get(strategy);
        c.attempts.increment();
        if (retry) {
            c.retries.increment();
        }
    }

    void conflict(Strategy strategy) {
        counters.get(strategy).conflicts.increment();
    }

    void exhausted(Strategy strategy) {
        counters.get(strategy).exhausted.increment();
    }

    void lockTimeout(Strategy strategy) {
        counters.get(strategy).lockTimeouts.increment();
    }

    void statementTimeout(Strategy strategy) {
        counters.get(strategy).statementTimeouts.increment();
    }

    void storeUnavailable(Strategy strategy) {
        counters.get(strategy).storeUnavailable.increment();
    }

    void booked(Strategy strategy) {
        counters.get(strategy).booked.increment();
    }

    private static final class Counters {
        final Counter attempts;
        final Counter retries;
        final Counter conflicts;
        final Counter exhausted;
        final Counter lockTimeouts;
        final Counter statementTimeouts;
        final Counter booked;
        final Counter storeUnavailable;

        Counters(MeterRegistry registry, String strategy) {
            attempts = counter(registry, "turnstile.booking.attempts", "Booking transactions started", strategy);
            retries = counter(registry, "turnstile.booking.retries", "Booking transactions that were retries", strategy);
            conflicts = counter(registry, "turnstile.booking.conflicts",
                    "Optimistic version conflicts, serialization failures (40001) and deadlocks (40P01)", strategy);
            exhausted = counter(registry, "turnstile.booking.exhausted", "Bookings that ran out of retries (409 CONTENTION)", strategy);
            lockTimeouts = counter(registry, "turnstile.booking.lock.timeouts",
                    "Lock not available: lock_timeout expired or NOWAIT found the row locked (55P03)", strategy);
            statementTimeouts = counter(registry, "turnstile.booking.statement.timeouts", "statement_timeout expired (57014)", strategy);
            booked = counter(registry, "turnstile.booking.booked", "Bookings confirmed", strategy);
            storeUnavailable = counter(registry, "turnstile.booking.store.unavailable",
                    "PostgreSQL away, connection dropped or pool exhausted (503 STORE_UNAVAILABLE or BUSY)", strategy);
        }

        private static Counter counter(MeterRegistry registry, String name, String description, String strategy) {
            return Counter.builder(name).description(description).tag("strategy", strategy).register(registry);
        }
    }
}
