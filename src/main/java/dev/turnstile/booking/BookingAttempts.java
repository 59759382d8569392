package dev.turnstile.booking;

import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.faulttolerance.Retry;

import dev.turnstile.booking.BookingProblems.RetryableConflict;
import dev.turnstile.booking.BoundedTransactions.LastStatement;
import dev.turnstile.problem.ProblemException;
import dev.turnstile.retry.FullJitterBackoff;
import dev.turnstile.retry.RaceAttempts;
import dev.turnstile.retry.RaceTracing;
import io.opentelemetry.api.common.Attributes;
import io.smallrye.faulttolerance.api.CustomBackoff;
import io.smallrye.faulttolerance.api.CustomBackoffStrategy;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.pgclient.PgException;

/**
 * Runs one booking transaction per attempt and retries it, from its first read, when it lost a race. Every attempt
 * is a fresh transaction on a fresh subscription, so a retry can never reuse what the failed attempt had read.
 *
 * <p>A booking retries within its budget ({@code turnstile.booking.retry-budget}, counted from its first attempt):
 * the backoff never waits past it, and a race lost once it is spent is answered 409 CONTENTION with Retry-After. At
 * 64 connections on one row, without a gate, the retries alone made the tail 2 s; a caller would rather retry
 * itself. The other retry settings can be overridden with
 * {@code dev.turnstile.booking.BookingAttempts/inTransaction/Retry/maxRetries} (and {@code .../delay},
 * {@code .../maxDuration}, a backstop); the backoff cap is {@code turnstile.retry.max-delay-ms}.
 */
@ApplicationScoped
public class BookingAttempts {

    private static final String SERIALIZATION_FAILURE = "40001";
    private static final String DEADLOCK = "40P01";
    private static final String LOCK_NOT_AVAILABLE = "55P03";
    private static final String QUERY_CANCELED = "57014";
    private static final String UNIQUE_VIOLATION = "23505";
    private static final String ONE_SEAT_PER_PASSENGER = "bookings_one_seat_per_passenger";

    private final BoundedTransactions transactions;
    private final FareGates gates;
    private final SoldOutFares soldOut;
    private final BookingMetrics metrics;
    private final long retryAfterSeconds;
    private final long budgetNanos;
    private final RaceTracing races;

    BookingAttempts(BoundedTransactions transactions, FareGates gates, SoldOutFares soldOut, BookingMetrics metrics,
            BookingConfig config, RaceTracing races) {
        this.transactions = transactions;
        this.gates = gates;
        this.soldOut = soldOut;
        this.metrics = metrics;
        this.retryAfterSeconds = config.busyRetryAfterSeconds();
        this.budgetNanos = config.retryBudget().toNanos();
        this.races = races;
    }

    /** The attempts of one booking, traced ({@link RaceAttempts}), and the time they may take; starts now. */
    public Budget budget(Strategy strategy) {
        RaceAttempts race = races.begin("booking", Attributes.of(RaceAttempts.STRATEGY, strategy.label()), RetryableConflict.class);
        return new Budget(System.nanoTime() + budgetNanos, race);
    }

    /** The answer when a booking lost its races until its budget or its retries ran out. */
    public ProblemException contention() {
        return BookingProblems.contention(retryAfterSeconds);
    }

    /** What one booking has used over all its attempts. */
    public static final class Budget {
        private final long deadlineNanos;
        private final RaceAttempts race;

        Budget(long deadlineNanos, RaceAttempts race) {
            this.deadlineNanos = deadlineNanos;
            this.race = race;
        }

        /** The whole booking, all its attempts ({@link RaceAttempts#settle}). */
        public <T> Uni<T> settle(Uni<T> call) {
            return race.settle(call);
        }

        private RetryableConflict lost(RetryableConflict conflict) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
            return left > 0 ? new ConflictWithinBudget(conflict.getMessage(), left) : new BudgetSpent(conflict.getMessage());
        }
    }

    /** A lost race with {@code leftMillis} of the budget left: retried, after at most that long. */
    static final class ConflictWithinBudget extends RetryableConflict {
        final long leftMillis;

        ConflictWithinBudget(String message, long leftMillis) {
            super(message);
            this.leftMillis = leftMillis;
        }
    }

    /** A lost race once the budget is spent: not retried, answered CONTENTION. */
    static final class BudgetSpent extends RetryableConflict {
        BudgetSpent(String message) {
            super(message);
        }
    }

    /** Full jitter, but never waiting past the booking's budget (a wait that ends after it could only end in CONTENTION). */
    public static final class WithinBudgetBackoff implements CustomBackoffStrategy {
        private final FullJitterBackoff jitter = new FullJitterBackoff();

        @Override
        public void init(long initialDelayInMillis) {
            jitter.init(initialDelayInMillis);
        }

        @Override
        public long nextDelayInMillis(Throwable cause) {
            long delay = jitter.nextDelayInMillis(cause);
            return cause instanceof ConflictWithinBudget within ? Math.min(delay, within.leftMillis) : delay;
        }
    }

    /** How the statements of one attempt are committed. */
    public enum Statements {
        /** All in one transaction. */
        TOGETHER,
        /**
         * Each on its own, where the connection allows it ({@link BoundedTransactions#runAlone}): for work whose
         * every statement keeps the rules by itself, such as a take that checks the seat and inserts the booking.
         */
        EACH_ALONE
    }

    /**
     * {@code work} in one transaction (SERIALIZABLE for that strategy, READ COMMITTED with a pipelined COMMIT
     * otherwise, see {@link BoundedTransactions#runPipelined}), or its statements each alone if {@code statements}
     * says they may be, let through the fare's gate ({@link FareGates}): at once or 503 BUSY for nowait, not at all
     * for sharded, whose bookings spread over rows, nor for a fare last seen sold out: those bookings start with an
     * unlocked read ({@link SoldOutFares}). {@code budget} is this one booking's ({@link #budget}): it counts, traces
     * and times the attempts across retries; a retry waits its backoff outside the gate.
     */
    @Retry(retryOn = RetryableConflict.class, abortOn = BudgetSpent.class, maxRetries = 10, delay = 5, jitter = 0,
            maxDuration = 5, durationUnit = ChronoUnit.SECONDS)
    @CustomBackoff(WithinBudgetBackoff.class)
    public <T> Uni<T> inTransaction(Strategy strategy, FareKey fare, Budget budget, Statements statements,
            BiFunction<SqlConnection, LastStatement, Uni<T>> work) {
        return budget.race.attempt(() -> Uni.createFrom().deferred(() -> {
            metrics.attempt(strategy, budget.race.retrying());
            Supplier<Uni<T>> transaction = strategy == Strategy.SERIALIZABLE
                    ? () -> transactions.runSerializable(connection -> work.apply(connection, LastStatement.COMMITTED_AFTER))
                    : statements == Statements.EACH_ALONE ? () -> transactions.runAlone(work) : () -> transactions.runPipelined(work);
            if (soldOut.known(fare)) {
                return transaction.get();
            }
            return switch (strategy) {
                case SHARDED -> transaction.get();
                case NOWAIT -> gates.ifOpen(fare, transaction);
                default -> gates.through(fare, transaction);
            };
        }).onFailure().transform(failure -> {
            Throwable translated = translate(strategy, failure);
            return translated instanceof RetryableConflict conflict ? budget.lost(conflict) : translated;
        }));
    }

    /**
     * One transaction without retries, for operations that cannot lose a race (cancel, reset). A serialization
     * failure or deadlock (a database defaulting to REPEATABLE READ or SERIALIZABLE, CockroachDB) is the client's to
     * retry: 409 CONTENTION with Retry-After, not the internal conflict (a 500).
     */
    public <T> Uni<T> once(Function<SqlConnection, Uni<T>> work) {
        return transactions.run(work).onFailure().transform(this::unretried);
    }

    /**
     * A read: only store faults are translated (to 503), nothing is retried. It runs in a transaction too, because
     * that is the only place a pooler lets {@code statement_timeout} be set.
     */
    public <T> Uni<T> read(Function<SqlConnection, Uni<T>> work) {
        return transactions.run(work).onFailure().transform(this::unretried);
    }

    private Throwable unretried(Throwable failure) {
        Throwable translated = translate(null, failure);
        return translated instanceof RetryableConflict ? contention() : translated;
    }

    private Throwable translate(Strategy strategy, Throwable failure) {
        if (failure instanceof RetryableConflict) {
            count(strategy, metrics::conflict);
            return failure;
        }
        ProblemException unavailable = PostgresFaults.translate(failure, retryAfterSeconds);
        if (unavailable != null) {
            count(strategy, metrics::storeUnavailable);
            return unavailable;
        }
        if (!(failure instanceof PgException)) {
            return failure;
        }
        String state = ((PgException) failure).getSqlState();
        // A duplicate of this passenger that committed first is a lost race too: the retry reads it (ALREADY_BOOKED).
        boolean duplicatePassenger = UNIQUE_VIOLATION.equals(state)
                && ONE_SEAT_PER_PASSENGER.equals(((PgException) failure).getConstraint());
        if (SERIALIZATION_FAILURE.equals(state) || DEADLOCK.equals(state) || duplicatePassenger) {
            count(strategy, metrics::conflict);
            return new RetryableConflict(state + ": " + failure.getMessage());
        }
        if (LOCK_NOT_AVAILABLE.equals(state)) {
            count(strategy, metrics::lockTimeout);
            return BookingProblems.lockNotAvailable(retryAfterSeconds);
        }
        if (QUERY_CANCELED.equals(state)) {
            count(strategy, metrics::statementTimeout);
            return BookingProblems.statementTimeout(retryAfterSeconds);
        }
        return failure;
    }

    private static void count(Strategy strategy, java.util.function.Consumer<Strategy> counter) {
        if (strategy != null) {
            counter.accept(strategy);
        }
    }
}
