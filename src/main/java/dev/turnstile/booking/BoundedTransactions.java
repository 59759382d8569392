package dev.turnstile.booking;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.Cancellable;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.smallrye.mutiny.tuples.Tuple2;
import io.smallrye.mutiny.tuples.Tuple3;
import io.smallrye.mutiny.vertx.UniHelper;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;

/**
 * Every statement Turnstile sends to PostgreSQL is bounded by {@code lock_timeout}, {@code statement_timeout} and
 * {@code idle_in_transaction_session_timeout}. On a direct connection they are the session's startup parameters
 * ({@link BoundedPool}). Behind a pooler every statement runs in a transaction that sets them for itself only
 * ({@code set_config(..., true)}, the function form of {@code SET LOCAL}), pipelined with the work's first statement,
 * so they cost no round trip of their own: PgBouncer refuses startup parameters ({@code unsupported startup
 * parameter}), RDS Proxy pins every connection that sends them, and a session {@code SET} would follow the server
 * connection to whichever client a pooler hands it next. A transaction whose connection gets no answer at all is
 * answered within {@code transaction-deadline} ({@link #onConnection}).
 */
@ApplicationScoped
public class BoundedTransactions {

    private static final Logger LOG = Logger.getLogger(BoundedTransactions.class);

    private static final String BEGIN = "BEGIN";
    private static final String BEGIN_SERIALIZABLE = "BEGIN ISOLATION LEVEL SERIALIZABLE";
    private static final long NO_DEADLINE = 0;
    private static final String LIMITS = "SELECT set_config('lock_timeout', $1, true), set_config('statement_timeout', $2, true), "
            + "set_config('idle_in_transaction_session_timeout', $3, true)";

    private final Pool pool;
    private final Tuple limits;
    private final boolean limitsAtConnect;
    private final Vertx vertx;
    private final long deadlineMillis;

    BoundedTransactions(Pool pool, BookingConfig config, BoundedPool bounds, Vertx vertx) {
        this.pool = pool;
        this.vertx = vertx;
        this.deadlineMillis = Math.max(NO_DEADLINE, config.transactionDeadline().toMillis());
        this.limits = Tuple.of(config.lockTimeout(), config.statementTimeout(), config.idleInTransactionTimeout());
        this.limitsAtConnect = bounds.limitsAtConnect();
    }

    /**
     * {@code work} in one READ COMMITTED transaction, committed when its Uni succeeds, rolled back when it fails. A work
     * must not recover from a failed statement and go on: PostgreSQL has aborted the transaction, and its COMMIT then
     * rolls back without an error.
     */
    public <T> Uni<T> run(Function<SqlConnection, Uni<T>> work) {
        return transaction(BEGIN, (connection, last) -> work.apply(connection), deadlineMillis);
    }

    /**
     * As {@link #run}, without the deadline: for work no caller waits for (ticket claims, key sweeps). Stalled, it
     * keeps the one connection it has until PostgreSQL answers, instead of leaving it behind at every deadline and
     * taking another.
     */
    public <T> Uni<T> runInBackground(Function<SqlConnection, Uni<T>> work) {
        return transaction(BEGIN, (connection, last) -> work.apply(connection), NO_DEADLINE);
    }

    /**
     * {@code work} in one READ COMMITTED transaction whose COMMIT may travel with its last statement: the work hands
     * that statement to {@link LastStatement#thenCommit}, which sends COMMIT right behind it instead of after its
     * answer, so on a hot row the lock is released when PostgreSQL has run the statement, not a round trip (and the
     * service's time to read the answer) later. If the statement fails, PostgreSQL turns that COMMIT into a rollback.
     * Work that never calls it is committed after its Uni succeeds, as in {@link #run}; any failure before it rolls back.
     */
    public <T> Uni<T> runPipelined(BiFunction<SqlConnection, LastStatement, Uni<T>> work) {
        return transaction(BEGIN, work, deadlineMillis);
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
        return onConnection(connection -> work.apply(connection, LastStatement.COMMITTED_AFTER), deadlineMillis);
    }

    /** {@code work} in one SERIALIZABLE transaction, committed after its Uni succeeds. */
    public <T> Uni<T> runSerializable(Function<SqlConnection, Uni<T>> work) {
        return transaction(BEGIN_SERIALIZABLE, (connection, last) -> work.apply(connection), deadlineMillis);
    }

    /**
     * BEGIN, the limits and the work's first statement go out back to back, and COMMIT after the work or behind its
     * last statement ({@link PipelinedCommit}). BEGIN and COMMIT are sent as statements rather than through vert.x's
     * {@code Transaction}: it holds COMMIT back until every answer is in ({@code TransactionImpl.checkEnd}), the round
     * trip the pipelined COMMIT saves, and its {@code Pool.withTransaction} hands the connection over only once BEGIN
     * has been answered, so a server that never answered BEGIN was never timed by the deadline.
     */
    private <T> Uni<T> transaction(String begin, BiFunction<SqlConnection, LastStatement, Uni<T>> work, long deadline) {
        return onConnection(connection -> {
            PipelinedCommit commit = new PipelinedCommit(connection);
            return Uni.combine().all().unis(connection.query(begin).execute(), limitTransaction(connection),
                            Uni.createFrom().deferred(() -> work.apply(connection, commit)))
                    .asTuple().map(Tuple3::getItem3)
                    .call(item -> commit.sent() ? Uni.createFrom().voidItem() : commit.commit())
                    .onFailure().call(() -> commit.end())
                    .onCancellation().call(() -> commit.end());
        }, deadline);
    }

    /**
     * {@code work} on a connection of the pool, answered within {@code deadline} ms (none if 0) of the connection
     * being handed over.
     *
     * <p>The deadline: PostgreSQL ends a slow statement itself ({@code statement_timeout}), but a server that hangs,
     * or a network that drops packets without a reset, leaves the connection open with neither an answer nor a
     * failure, and the request waited as long as the stall. Past the deadline the caller gets
     * {@link PostgresDidNotAnswer} (503). The transaction is not cut short, as the client cannot abandon a connection
     * it has handed out: it ends when the server answers or the connection closes, and holds its connection until
     * then, so it may still commit after the 503 (which says so: retry with the same key). The deadline is kept
     * around the pool's call, not the work: failing the work would send ROLLBACK on the stalled connection, and the
     * pool would wait for that answer too.
     *
     * <p>The work is made and subscribed to in the trace context that was current when the transaction was
     * subscribed to (a booking's attempt span), so that its statements are traced under it. The pool calls back at
     * once when a connection is idle, but when it has to wait for one it calls back later, on the request's Vert.x
     * context that by then holds the span current before the attempt began: every statement of the transaction was
     * traced beside the attempt instead of under it (BookingSpanTreeTest, more bookings at once than connections).
     */
    private <T> Uni<T> onConnection(Function<SqlConnection, Uni<T>> work, long deadlineMillis) {
        return Uni.createFrom().<T>emitter(answer -> {
            Context caller = Context.current();
            Deadline<T> deadline = new Deadline<>(answer, deadlineMillis);
            answer.onTermination(deadline::end);
            deadline.running(pool.withConnection(connection -> {
                deadline.start();
                // deferred: a work that throws while being made fails this Uni, and the pool still gets its connection back
                return Context.current() == caller ? Uni.createFrom().deferred(() -> work.apply(connection)) : inContext(caller, work, connection);
            }).subscribe().with(deadline::complete, deadline::fail));
        });
    }

    /** {@code work} made and subscribed to with {@code caller} current, when the pool called back outside it. */
    private static <T> Uni<T> inContext(Context caller, Function<SqlConnection, Uni<T>> work, SqlConnection connection) {
        return Uni.createFrom().<T>emitter(emitter -> {
            try (Scope ignored = caller.makeCurrent()) {
                Cancellable running = work.apply(connection).subscribe().with(emitter::complete, emitter::fail);
                emitter.onTermination(running::cancel);
            }
        });
    }

    /** PostgreSQL did not answer a transaction within {@code transaction-deadline}: a store fault (503). */
    static final class PostgresDidNotAnswer extends RuntimeException {
        PostgresDidNotAnswer(long millis) {
            super("PostgreSQL did not answer within " + millis + " ms", null, false, false);
        }
    }

    /**
     * One transaction's deadline: a Vert.x timer, armed when the connection is handed over and removed when the
     * answer comes (a cancelled Vert.x timer leaves its event loop's queue; see DynamoDbDeadlines for a timer queue
     * that did not). The answer and the timer race for the caller: whichever comes first is the outcome.
     */
    private final class Deadline<T> {
        private static final long UNARMED = -1;

        private final UniEmitter<? super T> answer;
        private final long millis;
        private final AtomicBoolean decided = new AtomicBoolean();
        private long timer = UNARMED;
        private boolean ended;
        private volatile Cancellable running;

        Deadline(UniEmitter<? super T> answer, long millis) {
            this.answer = answer;
            this.millis = millis;
        }

        void running(Cancellable subscription) {
            running = subscription;
            if (isEnded()) {
                subscription.cancel();
            }
        }

        synchronized void start() {
            if (millis > 0 && !ended && timer == UNARMED) {
                timer = vertx.setTimer(millis, fired -> expire());
            }
        }

        void complete(T item) {
            if (decided.compareAndSet(false, true)) {
                answer.complete(item);
            }
        }

        void fail(Throwable failure) {
            if (decided.compareAndSet(false, true)) {
                answer.fail(failure);
            }
        }

        private void expire() {
            if (decided.compareAndSet(false, true)) {
                LOG.warnf("PostgreSQL did not answer within %d ms: answered 503; the transaction keeps its connection until PostgreSQL answers or the connection closes",
                        millis);
                answer.fail(new PostgresDidNotAnswer(millis));
            }
        }

        void end() {
            long armed;
            synchronized (this) {
                ended = true;
                armed = timer;
            }
            if (armed != UNARMED) {
                vertx.cancelTimer(armed);
            }
            Cancellable subscription = running;
            if (subscription != null) {
                subscription.cancel();
            }
        }

        private synchronized boolean isEnded() {
            return ended;
        }
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

    /**
     * The transaction's one COMMIT, sent behind the work's last statement or after the work, and what ends it. Once
     * COMMIT is on the wire the connection is given back only after its answer: behind a transaction-mode pooler the
     * next borrower's BEGIN must not travel behind another transaction's unanswered COMMIT. A failed COMMIT needs no
     * ROLLBACK (PostgreSQL has ended the transaction; a ROLLBACK would only draw a "no transaction in progress"
     * warning), and a failure before COMMIT went out always gets one.
     */
    private static final class PipelinedCommit implements LastStatement {

        private final SqlConnection connection;
        // only touched on the connection's event loop; vert.x's own future, which completes whether or not anyone
        // still listens (a failed combination cancels its Mutiny subscriptions, never the statement)
        private Future<RowSet<Row>> committed;

        PipelinedCommit(SqlConnection connection) {
            this.connection = connection;
        }

        @Override
        public <T> Uni<T> thenCommit(Uni<T> statement) {
            // subscribed in order, so the client queues the statement and COMMIT back to back
            return Uni.combine().all().unis(statement, commit()).asTuple().map(Tuple2::getItem1);
        }

        boolean sent() {
            return committed != null;
        }

        /**
         * Queues COMMIT when subscribed to, not when planned: a combination that fails before it subscribes never
         * sends it, and the transaction is rolled back.
         */
        Uni<Void> commit() {
            return Uni.createFrom().deferred(() -> {
                committed = connection.getDelegate().query("COMMIT").execute();
                return UniHelper.toUni(committed).replaceWithVoid();
            });
        }

        /** Waits for COMMIT's answer if it went out, else rolls back; the work's own failure is the one that counts. */
        Uni<Void> end() {
            Uni<Void> ended = sent() ? UniHelper.toUni(committed).replaceWithVoid()
                    : connection.query("ROLLBACK").execute().replaceWithVoid();
            return ended.onFailure().recoverWithNull();
        }
    }
}
