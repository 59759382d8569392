package dev.turnstile.booking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.UUID;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * A caller that dies mid-transaction, modelled as a transaction of the service's own pool, bounded like every other
 * ({@link BoundedTransactions#limit}), that locks the fare with FOR UPDATE and then never speaks again. Others wait at most lock_timeout (then 503 BUSY), and the server ends
 * the idle transaction after idle_in_transaction_session_timeout, releasing the row.
 */
@QuarkusTest
class LockTimeoutTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);


    @Inject
    Pool pool;

    @Inject
    BoundedTransactions transactions;

    @ConfigProperty(name = "turnstile.booking.lock-timeout")
    String lockTimeout;

    @ConfigProperty(name = "turnstile.booking.idle-in-transaction-timeout")
    String idleTimeout;

    @Test
    void aDeadCallersLockStallsNobodyLongerThanTheConfiguredTimeouts() {
        long lockMillis = Duration.parse("PT" + lockTimeout.toUpperCase()).toMillis();
        long idleMillis = Duration.parse("PT" + idleTimeout.toUpperCase()).toMillis();
        String flight = "CRASH-" + UUID.randomUUID();
        BookingClient client = new BookingClient();
        client.putFare(flight, "Y", 5, 0, 1);
        double pessimisticTimeouts = Metrics.counter("turnstile_booking_lock_timeouts_total", Strategy.PESSIMISTIC);
        double nowaitTimeouts = Metrics.counter("turnstile_booking_lock_timeouts_total", Strategy.NOWAIT);
        double atomicTimeouts = Metrics.counter("turnstile_booking_lock_timeouts_total", Strategy.ATOMIC);

        SqlConnection deadCaller = pool.getConnection().await().atMost(TIMEOUT);
        deadCaller.begin().await().atMost(TIMEOUT);
        transactions.limit(deadCaller).await().atMost(TIMEOUT);
        deadCaller.preparedQuery("SELECT * FROM flight_inventory WHERE flight_id = $1 FOR UPDATE")
                .execute(Tuple.of(flight)).await().atMost(TIMEOUT);
        long lockedAt = System.nanoTime();
        try {
            long start = System.nanoTime();
            BookingClient.Answer waited = client.book(flight, "Y", "pessimistic", "p1", false, null).join();
            long waitedMillis = millisSince(start);
            assertEquals(503, waited.status(), waited.body());
            assertEquals("BUSY", waited.reason());
            assertTrue(waitedMillis >= lockMillis - 100 && waitedMillis < lockMillis + 1500,
                    "pessimistic waited " + waitedMillis + " ms for a " + lockMillis + " ms lock_timeout");

            start = System.nanoTime();
            BookingClient.Answer refused = client.book(flight, "Y", "nowait", "p2", false, null).join();
            assertEquals("BUSY", refused.reason());
            assertTrue(millisSince(start) < lockMillis, "nowait does not wait");

            // The dead caller's session ends idle-in-transaction-timeout after its last statement: three probes of
            // lock-timeout each left it too little room on a slow machine, and atomic then booked. One statement
            // more restarts that clock; "dead" counts from here.
            deadCaller.query("SELECT 1").execute().await().atMost(TIMEOUT);
            lockedAt = System.nanoTime();

            // atomic's take runs without a transaction of its own: the lock_timeout is the connection's
            start = System.nanoTime();
            BookingClient.Answer atomic = client.book(flight, "Y", "atomic", "p4", false, null).join();
            waitedMillis = millisSince(start);
            assertEquals("BUSY", atomic.reason(), atomic.body());
            assertTrue(waitedMillis >= lockMillis - 100 && waitedMillis < lockMillis + 1500,
                    "atomic waited " + waitedMillis + " ms for a " + lockMillis + " ms lock_timeout");

            BookingClient.Answer booked = client.bookUntilFinal(flight, "Y", "pessimistic", "p3", false).join();
            long blockedMillis = millisSince(lockedAt);
            assertEquals(201, booked.status(), booked.body());
            assertTrue(blockedMillis < idleMillis + 2000,
                    "blocked for " + blockedMillis + " ms with idle_in_transaction_session_timeout " + idleMillis + " ms");
            assertNotNull(assertThrows(RuntimeException.class,
                    () -> deadCaller.query("SELECT 1").execute().await().atMost(TIMEOUT)),
                    "the server has ended the dead caller's session");
        } finally {
            deadCaller.close().await().atMost(TIMEOUT);
        }

        assertEquals(4, pool.preparedQuery("SELECT seats_available FROM flight_inventory WHERE flight_id = $1")
                .execute(Tuple.of(flight)).await().atMost(TIMEOUT).iterator().next().getInteger(0));
        dev.turnstile.identity.Tokens.asStaff().get("/flights/" + flight + "/fares/Y/audit").then().statusCode(200)
                .body("consistent", org.hamcrest.Matchers.is(true))
                .body("confirmedBookings", org.hamcrest.Matchers.is(1));
        assertTrue(Metrics.counter("turnstile_booking_lock_timeouts_total", Strategy.PESSIMISTIC) >= pessimisticTimeouts + 1);
        assertTrue(Metrics.counter("turnstile_booking_lock_timeouts_total", Strategy.NOWAIT) >= nowaitTimeouts + 1);
        assertTrue(Metrics.counter("turnstile_booking_lock_timeouts_total", Strategy.ATOMIC) >= atomicTimeouts + 1);
    }

    private static long millisSince(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }
}
