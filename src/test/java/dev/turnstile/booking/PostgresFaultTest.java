package dev.turnstile.booking;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import dev.turnstile.LambdaMode;
import dev.turnstile.Management;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * PostgreSQL faults for real, through {@link PostgresProxy} between the app and the server: a connection dropped
 * mid-request, PostgreSQL away (connection refused) and back, a COMMIT whose answer is lost, PostgreSQL that stops
 * answering on open connections, and a pool with no connection to give. Each is a 503 with Retry-After, never a 500,
 * and nothing is booked twice.
 */
@QuarkusTest
@TestProfile(PostgresFaultTest.BehindProxy.class)
@WithTestResource(value = PostgresProxy.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class PostgresFaultTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final int POOL = 4;

    /** A small pool with a short acquire timeout, and no background workers taking connections from it. */
    public static class BehindProxy implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.datasource.reactive.max-size", Integer.toString(POOL),
                    "turnstile.booking.pool.max-wait-queue", "2",
                    "turnstile.booking.pool.acquire-timeout", "4s",
                    "turnstile.booking.ticketing.enabled", "false");
        }
    }

    @Inject
    Pool pool;


    @Test
    void aConnectionDroppedMidRequestIs503AndTheRetryBooksOnce() throws Exception {
        BookingClient client = new BookingClient();
        String flight = "DROP-" + UUID.randomUUID();
        client.putFare(flight, "Y", 5, 0, 1);
        SqlConnection holder = pool.getConnection().await().atMost(TIMEOUT);
        holder.begin().await().atMost(TIMEOUT);
        holder.preparedQuery("SELECT * FROM flight_inventory WHERE flight_id = $1 FOR UPDATE").execute(Tuple.of(flight))
                .await().atMost(TIMEOUT);
        CompletableFuture<BookingClient.Answer> waiting = client.book(flight, "Y", "pessimistic", "p1", false, "drop-" + flight);
        awaitLockWait();
        PostgresProxy.current.resetAll();
        BookingClient.Answer dropped = waiting.join();
        holder.close().await().atMost(TIMEOUT);

        assertUnavailable(dropped);
        assertEquals(0, bookings(flight, "p1"), "the dropped transaction rolled back");
        BookingClient.Answer retried = client.book(flight, "Y", "pessimistic", "p1", false, "drop-" + flight).join();
        assertEquals(201, retried.status(), retried.body());
        assertEquals(1, bookings(flight, "p1"));
        assertAuditExact(flight);
    }

    @Test
    void postgresAwayIs503WithRetryAfterAndReadinessGoesDownThenUpByItself() throws Exception {
        BookingClient client = new BookingClient();
        String flight = "AWAY-" + UUID.randomUUID();
        client.putFare(flight, "Y", 5, 0, 1);
        String booked = client.book(flight, "Y", "atomic", "p0", false, null).join().json().getString("bookingId");
        Management.given().get("/q/health/ready").then().statusCode(200);

        PostgresProxy.current.down();
        try {
            for (String strategy : new String[] { "atomic", "pessimistic", "optimistic", "nowait", "serializable", "sharded" }) {
                assertUnavailable(client.book(flight, "Y", strategy, "p-" + strategy, false, null).join());
            }
            assertUnavailable(client.book(flight, "Y", "atomic", "p1", false, "away-" + flight).join());
            asStaff().get("/flights/" + flight + "/fares/Y").then().statusCode(503).contentType("application/problem+json")
                    .header("Retry-After", "1").body("reason", org.hamcrest.Matchers.is("STORE_UNAVAILABLE"));
            assertEquals(503, asStaff().get("/flights/" + flight + "/fares/Y/audit").statusCode());
            assertEquals(503, asStaff().get("/bookings/" + booked).statusCode());
            assertEquals(503, asStaff().delete("/bookings/" + booked).statusCode());
            Management.given().get("/q/health/ready").then().statusCode(503);
        } finally {
            PostgresProxy.current.up();
        }

        Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
        while (Management.given().get("/q/health/ready").statusCode() != 200) {
            assertTrue(Instant.now().isBefore(deadline), "readiness comes back by itself");
            Thread.sleep(200);
        }
        assertEquals(201, client.book(flight, "Y", "atomic", "p1", false, "away-" + flight).join().status());
        assertEquals(1, bookings(flight, "p1"));
        assertEquals(2, countAll(flight), "nothing was booked while PostgreSQL was away");
        assertAuditExact(flight);
    }

    @Test
    void aCommitWhoseAnswerWasLostIsReplayedToTheRetryNotBookedAgain() {
        BookingClient client = new BookingClient();
        String flight = "LOST-" + UUID.randomUUID();
        String key = "lost-" + flight;
        client.putFare(flight, "Y", 5, 0, 1);
        int dropped = PostgresProxy.current.droppedCommits();

        PostgresProxy.current.dropAfterNextCommit();
        BookingClient.Answer lost = client.book(flight, "Y", "atomic", "p1", false, key).join();
        assertEquals(dropped + 1, PostgresProxy.current.droppedCommits(), "the proxy dropped the COMMIT's answer");
        assertUnavailable(lost);
        assertEquals(1, bookings(flight, "p1"), "the COMMIT took effect");

        BookingClient.Answer retried = client.book(flight, "Y", "atomic", "p1", false, key).join();
        assertEquals(201, retried.status(), retried.body());
        assertEquals(bookingId(flight, "p1"), retried.json().getString("bookingId"), "the retry gets the original booking");
        assertEquals(1, bookings(flight, "p1"));
        assertAuditExact(flight);
    }

    /**
     * A fare PUT has no Idempotency-Key: a conditional one whose COMMIT took effect but whose answer was lost was
     * retried into its own write (412: the fare exists under If-None-Match: *, or no longer has the If-Match tag), so
     * the caller could not tell that it had landed. A fare already as the PUT asks is answered 200 now, as RFC 9110
     * (13.1.1) allows for a change that appears applied; nothing is written again.
     */
    @Test
    void aFarePutWhoseCommitAnswerWasLostIsAnsweredAsAppliedOnItsRetry() {
        String flight = "LOSTFARE-" + UUID.randomUUID();
        String path = "/flights/" + flight + "/fares/Y";
        int dropped = PostgresProxy.current.droppedCommits();

        PostgresProxy.current.dropAfterNextCommit();
        asStaff().contentType("application/json").header("If-None-Match", "*").body("{\"seats\":10,\"shards\":2}")
                .put(path).then().statusCode(503).body("reason", org.hamcrest.Matchers.is("STORE_UNAVAILABLE"));
        assertEquals(dropped + 1, PostgresProxy.current.droppedCommits(), "the proxy dropped the COMMIT's answer");
        String stored = asStaff().get(path).then().statusCode(200).body("seatsTotal", org.hamcrest.Matchers.is(10))
                .extract().header("ETag");

        asStaff().contentType("application/json").header("If-None-Match", "*").body("{\"seats\":10,\"shards\":2}")
                .put(path).then().statusCode(200).header("ETag", stored)
                .body("seatsTotal", org.hamcrest.Matchers.is(10)).body("shards", org.hamcrest.Matchers.is(2));
        // another capacity is still a precondition that fails: the fare exists
        asStaff().contentType("application/json").header("If-None-Match", "*").body("{\"seats\":12,\"shards\":2}")
                .put(path).then().statusCode(412).body("reason", org.hamcrest.Matchers.is("STALE_VERSION"));
        asStaff().get(path).then().statusCode(200).header("ETag", stored).body("seatsTotal", org.hamcrest.Matchers.is(10));
        assertAuditExact(flight);
    }

    /**
     * A server that hangs, or a network that swallows packets without a reset, leaves the connections open: nothing
     * fails, no answer comes. Before the deadline a booking and a read on such a connection waited as long as the stall
     * (the client's own timeout here); now each is a 503 once {@code transaction-deadline} (default 6 s) has passed.
     * Both run on connections the pool already has, so the pool's own acquire timeout (4 s here, for a connection it
     * would have to open through the stall) cannot be what answers them. The booking's statements reach PostgreSQL
     * when it answers again, so it commits after its 503, and the retry with the same key gets that booking.
     */
    @Test
    void aStalledPostgresIs503AfterTheDeadlineAndTheRetryGetsTheBookingItMade() throws Exception {
        BookingClient client = new BookingClient();
        String flight = "STALL-" + UUID.randomUUID();
        String key = "stall-" + flight;
        client.putFare(flight, "Y", 5, 0, 1);
        // every connection of the pool open before the stall, not only the two this test uses: a CI run (Lambda build)
        // once had the read wait the acquire timeout, for a connection it would have had to open through the stall
        List<SqlConnection> opened = new ArrayList<>();
        for (int i = 0; i < POOL; i++) {
            opened.add(pool.getConnection().await().atMost(TIMEOUT));
        }
        opened.forEach(connection -> connection.close().await().atMost(TIMEOUT));
        BookingClient.Answer stalledBooking;
        BookingClient.Answer stalledRead;
        long bookingMillis;
        long readMillis;
        PostgresProxy.current.stall();
        try {
            Instant start = Instant.now();
            stalledBooking = client.book(flight, "Y", "pessimistic", "p1", false, key).get(20, TimeUnit.SECONDS);
            bookingMillis = Duration.between(start, Instant.now()).toMillis();
            start = Instant.now();
            stalledRead = client.get("/flights/" + flight + "/fares/Y").get(20, TimeUnit.SECONDS);
            readMillis = Duration.between(start, Instant.now()).toMillis();
        } finally {
            PostgresProxy.current.flow();
        }
        assertUnavailable(stalledBooking);
        assertUnavailable(stalledRead);
        // the 6 s deadline, not the 4 s acquire timeout, with room above for a noisy shared machine
        assertTrue(bookingMillis >= 5_500 && bookingMillis < 10_000, "the booking waited " + bookingMillis + " ms");
        assertTrue(readMillis >= 5_500 && readMillis < 10_000, "the read waited " + readMillis + " ms");

        Instant deadline = Instant.now().plus(TIMEOUT);
        while (bookings(flight, "p1") == 0) {
            assertTrue(Instant.now().isBefore(deadline), "the stalled booking commits once PostgreSQL answers");
            Thread.sleep(50);
        }
        String madeDuringTheStall = bookingId(flight, "p1");
        BookingClient.Answer retried = client.book(flight, "Y", "pessimistic", "p1", false, key).get(20, TimeUnit.SECONDS);
        assertEquals(201, retried.status(), retried.body());
        assertEquals(madeDuringTheStall, retried.json().getString("bookingId"), "the retry is answered with that booking");
        assertEquals(1, bookings(flight, "p1"));
        assertAuditExact(flight);
    }

    @Test
    void aFullWaitQueueIs503BusyAndAnAcquireTimeoutIs503StoreUnavailable() throws Exception {
        // a Lambda instance takes one request at a time: its own requests can never fill the wait queue
        Assumptions.assumeFalse(LambdaMode.active(), LambdaMode.NO_OVERLAP);
        BookingClient client = new BookingClient();
        String flight = "QUEUE-" + UUID.randomUUID();
        client.putFare(flight, "Y", 10, 0, 1);
        List<SqlConnection> held = new ArrayList<>();
        for (int i = 0; i < POOL; i++) {
            held.add(pool.getConnection().await().atMost(TIMEOUT));
        }
        List<CompletableFuture<BookingClient.Answer>> waiting = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                waiting.add(client.book(flight, "Y", "atomic", "w" + i, false, null));
            }
            awaitPoolQueue(2);
            Instant start = Instant.now();
            BookingClient.Answer refused = client.book(flight, "Y", "atomic", "w2", false, null).join();
            // well under the 4 s acquire timeout, with room for a noisy shared machine: it did not wait its turn
            assertTrue(Duration.between(start, Instant.now()).toMillis() < 2500, "a full queue refuses at once");
            assertEquals(503, refused.status(), refused.body());
            assertEquals("BUSY", refused.reason());
            for (CompletableFuture<BookingClient.Answer> answer : waiting) {
                assertUnavailable(answer.join());
            }
        } finally {
            held.forEach(connection -> connection.close().await().atMost(TIMEOUT));
        }
        assertEquals(0, countAll(flight), "nothing was booked without a connection");
        assertEquals(201, client.book(flight, "Y", "atomic", "w0", false, null).join().status());
    }

    /** Until the booking waits for the held row (a fixed sleep was too short on a loaded machine). */
    private static void awaitLockWait() throws Exception {
        if (!TestDatabase.awaitLockWaits(1, TIMEOUT)) {
            throw new AssertionError("the booking never came to wait for the held row");
        }
    }

    /** Until {@code count} requests wait for a connection, as the pool's own gauge says. */
    private static void awaitPoolQueue(int count) throws InterruptedException {
        Pattern gauge = Pattern.compile("(?m)^sql_pool_queue_size\\{[^}]*\\} (\\S+)$");
        Instant deadline = Instant.now().plus(TIMEOUT);
        while (Instant.now().isBefore(deadline)) {
            Matcher queued = gauge.matcher(Management.given().get("/q/metrics").then().extract().asString());
            if (queued.find() && Double.parseDouble(queued.group(1)) >= count) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError(count + " requests never came to wait for a connection");
    }

    private static void assertUnavailable(BookingClient.Answer answer) {
        assertEquals(503, answer.status(), answer.body());
        assertEquals("STORE_UNAVAILABLE", answer.reason(), answer.body());
        assertEquals(1, answer.json().getInteger("retryAfterSeconds"), answer.body());
    }

    private void assertAuditExact(String flight) {
        asStaff().get("/flights/" + flight + "/fares/Y/audit").then().statusCode(200)
                .body("consistent", org.hamcrest.Matchers.is(true));
    }

    private long bookings(String flight, String passenger) {
        return pool.preparedQuery("SELECT count(*) FROM bookings WHERE flight_id = $1 AND passenger_id = $2")
                .execute(Tuple.of(flight, passenger)).await().atMost(TIMEOUT).iterator().next().getLong(0);
    }

    private long countAll(String flight) {
        return pool.preparedQuery("SELECT count(*) FROM bookings WHERE flight_id = $1")
                .execute(Tuple.of(flight)).await().atMost(TIMEOUT).iterator().next().getLong(0);
    }

    private String bookingId(String flight, String passenger) {
        return pool.preparedQuery("SELECT id::text FROM bookings WHERE flight_id = $1 AND passenger_id = $2")
                .execute(Tuple.of(flight, passenger)).await().atMost(TIMEOUT).iterator().next().getString(0);
    }
}
