package dev.turnstile.problem;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.hamcrest.Matchers.is;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * A GET whose If-Match does not hold is refused by JAX-RS itself (RFC 9110 13.1.1), which answered with an empty
 * body: it is a problem document with a stable reason, like every other refusal.
 */
@QuarkusTest
class FailedReadPreconditionTest {

    @Test
    void aReadUnderAnIfMatchThatDoesNotHoldIsAProblemDocument() {
        String bikeId = "pre-b-" + UUID.randomUUID().toString().substring(0, 8);
        asStaff().contentType(ContentType.JSON).body("{\"bikeId\":\"" + bikeId + "\",\"station\":\"pre\"}")
                .post("/bikes").then().statusCode(201);
        String fare = "/flights/PRE-" + UUID.randomUUID() + "/fares/Y";
        asStaff().contentType(ContentType.JSON).body("{\"seats\":5}").put(fare).then().statusCode(201);
        String booking = asStaff().contentType(ContentType.JSON).body("{\"passengerId\":\"pre-p\"}")
                .post(fare + "/bookings").then().statusCode(201).extract().header("Location");

        for (String path : new String[] { "/bikes/" + bikeId, fare, booking.substring(booking.indexOf("/bookings/")) }) {
            asStaff().header("If-Match", "\"not-the-tag\"").get(path).then().statusCode(412)
                    .contentType("application/problem+json").body("status", is(412)).body("reason", is("STALE_VERSION"));
            asStaff().header("If-Match", "*").get(path).then().statusCode(200);
        }
    }
}
