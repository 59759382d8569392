package dev.turnstile.booking;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.hamcrest.Matchers.is;

import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

/**
 * A fare put answers from its own transaction. It used to commit the write and then read the fare back in a second
 * transaction: a store fault there answered 503 for a fare that was written, and the documented retry (the same put
 * under If-None-Match: *) got 412, so the caller could not tell that its write had landed.
 */
@QuarkusTest
class FarePutAnswerTest {

    @Inject
    RacingInventoryRepository inventory;

    @Test
    void aPutAnswered503WroteNothingAndItsRetryCreatesTheFare() {
        String flight = "PUT-" + UUID.randomUUID();
        String fare = "/flights/" + flight + "/fares/Y";
        inventory.failNextCountedRead(new FareKey(flight, "Y"));

        asStaff().contentType("application/json").header("If-None-Match", "*").body("{\"seats\":10}").put(fare)
                .then().statusCode(503).body("reason", is("STORE_UNAVAILABLE"));
        asStaff().get(fare).then().statusCode(404);

        asStaff().contentType("application/json").header("If-None-Match", "*").body("{\"seats\":10}").put(fare)
                .then().statusCode(201).body("seatsTotal", is(10)).body("seatsAvailable", is(10));
    }
}
