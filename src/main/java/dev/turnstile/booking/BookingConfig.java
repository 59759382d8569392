package dev.turnstile.booking;

import java.time.Duration;
import java.util.Set;

import dev.turnstile.config.CheckedValues.AtLeastOneMillisecond;
import dev.turnstile.config.CheckedValues.NonNegative;
import dev.turnstile.config.CheckedValues.NonNegativeLong;
import dev.turnstile.config.CheckedValues.Positive;
import dev.turnstile.config.CheckedValues.PostgresDuration;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithConverter;
import io.smallrye.config.WithDefault;

/**
 * {@code turnstile.booking.*}; application.properties and docs/booking.md say what each one is for. Values are
 * checked at startup, which fails naming the property.
 */
@ConfigMapping(prefix = "turnstile.booking")
public interface BookingConfig {

    /** The strategy of a request that names none; it must be one of {@link #allowedStrategies()}. */
    @WithDefault("optimistic")
    Strategy defaultStrategy();

    @WithDefault("optimistic,pessimistic,nowait,atomic,serializable,sharded,batched")
    Set<Strategy> allowedStrategies();

    /** Retry-After on 503 BUSY and TIMEOUT. */
    @WithDefault("1")
    @WithConverter(NonNegativeLong.class)
    long busyRetryAfterSeconds();

    @WithDefault("2s")
    @WithConverter(PostgresDuration.class)
    String lockTimeout();

    @WithDefault("5s")
    @WithConverter(PostgresDuration.class)
    String statementTimeout();

    @WithDefault("10s")
    @WithConverter(PostgresDuration.class)
    String idleInTransactionTimeout();

    /**
     * How long a request's transaction may take from the moment it has its connection; then the request is answered
     * 503 STORE_UNAVAILABLE ({@link BoundedTransactions}). For a server that does not answer at all: PostgreSQL's own
     * timeouts end slow statements, but each statement on its own, so this stays above the longest healthy
     * transaction (a few statements, at most one or two lock waits of {@link #lockTimeout()}). 0 = none.
     */
    @WithDefault("6s")
    Duration transactionDeadline();

    /**
     * How long one booking may go on retrying lost races (optimistic, serializable, and the rarer retries of the
     * others), counted from its first attempt; a race lost after it is answered 409 CONTENTION with Retry-After.
     * 0 = no retry.
     */
    @WithDefault("300ms")
    Duration retryBudget();

    /** Booking transactions of one fare running at once per instance; 0 = no limit ({@link FareGates}). */
    @WithDefault("1")
    @WithConverter(NonNegative.class)
    int transactionsPerFare();

    Ticketing ticketing();

    Pool pool();

    Batched batched();

    /** {@code turnstile.booking.ticketing.*} ({@link TicketWorkers}). */
    interface Ticketing {

        @WithDefault("true")
        boolean enabled();

        @WithDefault("2")
        @WithConverter(Positive.class)
        int workers();

        @WithDefault("50")
        @WithConverter(Positive.class)
        int batchSize();

        @WithDefault("500ms")
        Duration pollInterval();
    }

    /** {@code turnstile.booking.batched.*} ({@link BatchedQueues}). */
    interface Batched {

        /**
         * How long the first booking of an idle fare waits for others to join its batch; 0 sends it at once. While a
         * batch of the fare is running, the bookings that arrive wait for it to end anyway and form the next batch.
         */
        @WithDefault("2ms")
        Duration window();

        /** The most bookings one transaction takes; the rest form the next batch. */
        @WithDefault("64")
        @WithConverter(Positive.class)
        int maxSize();
    }

    /** {@code turnstile.booking.pool.*} ({@link BoundedPool}). */
    interface Pool {
        /**
         * Requests that may wait for a connection; more are refused with 503 BUSY. 1000 because 20 connections drain
         * that many waiters within the acquire timeout at the measured ~850 bookings/s, so a burst of a few hundred
         * requests per pod queues instead of being shed, while a stalled database still sheds load.
         */
        @WithDefault("1000")
        @WithConverter(Positive.class)
        int maxWaitQueue();

        /** How long a request waits for a connection before 503 STORE_UNAVAILABLE (also at a fare's gate or batch queue). */
        @WithDefault("5s")
        @WithConverter(AtLeastOneMillisecond.class)
        Duration acquireTimeout();
    }
}
