package dev.turnstile.booking;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.turnstile.LambdaMode;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * A booking whose statement waits for a shard row that a fare reset holds must decide on the fare as the reset left
 * it. Under READ COMMITTED PostgreSQL gives the waiting statement the newest version of the rows it locks, but the
 * fare row it only joins, and shard rows the reset added, stay as they were when the statement began: a reset that
 * raised the elite reserve to every seat let a waiting non-elite booking take a reserved seat.
 *
 * <p>The order is made with a transaction of the test's own that holds the shard row: the reset queues behind it,
 * then the booking behind the reset; each is seen waiting in pg_stat_activity before the next is sent. Skipped under
 * -Plambda, whose mock event server hands the app the booking only once the reset has answered.
 */
@QuarkusTest
class ResetWhileBookingWaitsTest {

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    @ParameterizedTest
    @ValueSource(strings = { "pessimistic", "atomic", "batched" })
    void aBookingThatWaitedForAResetDecidesOnTheResetFare(String strategy) throws Exception {
        Assumptions.assumeFalse(LambdaMode.active(), LambdaMode.NO_OVERLAP);
        String flight = "WAIT-" + strategy + "-" + UUID.randomUUID();
        String fare = "/flights/" + flight + "/fares/Y";
        asStaff().contentType("application/json").body("{\"seats\":5}").put(fare).then().statusCode(201);

        CompletableFuture<Response> reset;
        CompletableFuture<Response> booking;
        try (Connection holder = TestDatabase.connect()) {
            holder.setAutoCommit(false);
            try (PreparedStatement lock = holder.prepareStatement(
                    "SELECT seats_available FROM flight_inventory WHERE flight_id = ? AND shard = 0 FOR UPDATE")) {
                lock.setString(1, flight);
                lock.executeQuery().close();
            }
            reset = CompletableFuture.supplyAsync(() -> asStaff().contentType("application/json")
                    .body("{\"seats\":5,\"eliteReserve\":5}").put(fare));
            awaitWaiting(holder, 1);
            booking = CompletableFuture.supplyAsync(() -> asStaff().contentType("application/json")
                    .body("{\"passengerId\":\"w-" + strategy + "\"}").queryParam("strategy", strategy).post(fare + "/bookings"));
            awaitWaiting(holder, 2);
            holder.commit();
        }

        assertEquals(200, reset.get().statusCode(), reset.get().asString());
        Response answer = booking.get();
        assertEquals(409, answer.statusCode(), answer.asString());
        assertEquals("ELITE_RESERVE", answer.path("reason"), answer.asString());
        asStaff().get(fare).then().statusCode(200).body("seatsAvailable", is(5)).body("booked", is(0))
                .body("eliteReserve", is(5));
    }

    /** Until {@code count} backends of this database wait for a lock on inventory rows (the holder waits for none). */
    private static void awaitWaiting(Connection holder, int count) throws SQLException, InterruptedException {
        if (!TestDatabase.awaitLockWaits(count, PATIENCE)) {
            holder.rollback();
            throw new AssertionError("fewer than " + count + " statements came to wait for the held shard row");
        }
    }
}
