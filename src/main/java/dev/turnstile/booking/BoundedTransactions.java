package dev.turnstile.booking;

import java.util.function.BiFunction;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;

import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.Cancellable;
import io.smallrye.mutiny.tuples.Tuple2;
import io.smallrye.mutiny.tuples.Tuple3;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Every statement Turnstile sends to PostgreSQL is bounded by {@code lock_timeout}, {@code statement_timeout} and
 * {@code idle_in_transaction_session_timeout}. On a direct connection they are the session's startup parameters
 * ({@link BoundedPool}). Behind a pooler every statement runs in a transaction that sets them for itself only
 * ({@code set_config(..., true)}, the function form of {@code SET LOCAL}), pipelined with the work's first statement,
 * so they cost no round trip of their own: PgBouncer refuses startup parameters ({@code unsupported startup
 * parameter}), RDS Proxy pins every connection that sends them, and a session {@code SET} would follow the server
 * connection to whichever client a pooler hands it next.
 */
@ApplicationScoped
public class BoundedTransactions {

    private static final String LIMITS = "SELECT set_config('lock_timeout', $1, true), set_config('statement_timeout', $2, true), "
            + "set_config('idle_in_transaction_session_timeout', $3, true)";
    // SET TRANSACTION must precede every query of the transaction, set_config included
    private static final String SERIALIZABLE = "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE";

    private final Pool pool;
    private final Tuple limits;
    private final boolean limitsAtConnect;

    BoundedTransactions(Pool pool, BookingConfig config, BoundedPool bounds) {
        this.pool = pool;
        this.limits = Tuple.of(config.lockTimeout(), config.statementTimeout(), config.idleInTransactionTimeout());
        this.limitsAtConnect = bounds.limitsAtConnect();
    }

    /** {@code work} in one READ COMMITTED transaction, committed when its Uni succeeds, rolled back when it fails. */
    public <T> Uni<T> run(Function<SqlConnection, Uni<T>> work) {
        return inCallersTrace(connection -> bounded(connection, work), pool::withTransaction);
    }

    /**
     * {@code work} in one READ COMMITTED transaction whose COMMIT may travel with its last statement: the work hands
     * that statement to {@link LastStatement#thenCommit}, which sends COMMIT right behind it instead of after its
     * answer, so on a hot row the lock is released when PostgreSQL has run the statement, not a round trip (and the
     * service's time to read the answer) later. If the statement fails, PostgreSQL turns that COMMIT into a rollback.
     * Work that never calls it is committed after its Uni succeeds, as in {@link #run}; any failure before it rolls back.
     *
     * <p>BEGIN and COMMIT are sent as statements because vert.x's {@code Transaction} holds COMMIT back until every
     * answer is in ({@code TransactionImpl.checkEnd}), which is the round trip this saves.
     */
    public <T> Uni<T> runPipelined(BiFunction<SqlConnection, LastStatement, Uni<T>> work) {
        return inCallersTrace(connection -> {
            PipelinedCommit commit = new PipelinedCommit(connection);
            return Uni.combine().all().unis(connection.query("BEGIN").execute(), limitTransaction(connection), work.apply(connection, commit))
                    .asTuple().map(Tuple3::getItem3)
                    .call(() -> commit.sent ? Uni.createFrom().voidItem() : connection.query("COMMIT").execute())
                    .onFailure().call(() -> commit.end())
                    .onCancellation().call(() -> commit.end());
        }, pool::withConnection);
    }

    /**
     * {@code work} whose every statement stands alone, as a transaction of its own (autocommit): no BEGIN, limits or
     * COMMIT to send, parse and run beside it. Only where the connection carries the limits ({@link BoundedPool});
     * behind a pooler this is {@link #runPipelined}.
     */
    public <T> Uni<T> runAlone(BiFunction<SqlConnection, LastStatement, Uni<T>> work) {
        if (!limitsAtConnect) {
            return runPipelined(work);
        }
        return inCallersTrace(connection -> work.apply(connection, LastStatement.COMMITTED_AFTER), pool::withConnection);
    }

    /** {@code work} in one SERIALIZABLE transaction. */
    public <T> Uni<T> runSerializable(Function<SqlConnection, Uni<T>> work) {
        return inCallersTrace(connection -> Uni.combine().all()
                .unis(connection.query(SERIALIZABLE).execute(), bounded(connection, work)).asTuple().map(Tuple2::getItem2),
                pool::withTransaction);
    }

    /**
     * {@code work} made and subscribed to in the trace context that was current when the transaction was subscribed
     * to (a booking's attempt span), so that its statements are traced under it. The pool calls back at once when a
     * connection is idle, but when it has to wait for one it calls back later, on the request's Vert.x context that
     * by then holds the span current before the attempt began: every statement of the transaction was traced beside
     * the attempt instead of under it (BookingSpanTreeTest, more bookings at once than connections).
     */
    private static <T> Uni<T> inCallersTrace(Function<SqlConnection, Uni<T>> work,
            Function<Function<SqlConnection, Uni<T>>, Uni<T>> withConnection) {
        return Uni.createFrom().deferred(() -> {
            Context caller = Context.current();
            return withConnection.apply(connection -> {
                if (Context.current() == caller) {
                    // called back at once, still in the caller's context: nothing to carry over
                    return work.apply(connection);
                }
                return Uni.createFrom().<T>emitter(emitter -> {
                    try (Scope ignored = caller.makeCurrent()) {
                        Cancellable running = work.apply(connection).subscribe().with(emitter::complete, emitter::fail);
                        emitter.onTermination(running::cancel);
                    }
                });
            });
        });
    }

    /*
     * Both Unis are subscribed at once, in order, so the client queues the limits and the work's first statement
     * back to back on the connection; a failure of either fails the transaction.
     */
    private <T> Uni<T> bounded(SqlConnection connection, Function<SqlConnection, Uni<T>> work) {
        return Uni.combine().all().unis(limitTransaction(connection), work.apply(connection)).asTuple().map(Tuple2::getItem2);
    }

    private Uni<Void> limitTransaction(SqlConnection connection) {
        return limitsAtConnect ? Uni.createFrom().voidItem() : limit(connection);
    }

    /** Sets the limits for the transaction open on {@code connection}. */
    public Uni<Void> limit(SqlConnection connection) {
        return connection.preparedQuery(LIMITS).execute(limits).replaceWithVoid();
    }

    /** The way a transaction's work sends its last statement (see {@link #runPipelined}). */
    public interface LastStatement {

        /** For transactions committed after their work: the statement as it is. */
        LastStatement COMMITTED_AFTER = new LastStatement() {
            @Override
            public <T> Uni<T> thenCommit(Uni<T> statement) {
                return statement;
            }
        };

        /** {@code statement}, after which the transaction sends nothing else. */
        <T> Uni<T> thenCommit(Uni<T> statement);
    }

    private static final class PipelinedCommit implements LastStatement {

        private final SqlConnection connection;
        // only touched on the connection's event loop
        private boolean sent;

        PipelinedCommit(SqlConnection connection) {
            this.connection = connection;
        }

        @Override
        public <T> Uni<T> thenCommit(Uni<T> statement) {
            return Uni.createFrom().deferred(() -> {
                sent = true;
                // subscribed in order, so the client queues the statement and COMMIT back to back
                return Uni.combine().all().unis(statement, connection.query("COMMIT").execute()).asTuple().map(Tuple2::getItem1);
            });
        }

        /** Rolls back unless COMMIT is on its way; the work's own failure is the one that counts. */
        Uni<Void> end() {
            return sent ? Uni.createFrom().voidItem()
                    : connection.query("ROLLBACK").execute().replaceWithVoid().onFailure().recoverWithNull();
        }
    }
}
