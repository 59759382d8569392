package dev.turnstile.booking;

import java.util.List;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Singleton;

import io.quarkus.reactive.pg.client.PgPoolCreator;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.SqlConnectOptions;

/**
 * The PostgreSQL pool Quarkus configures, with a bounded wait: Quarkus 3.33 has no property for the Vert.x pool's
 * wait queue or acquire timeout (unbounded and 30 s by default), and {@link PgPoolCreator} is its documented hook for
 * pool options it does not expose. Beyond {@code max-wait-queue} waiting requests, a request is refused at once
 * (503 BUSY); one that waits longer than {@code acquire-timeout} gives up (503 STORE_UNAVAILABLE), so a caller can
 * never hold a request open on a pool that a stalled PostgreSQL has drained.
 */
@Singleton
public class BoundedPool implements PgPoolCreator {

    private final BookingConfig.Pool limits;

    BoundedPool(BookingConfig config) {
        this.limits = config.pool();
    }

    @Override
    public Pool create(Input input) {
        PoolOptions options = new PoolOptions(input.poolOptions())
                .setMaxWaitQueueSize(limits.maxWaitQueue())
                .setConnectionTimeout((int) limits.acquireTimeout().toMillis())
                .setConnectionTimeoutUnit(TimeUnit.MILLISECONDS);
        return PgBuilder.pool().with(options).connectingTo(List.<SqlConnectOptions>copyOf(input.pgConnectOptionsList())).using(input.vertx()).build();
    }
}
