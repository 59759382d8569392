package dev.turnstile.idempotency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.UUID;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduler;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;

@QuarkusTest
class ExpiredKeyCleanerTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int EXPIRED = 2500;

    @Inject
    Pool pool;

    @Inject
    ExpiredKeyCleaner cleaner;

    @Inject
    MeterRegistry registry;

    @Inject
    Scheduler scheduler;

    @ConfigProperty(name = "turnstile.idempotency.cleanup.batch-size")
    int batchSize;

    @Test
    void theSweepIsScheduledAtTheConfiguredInterval() {
        assertNotNull(scheduler.getScheduledJob("expired-idempotency-keys"), "interval 1h in the test profile, not off");
    }

    @Test
    void aBacklogIsSweptInBoundedBatchesAndFreesTheKeysOfItsBookings() {
        assertEquals(100, batchSize, "the test profile sweeps 100 keys per statement");
        String prefix = "sweep-" + UUID.randomUUID() + "-";
        String flight = "SWEEP-" + UUID.randomUUID();
        update("INSERT INTO idempotency_keys (key, request_hash, status_code, response_body, created_at, expires_at)"
                + " SELECT $1 || 'expired-' || g, 'hash', 201, '{}', now() - interval '2 days', now() - interval '1 day'"
                + " FROM generate_series(1, " + EXPIRED + ") g", prefix);
        update("INSERT INTO idempotency_keys (key, request_hash, status_code, response_body, created_at, expires_at)"
                + " SELECT $1 || 'live-' || g, 'hash', 201, '{}', now(), now() + interval '1 day'"
                + " FROM generate_series(1, 5) g", prefix);
        String expiredKey = prefix + "expired-1";
        String liveKey = prefix + "live-1";
        String underExpired = booking(flight, "alice", expiredKey);
        String underLive = booking(flight, "bob", liveKey);
        double batchesBefore = registry.counter("turnstile.idempotency.cleanup.batches").count();

        cleaner.sweep().await().atMost(TIMEOUT);

        assertEquals(0L, count("SELECT count(*) FROM idempotency_keys WHERE key LIKE $1 || 'expired-%'", prefix));
        assertEquals(5L, count("SELECT count(*) FROM idempotency_keys WHERE key LIKE $1 || 'live-%'", prefix));
        assertNull(keyOf(underExpired), "the booking made under an expired key gives the key up");
        assertEquals(liveKey, keyOf(underLive));
        // At most batch-size keys per statement: 2,500 of ours alone take 25 statements. A sweep the scheduler may run
        // at the same time only adds to the count.
        double batches = registry.counter("turnstile.idempotency.cleanup.batches").count() - batchesBefore;
        assertTrue(batches >= EXPIRED / batchSize, "statements run: " + batches);
    }

    private String booking(String flight, String passenger, String key) {
        return pool.preparedQuery("INSERT INTO bookings (flight_id, fare_class, passenger_id, shard, idempotency_key, request_hash)"
                + " VALUES ($1, 'Y', $2, 0, $3, 'hash') RETURNING id").execute(Tuple.of(flight, passenger, key))
                .await().atMost(TIMEOUT).iterator().next().getUUID(0).toString();
    }

    private String keyOf(String booking) {
        return pool.preparedQuery("SELECT idempotency_key FROM bookings WHERE id = $1::uuid").execute(Tuple.of(booking))
                .await().atMost(TIMEOUT).iterator().next().getString(0);
    }

    private void update(String sql, String argument) {
        pool.preparedQuery(sql).execute(Tuple.of(argument)).await().atMost(TIMEOUT);
    }

    private long count(String sql, String argument) {
        return ((Number) pool.preparedQuery(sql).execute(Tuple.of(argument)).await().atMost(TIMEOUT).iterator().next().getValue(0)).longValue();
    }
}
