package dev.turnstile.booking;

import java.util.List;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import io.quarkus.reactive.pg.client.PgPoolCreator;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.SqlConnectOptions;

/**
 * The PostgreSQL pool Quarkus configures, with a bounded wait: Quarkus 3.33 has no property for the Vert.x pool's
 * wait queue or acquire timeout (unbounded and 30 s by default), and {@link PgPoolCreator} is its documented hook for
 * pool options it does not expose. Beyond {@code max-wait-queue} waiting requests, a request is refused at once
 * (503 BUSY); one that waits longer than {@code acquire-timeout} gives up (503 STORE_UNAVAILABLE), so a caller can
 * never hold a request open on a pool that a stalled PostgreSQL has drained.
 *
 * <p>On a direct connection (no layer-7 proxy in between) the limits of {@link BoundedTransactions} are also the
 * session's own, sent as startup parameters: every statement is bounded without a {@code set_config} of its own, and
 * a statement that needs no transaction can run alone ({@link BoundedTransactions#runAlone}). A pooler refuses or
 * pins such parameters, so behind one ({@code use-layer7-proxy=true}) each transaction sets them.
 */
@Singleton
public class BoundedPool implements PgPoolCreator {

    private final BookingConfig config;
    private final boolean behindPooler;

    BoundedPool(BookingConfig config,
            @ConfigProperty(name = "quarkus.datasource.reactive.postgresql.use-layer7-proxy", defaultValue = "false") boolean behindPooler) {
        this.config = config;
        this.behindPooler = behindPooler;
    }

    /** Whether every connection of the pool carries the limits from its start. */
    public boolean limitsAtConnect() {
        return !behindPooler;
    }

    @Override
    public Pool create(Input input) {
        PoolOptions options = new PoolOptions(input.poolOptions())
                .setMaxWaitQueueSize(config.pool().maxWaitQueue())
                .setConnectionTimeout((int) config.pool().acquireTimeout().toMillis())
                .setConnectionTimeoutUnit(TimeUnit.MILLISECONDS);
        List<SqlConnectOptions> connects = input.pgConnectOptionsList().stream().<SqlConnectOptions>map(this::withLimits).toList();
        return PgBuilder.pool().with(options).connectingTo(connects).using(input.vertx()).build();
    }

    /**
     * Adds to the options Quarkus built rather than copying them: {@code new PgConnectOptions(other)} drops
     * {@code useLayer7Proxy}, which behind PgBouncer failed every statement (26000, unnamed prepared statement does
     * not exist).
     */
    private PgConnectOptions withLimits(PgConnectOptions connect) {
        if (limitsAtConnect()) {
            connect.addProperty("lock_timeout", config.lockTimeout())
                    .addProperty("statement_timeout", config.statementTimeout())
                    .addProperty("idle_in_transaction_session_timeout", config.idleInTransactionTimeout());
        }
        return connect;
    }
}
