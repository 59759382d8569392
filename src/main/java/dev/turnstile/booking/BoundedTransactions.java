package dev.turnstile.booking;

import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.tuples.Tuple2;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Every statement Turnstile sends to PostgreSQL runs in a transaction bounded by {@code lock_timeout},
 * {@code statement_timeout} and {@code idle_in_transaction_session_timeout}, set for that transaction only
 * ({@code set_config(..., true)}, the function form of {@code SET LOCAL}). Startup parameters would set them once per
 * connection, but PgBouncer refuses them ({@code unsupported startup parameter}), RDS Proxy pins every connection that
 * sends them, and a session {@code SET} would follow the server connection to whichever client a pooler hands it next.
 * The settings are sent pipelined with the work's first statement, so they cost no round trip of their own.
 */
@ApplicationScoped
public class BoundedTransactions {

    private static final String LIMITS = "SELECT set_config('lock_timeout', $1, true), set_config('statement_timeout', $2, true), "
            + "set_config('idle_in_transaction_session_timeout', $3, true)";
    // SET TRANSACTION must precede every query of the transaction, set_config included
    private static final String SERIALIZABLE = "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE";

    private final Pool pool;
    private final Tuple limits;

    BoundedTransactions(Pool pool,
            @ConfigProperty(name = "turnstile.booking.lock-timeout", defaultValue = "2s") String lockTimeout,
            @ConfigProperty(name = "turnstile.booking.statement-timeout", defaultValue = "5s") String statementTimeout,
            @ConfigProperty(name = "turnstile.booking.idle-in-transaction-timeout", defaultValue = "10s") String idleTimeout) {
        this.pool = pool;
        this.limits = Tuple.of(lockTimeout, statementTimeout, idleTimeout);
    }

    /** {@code work} in one READ COMMITTED transaction, committed when its Uni succeeds, rolled back when it fails. */
    public <T> Uni<T> run(Function<SqlConnection, Uni<T>> work) {
        return pool.withTransaction(connection -> bounded(connection, work));
    }

    /** {@code work} in one SERIALIZABLE transaction. */
    public <T> Uni<T> runSerializable(Function<SqlConnection, Uni<T>> work) {
        return pool.withTransaction(connection -> Uni.combine().all()
                .unis(connection.query(SERIALIZABLE).execute(), bounded(connection, work)).asTuple().map(Tuple2::getItem2));
    }

    /*
     * Both Unis are subscribed at once, in order, so the client queues the limits and the work's first statement
     * back to back on the connection; a failure of either fails the transaction.
     */
    private <T> Uni<T> bounded(SqlConnection connection, Function<SqlConnection, Uni<T>> work) {
        return Uni.combine().all().unis(limit(connection), work.apply(connection)).asTuple().map(Tuple2::getItem2);
    }

    /** Sets the limits for the transaction open on {@code connection}. */
    public Uni<Void> limit(SqlConnection connection) {
        return connection.preparedQuery(LIMITS).execute(limits).replaceWithVoid();
    }
}
