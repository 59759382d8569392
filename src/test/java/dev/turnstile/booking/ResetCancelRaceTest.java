package dev.turnstile.booking;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;

/**
 * A fare reset that shrinks the shard count deletes shard rows; a cancel racing it must still give its seat back
 * (or wait for the reset), never answer 204 with no seat returned. Each round: 24 bookings spread over 8 shards,
 * then all 24 cancels at once while resets shrink to 1..3 shards and grow back; the audit must be exact afterwards.
 */
@QuarkusTest
class ResetCancelRaceTest {

    @Test
    void cancelsRacingShrinkingAndGrowingResetsNeverLoseASeat() {
        BookingClient client = new BookingClient();
        client.mintTokens(IntStream.range(0, 24).mapToObj(i -> "p" + i).toList(), false);
        for (int round = 0; round < 20; round++) {
            String flight = "RESET-" + round + "-" + UUID.randomUUID();
            client.putFare(flight, "Y", 40, 0, 8);
            List<String> ids = IntStream.range(0, 24)
                    .mapToObj(i -> client.bookUntilFinal(flight, "Y", "sharded", "p" + i, false)).toList().stream()
                    .map(CompletableFuture::join).map(a -> {
                        assertEquals(201, a.status(), a.body());
                        return a.json().getString("bookingId");
                    }).toList();

            List<CompletableFuture<Integer>> cancels = new ArrayList<>();
            List<CompletableFuture<Void>> resets = new ArrayList<>();
            int shrinkTo = 1 + round % 3;
            for (int i = 0; i < ids.size(); i++) {
                String id = ids.get(i);
                cancels.add(CompletableFuture.supplyAsync(() -> asStaff().delete("/bookings/" + id).statusCode()));
                if (i % 6 == 0) {
                    int shards = i % 12 == 0 ? shrinkTo : 8;
                    resets.add(CompletableFuture.runAsync(() -> client.putFare(flight, "Y", 40, 0, shards)));
                }
            }
            resets.forEach(CompletableFuture::join);
            cancels.forEach(c -> assertTrue(c.join() == 204 || c.join() == 503, "cancel answered " + c.join()));

            JsonPath audit = asStaff().get("/flights/" + flight + "/fares/Y/audit").then().statusCode(200).extract().jsonPath();
            long confirmed = ids.stream().filter(id -> "CONFIRMED".equals(asStaff().get("/bookings/" + id).path("status"))).count();
            assertTrue(audit.getBoolean("consistent"), "round " + round + ": " + audit.prettify());
            assertEquals(confirmed, audit.getLong("confirmedBookings"), "round " + round);
            assertEquals(40 - confirmed, audit.getLong("seatsAvailable"), "round " + round + ": " + audit.prettify());
        }
    }
}
