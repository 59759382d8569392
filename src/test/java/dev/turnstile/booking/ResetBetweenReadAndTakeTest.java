package dev.turnstile.booking;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import dev.turnstile.LambdaMode;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * An optimistic booking takes its seat only if the shard row is at the version it read. A reset that lowers the
 * shard count deletes rows, and one that raises it again creates them anew, at the first version: two resets between
 * the read and the take left the row at the version read, and the booking took a seat under the rule of a fare that
 * was gone (here: a non-elite passenger took a seat the new fare reserves for elite ones). The take now also asks
 * that the row is not of a later fare revision than the one read. The resets run between the booking's read and its
 * take through {@link RacingInventoryRepository}; skipped under -Plambda, whose mock event server takes one request
 * at a time.
 */
@QuarkusTest
class ResetBetweenReadAndTakeTest {

    @Inject
    RacingInventoryRepository inventory;

    @Test
    void anOptimisticBookingDoesNotTakeASeatOnARowTwoResetsCreatedAnew() throws Exception {
        Assumptions.assumeFalse(LambdaMode.active(), LambdaMode.NO_OVERLAP);
        String flight = "TWICE-" + UUID.randomUUID();
        String fare = "/flights/" + flight + "/fares/Y";
        asStaff().contentType("application/json").body("{\"seats\":4,\"shards\":4}").put(fare).then().statusCode(201);
        // only the last shard has a seat, so the booking must choose the row the resets will delete and create again
        try (Connection db = TestDatabase.connect(); PreparedStatement empty = db.prepareStatement(
                "UPDATE flight_inventory SET seats_available = 0 WHERE flight_id = ? AND shard < 3")) {
            empty.setString(1, flight);
            assertEquals(3, empty.executeUpdate());
        }
        inventory.afterNextRead(new FareKey(flight, "Y"), () -> {
            asStaff().contentType("application/json").body("{\"seats\":4,\"shards\":1}").put(fare).then().statusCode(200);
            asStaff().contentType("application/json").body("{\"seats\":4,\"shards\":4,\"eliteReserve\":4}").put(fare)
                    .then().statusCode(200);
        });

        Response answer = asStaff().contentType("application/json").body("{\"passengerId\":\"p-not-elite\"}")
                .queryParam("strategy", "optimistic").post(fare + "/bookings");

        assertEquals(409, answer.statusCode(), answer.asString());
        assertEquals("ELITE_RESERVE", answer.path("reason"), answer.asString());
        asStaff().get(fare).then().statusCode(200).body("seatsAvailable", is(4)).body("booked", is(0))
                .body("eliteReserve", is(4)).body("shards", is(4));
    }
}
