package dev.turnstile.rental;

import static dev.turnstile.identity.Tokens.asStaff;
import static dev.turnstile.rental.RentalHttp.unique;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.turnstile.LambdaMode;
import dev.turnstile.identity.Tokens;
import dev.turnstile.rental.RentalHttp.Answer;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * Many renters, one bike, each with their own token (minted before the burst): the invariant must hold in every round, and the counts must add up at the end. Both rent
 * paths: read-decide-write (the default) and the condition-only UpdateItem ({@code ?mode=condition}).
 */
@QuarkusTest
class BikeContentionTest {

    private static final int RENTERS = 50;
    private static final int ROUNDS = 20;

    @Inject
    ContendedBikeRepository repository;

    /**
     * Each renter used to read the bike at least once, and most losers wrote, failed and read again: on a hot bike
     * those calls queued in the store ahead of the winner's return (README, "Against the Node.js baseline"). Renters
     * who ask while a read of the bike is in flight share the next one, and a write that cannot win is not sent.
     */
    @Test
    void rentersWhoAskAtOnceShareTheirStoreCalls() throws Exception {
        Assumptions.assumeFalse(LambdaMode.active(), LambdaMode.NO_OVERLAP);
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 0);
        List<Callable<Answer>> renters = new ArrayList<>();
        for (int renter = 0; renter < RENTERS; renter++) {
            String token = Tokens.customer("c-shared-" + renter);
            renters.add(() -> RentalHttp.post("/bikes/" + bikeId + "/rent", "{}", null, token));
        }
        List<Answer> answers = RentalHttp.allAtOnce(renters);

        assertEquals(1, answers.stream().filter(answer -> answer.status() == 200).count(), "exactly one winner");
        assertEquals(RENTERS - 1, answers.stream()
                .filter(answer -> answer.status() == 409 && answer.reason().equals("NOT_AVAILABLE")).count(),
                "every loser is told NOT_AVAILABLE, from a read made after it asked");
        int sent = repository.storeCalls(bikeId);
        assertTrue(sent < RENTERS, RENTERS + " renters, " + sent + " reads and writes of the bike sent to the store");
        asStaff().get("/bikes/" + bikeId).then().statusCode(200).body("version", is(2)).body("status", is("RENTED"));
    }

    @ParameterizedTest
    @ValueSource(strings = { "read-decide-write", "condition" })
    void fiftyParallelRentersTwentyRoundsExactlyOneWinnerEachAndNoLostRide(String mode) throws Exception {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 0);
        long version = 1;

        for (int round = 1; round <= ROUNDS; round++) {
            List<Callable<Answer>> renters = new ArrayList<>();
            Map<String, String> tokens = new HashMap<>();
            for (int renter = 0; renter < RENTERS; renter++) {
                String customerId = "c-" + round + "-" + renter;
                String token = Tokens.customer(customerId);
                tokens.put(customerId, token);
                renters.add(() -> RentalHttp.post("/bikes/" + bikeId + "/rent?mode=" + mode, "{}", null, token));
            }
            List<Answer> answers = RentalHttp.allAtOnce(renters);

            List<Answer> won = answers.stream().filter(answer -> answer.status() == 200).toList();
            assertEquals(1, won.size(), "round " + round + ": exactly one winner");
            assertEquals(RENTERS - 1, answers.stream()
                    .filter(answer -> answer.status() == 409 && answer.reason().equals("NOT_AVAILABLE")).count(),
                    "round " + round + ": every loser is told NOT_AVAILABLE");
            Answer winner = won.get(0);
            assertEquals(version + 1, winner.body().path("version").asLong(), "round " + round + ": rent is one write");
            assertEquals(round, winner.body().path("ridesSinceService").asInt(), "round " + round + ": rides = confirmed rentals");

            Answer returned = RentalHttp.post("/bikes/" + bikeId + "/return", "{\"station\":\"harbour\"}", null,
                    tokens.get(winner.body().path("rentedBy").asText()));
            assertEquals(200, returned.status());
            assertEquals(version + 2, returned.body().path("version").asLong(), "round " + round + ": return is one write");
            version += 2;
        }

        asStaff().get("/bikes/" + bikeId).then().statusCode(200)
                .body("ridesSinceService", is(ROUNDS)).body("version", is((int) version)).body("status", is("AVAILABLE"));
    }
}
