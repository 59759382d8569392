package dev.turnstile.booking;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Singleton;

import io.quarkus.reactive.pg.client.PgPoolCreator;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
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

    /** {@code turnstile.booking.pool.*} */
    @ConfigMapping(prefix = "turnstile.booking.pool")
    public interface Limits {
        /**
         * Requests that may wait for a connection; more are refused with 503 BUSY. 1000 because 20 connections drain
         * that many waiters within the acquire timeout at the measured ~850 bookings/s, so a burst of a few hundred
         * requests per pod queues instead of being shed, while a stalled database still sheds load.
         */
        @WithDefault("1000")
        int maxWaitQueue();

        /** How long a request waits for a connection before 503 STORE_UNAVAILABLE. */
        @WithDefault("5s")
        Duration acquireTimeout();
    }

    private final Limits limits;

    BoundedPool(Limits limits) {
        this.limits = limits;
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
