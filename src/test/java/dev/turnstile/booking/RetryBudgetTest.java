package dev.turnstile.booking;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import jakarta.inject.Inject;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * A booking that loses its race once its retry budget is spent gets 409 CONTENTION with Retry-After and leaves
 * nothing behind. The budget is 0 here, so the first lost race is the last; the race is made, not hoped for: another
 * transaction changes the fare row after the booking has read it and before the booking's write can go on.
 */
@QuarkusTest
@TestProfile(RetryBudgetTest.NoBudget.class)
class RetryBudgetTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    public static class NoBudget implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("turnstile.booking.retry-budget", "0s");
        }
    }

    @Inject
    Pool pool;

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = { "OPTIMISTIC", "SERIALIZABLE" })
    void aRaceLostAfterTheBudgetIsAnsweredContentionAndStoresNothing(Strategy strategy) {
        String flight = "BUDGET-" + strategy.label() + "-" + UUID.randomUUID();
        new BookingClient().putFare(flight, "Y", 5, 0, 1);
        double exhausted = Math.max(0, Metrics.counter("turnstile_booking_exhausted_total", strategy));

        SqlConnection rival = pool.getConnection().await().atMost(TIMEOUT);
        try {
            rival.begin().await().atMost(TIMEOUT);
            rival.preparedQuery("UPDATE flight_inventory SET version = version + 1 WHERE flight_id = $1")
                    .execute(Tuple.of(flight)).await().atMost(TIMEOUT);
            CompletableFuture<Response> booking = CompletableFuture.supplyAsync(() -> asStaff()
                    .contentType("application/json").body(Map.of("passengerId", "p-" + flight))
                    .post("/flights/" + flight + "/fares/Y/bookings?strategy=" + strategy.label()));
            awaitWriteWaitingOnTheRow(flight);
            rival.query("COMMIT").execute().await().atMost(TIMEOUT);

            Response answer = booking.orTimeout(30, java.util.concurrent.TimeUnit.SECONDS).join();
            answer.then().statusCode(409).contentType("application/problem+json").header("Retry-After", "1")
                    .body("reason", is("CONTENTION"));
        } finally {
            rival.closeAndAwait();
        }

        asStaff().get("/flights/" + flight + "/fares/Y/audit").then().statusCode(200)
                .body("consistent", is(true)).body("seatsAvailable", is(5)).body("confirmedBookings", is(0));
        long rows = pool.preparedQuery("SELECT count(*) FROM bookings WHERE flight_id = $1").execute(Tuple.of(flight))
                .await().atMost(TIMEOUT).iterator().next().getLong(0);
        assertEquals(0, rows, "no booking row");
        assertEquals(exhausted + 1, Metrics.counter("turnstile_booking_exhausted_total", strategy), "counted as exhausted");
    }

    /** Until the booking's UPDATE of the fare row waits for the rival's lock (it has read the row by then). */
    private void awaitWriteWaitingOnTheRow(String flight) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            long waiting = pool.preparedQuery("""
                    SELECT count(*) FROM pg_stat_activity
                    WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%UPDATE flight_inventory%'""")
                    .execute().await().atMost(TIMEOUT).iterator().next().getLong(0);
            if (waiting > 0) {
                return;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
        }
        throw new AssertionError("the booking of " + flight + " never waited on the fare row");
    }
}
