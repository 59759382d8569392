package dev.turnstile.rental;

import static dev.turnstile.identity.Tokens.asCustomer;
import static dev.turnstile.identity.Tokens.asStaff;
import static dev.turnstile.rental.RentalHttp.unique;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import dev.turnstile.LambdaMode;
import dev.turnstile.rental.RentalHttp.Answer;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;

/** Idempotency-Key on rent, return and service: replay, reuse with another payload, duplicates in flight. */
@QuarkusTest
class RentalIdempotencyTest {

    private static Response keyed(String key, String path, String body) {
        return asStaff().contentType(ContentType.JSON).header("Idempotency-Key", key).body(body).post(path);
    }

    private static String returnBody(String customer, String station) {
        return "{\"customerId\":\"" + customer + "\",\"station\":\"" + station + "\"}";
    }

    @Test
    void aRentWhoseAnswerWasLostIsReplayedNotRefused() {
        String bikeId = unique("b");
        String customer = unique("c");
        String key = unique("k");
        BikeApiTest.create(bikeId, "harbour", 7);

        Response first = keyed(key, "/bikes/" + bikeId + "/rent", BikeApiTest.rentBody(customer));
        first.then().statusCode(200).body("rentedBy", is(customer)).header("Idempotent-Replayed", nullValue());
        Response retry = keyed(key, "/bikes/" + bikeId + "/rent", BikeApiTest.rentBody(customer));

        retry.then().statusCode(200).header("Idempotent-Replayed", is("true"));
        assertEquals(first.asString(), retry.asString(), "same body");
        assertEquals(first.header("ETag"), retry.header("ETag"));
        asStaff().get("/bikes/" + bikeId).then().body("ridesSinceService", is(8)).body("version", is(2));
    }

    @Test
    void aReturnWhoseAnswerWasLostIsReplayedNotRefused() {
        String bikeId = unique("b");
        String customer = unique("c");
        String key = unique("k");
        BikeApiTest.create(bikeId, "harbour", 0);
        keyed(unique("k"), "/bikes/" + bikeId + "/rent", BikeApiTest.rentBody(customer)).then().statusCode(200);

        Response first = keyed(key, "/bikes/" + bikeId + "/return", returnBody(customer, "airport"));
        first.then().statusCode(200).body("station", is("airport")).body("status", is("AVAILABLE"));
        Response retry = keyed(key, "/bikes/" + bikeId + "/return", returnBody(customer, "airport"));

        retry.then().statusCode(200).header("Idempotent-Replayed", is("true"));
        assertEquals(first.asString(), retry.asString());
        asStaff().get("/bikes/" + bikeId).then().body("version", is(3)).body("status", is("AVAILABLE"));
    }

    @Test
    void aServiceWhoseAnswerWasLostIsReplayed() {
        String bikeId = unique("b");
        String key = unique("k");
        BikeApiTest.create(bikeId, "harbour", 0);
        String customer = unique("c");
        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody(customer)).post("/bikes/" + bikeId + "/rent");
        asStaff().contentType(ContentType.JSON).body(returnBody(customer, "harbour")).post("/bikes/" + bikeId + "/return");
        // ride limit 30 in tests: make it due the quick way, through the rules' own path
        for (int ride = 2; ride <= 30; ride++) {
            asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody(customer)).post("/bikes/" + bikeId + "/rent")
                    .then().statusCode(200);
            asStaff().contentType(ContentType.JSON).body(returnBody(customer, "harbour")).post("/bikes/" + bikeId + "/return")
                    .then().statusCode(200);
        }
        asStaff().get("/bikes/" + bikeId).then().body("status", is("MAINTENANCE"));

        Response first = asStaff().header("Idempotency-Key", key).post("/bikes/" + bikeId + "/service");
        first.then().statusCode(200).body("status", is("AVAILABLE")).body("ridesSinceService", is(0));
        Response retry = asStaff().header("Idempotency-Key", key).post("/bikes/" + bikeId + "/service");

        retry.then().statusCode(200).header("Idempotent-Replayed", is("true"));
        assertEquals(first.asString(), retry.asString());
        asStaff().post("/bikes/" + bikeId + "/service").then().statusCode(409).body("reason", is("NOT_IN_MAINTENANCE"));
    }

    @Test
    void theSameKeyWithAnotherPayloadIs422AndChangesNothing() {
        String bikeId = unique("b");
        String other = unique("b");
        String customer = unique("c");
        String key = unique("k");
        BikeApiTest.create(bikeId, "harbour", 0);
        BikeApiTest.create(other, "harbour", 0);
        keyed(key, "/bikes/" + bikeId + "/rent", BikeApiTest.rentBody(customer)).then().statusCode(200);

        keyed(key, "/bikes/" + other + "/rent", BikeApiTest.rentBody(customer)).then().statusCode(422)
                .contentType("application/problem+json").body("reason", is("IDEMPOTENCY_KEY_REUSED"))
                .body("field", is("Idempotency-Key"));
        keyed(key, "/bikes/" + bikeId + "/return", returnBody(customer, "harbour")).then().statusCode(422);

        asStaff().get("/bikes/" + other).then().body("status", is("AVAILABLE")).body("version", is(1));
        asStaff().get("/bikes/" + bikeId).then().body("status", is("RENTED")).body("version", is(2));
    }

    @Test
    void keysBelongToTheirCaller() {
        String first = unique("b");
        String second = unique("b");
        String a = unique("c");
        String b = unique("c");
        String key = unique("k");
        BikeApiTest.create(first, "harbour", 0);
        BikeApiTest.create(second, "harbour", 0);

        Response byA = rentAs(a, key, first);
        byA.then().statusCode(200).body("rentedBy", is(a));
        rentAs(b, key, second).then().statusCode(200).header("Idempotent-Replayed", nullValue())
                .body("bikeId", is(second)).body("rentedBy", is(b));
        Response replay = rentAs(a, key, first);

        replay.then().statusCode(200).header("Idempotent-Replayed", is("true"));
        assertEquals(byA.asString(), replay.asString(), "A's key still answers A's request");
        asStaff().get("/bikes/" + first).then().body("rentedBy", is(a)).body("version", is(2));
        asStaff().get("/bikes/" + second).then().body("rentedBy", is(b)).body("version", is(2));
    }

    private static Response rentAs(String customer, String key, String bikeId) {
        return asCustomer(customer).contentType(ContentType.JSON).header("Idempotency-Key", key).body("{}")
                .post("/bikes/" + bikeId + "/rent");
    }

    @Test
    void aRefusalIsNotStoredTheKeyDecidesAgainLater() {
        String bikeId = unique("b");
        String customer = unique("c");
        String key = unique("k");
        BikeApiTest.create(bikeId, "harbour", 0);
        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody("someone")).post("/bikes/" + bikeId + "/rent");

        keyed(key, "/bikes/" + bikeId + "/rent", BikeApiTest.rentBody(customer)).then().statusCode(409)
                .body("reason", is("NOT_AVAILABLE"));
        asStaff().contentType(ContentType.JSON).body(returnBody("someone", "harbour")).post("/bikes/" + bikeId + "/return");

        keyed(key, "/bikes/" + bikeId + "/rent", BikeApiTest.rentBody(customer)).then().statusCode(200)
                .header("Idempotent-Replayed", nullValue()).body("rentedBy", is(customer));
    }

    @Test
    void aKeyCannotRideTheConditionOnlyPath() {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 0);

        keyed(unique("k"), "/bikes/" + bikeId + "/rent?mode=condition", BikeApiTest.rentBody("c-1")).then().statusCode(400)
                .body("reason", is("INVALID_REQUEST")).body("errors[0].field", is("Idempotency-Key"));
        keyed("has space", "/bikes/" + bikeId + "/rent", BikeApiTest.rentBody("c-1")).then().statusCode(400);

        asStaff().get("/bikes/" + bikeId).then().body("status", is("AVAILABLE")).body("version", is(1));
    }

    @Test
    void duplicatesInFlightRentOnceAndEveryAnswerIsTheRentOrInProgress() throws Exception {
        Assumptions.assumeFalse(LambdaMode.active(), LambdaMode.NO_OVERLAP);
        String bikeId = unique("b");
        String customer = unique("c");
        String key = unique("k");
        BikeApiTest.create(bikeId, "harbour", 0);
        List<Callable<Answer>> duplicates = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            duplicates.add(() -> RentalHttp.post("/bikes/" + bikeId + "/rent", BikeApiTest.rentBody(customer), key));
        }

        List<Answer> answers = RentalHttp.allAtOnce(duplicates);

        for (Answer answer : answers) {
            assertTrue(answer.status() == 200 && customer.equals(answer.body().path("rentedBy").asText())
                    || answer.status() == 409 && "IDEMPOTENCY_IN_PROGRESS".equals(answer.reason()), answer.toString());
        }
        assertTrue(answers.stream().anyMatch(answer -> answer.status() == 200));
        asStaff().get("/bikes/" + bikeId).then().body("rentedBy", is(customer)).body("ridesSinceService", is(1))
                .body("version", is(2));
    }
}
