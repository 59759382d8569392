package dev.turnstile.booking;

import java.time.temporal.ChronoUnit;
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
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.pgclient.PgException;

/**
 * Runs one booking transaction per attempt and retries it, from its first read, when it lost a race. Every attempt
 * is a fresh transaction on a fresh subscription, so a retry can never reuse what the failed attempt had read.
 *
 * <p>Retry settings can be overridden with {@code dev.turnstile.booking.BookingAttempts/inTransaction/Retry/maxRetries}
 * (and {@code .../delay}, {@code .../maxDuration}); the backoff cap is {@code turnstile.retry.max-delay-ms}.
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
    private final BookingMetrics metrics;
    private final long retryAfterSeconds;
    private final RaceTracing races;

    BookingAttempts(BoundedTransactions transactions, FareGates gates, BookingMetrics metrics,
            BookingConfig config, RaceTracing races) {
        this.transactions = transactions;
        this.gates = gates;
        this.metrics = metrics;
        this.retryAfterSeconds = config.busyRetryAfterSeconds();
        this.races = races;
    }

    /**
     * {@code work} in one transaction (SERIALIZABLE for that strategy, READ COMMITTED with a pipelined COMMIT
     * otherwise, see {@link BoundedTransactions#runPipelined}), let through the fare's gate ({@link FareGates}): at
     * once or 503 BUSY for nowait, not at all for sharded, whose bookings spread over rows. {@code race} ({@link #race})
     * counts and traces the attempts of this one booking, across retries; a retry waits its backoff outside the gate.
     */
    @Retry(retryOn = RetryableConflict.class, maxRetries = 10, delay = 5, jitter = 0, maxDuration = 5, durationUnit = ChronoUnit.SECONDS)
    @CustomBackoff(FullJitterBackoff.class)
    public <T> Uni<T> inTransaction(Strategy strategy, FareKey fare, RaceAttempts race,
            BiFunction<SqlConnection, LastStatement, Uni<T>> work) {
        return race.attempt(() -> Uni.createFrom().deferred(() -> {
            metrics.attempt(strategy, race.retrying());
            Supplier<Uni<T>> transaction = strategy == Strategy.SERIALIZABLE
                    ? () -> transactions.runSerializable(connection -> work.apply(connection, LastStatement.COMMITTED_AFTER))
                    : () -> transactions.runPipelined(work);
            return switch (strategy) {
                case SHARDED -> transaction.get();
                case NOWAIT -> gates.ifOpen(fare, transaction);
                default -> gates.through(fare, transaction);
            };
        }).onFailure().transform(failure -> translate(strategy, failure)));
    }

    /** The attempts of one booking, traced ({@link RaceAttempts}); its retries go through {@link #inTransaction}. */
    public RaceAttempts race(Strategy strategy) {
        return races.begin("booking", Attributes.of(RaceAttempts.STRATEGY, strategy.label()), RetryableConflict.class);
    }

    /** One transaction without retries, for operations that cannot lose a race (cancel, reset). */
    public <T> Uni<T> once(Function<SqlConnection, Uni<T>> work) {
        return transactions.run(work).onFailure().transform(failure -> translate(null, failure));
    }

    /**
     * A read: only store faults are translated (to 503), nothing is retried. It runs in a transaction too, because
     * that is the only place a pooler lets {@code statement_timeout} be set.
     */
    public <T> Uni<T> read(Function<SqlConnection, Uni<T>> work) {
        return transactions.run(work).onFailure().transform(failure -> translate(null, failure));
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
