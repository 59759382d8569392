package dev.turnstile.booking;

import java.io.IOException;
import java.util.Set;

import dev.turnstile.problem.ProblemException;
import dev.turnstile.problem.StoreUnavailable;
import io.vertx.core.VertxException;
import io.vertx.core.http.ConnectionPoolTooBusyException;
import io.vertx.core.impl.NoStackTraceThrowable;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;

/**
 * Which failures of the reactive PostgreSQL client mean "the store is away or full right now" rather than a bug: a
 * server restart, a dropped or refused connection, a pool that could not hand out a connection in time, a server that
 * did not answer an open connection within the transaction deadline ({@link BoundedTransactions}). They are
 * answered 503 with {@code Retry-After}; the client retries (with the same {@code Idempotency-Key}, since a dropped
 * COMMIT may have taken effect). The client reports them as plain Vert.x exceptions without SQL state, so they are
 * recognised by type and, for those the client only raises as a bare {@link VertxException} or
 * {@link NoStackTraceThrowable}, by its fixed message.
 */
final class PostgresFaults {

    /**
     * SQL states of a server that is going away, not there yet, or unable to take writes for now: connection
     * exceptions (class 08), admin/crash shutdown and "the database system is starting up" (57P01-57P03), too many
     * connections (53300), out of resources, disk or memory (53000, 53100, 53200), and a read-only transaction
     * (25006), which is what a failover's old writer or a standby answers until the pool reaches the new writer.
     */
    private static final Set<String> UNAVAILABLE_STATES = Set.of("57P01", "57P02", "57P03", "53300", "53000", "53100",
            "53200", "25006");
    /** Followed by ", current status: CLOSED" (or another status) in vertx-sql-client 4.5. */
    private static final String CONNECTION_NOT_ACTIVE = "Connection is not active now";
    /** The pool's acquire timeout, as the pool ({@code PoolImpl}) and its queue ({@code SqlConnectionPool}) word it. */
    private static final Set<String> POOL_ACQUIRE_TIMEOUT = Set.of("Timeout", "Timeout waiting for connection");

    private PostgresFaults() {
    }

    /** The 503 answer for {@code failure}, or null when it is not a transient store fault. */
    static ProblemException translate(Throwable failure, long retryAfterSeconds) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof ConnectionPoolTooBusyException) {
                return BookingProblems.poolFull(retryAfterSeconds);
            }
            if (isUnavailable(cause)) {
                return new StoreUnavailable("PostgreSQL", retryAfterSeconds);
            }
        }
        return null;
    }

    private static boolean isUnavailable(Throwable cause) {
        if (cause instanceof PgException pg) {
            String state = pg.getSqlState();
            return state != null && (state.startsWith("08") || UNAVAILABLE_STATES.contains(state));
        }
        // IOException covers "Connection reset", "Connection refused" (ConnectException), ClosedChannelException
        return cause instanceof ClosedConnectionException || cause instanceof IOException
                || cause instanceof BoundedTransactions.PostgresDidNotAnswer
                || ((cause instanceof VertxException || cause instanceof NoStackTraceThrowable)
                        && (startsWith(cause.getMessage(), CONNECTION_NOT_ACTIVE) || POOL_ACQUIRE_TIMEOUT.contains(cause.getMessage())));
    }

    private static boolean startsWith(String message, String prefix) {
        return message != null && message.startsWith(prefix);
    }
}
