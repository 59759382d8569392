package dev.turnstile.rental;

import static dev.turnstile.identity.Tokens.asCustomer;
import static dev.turnstile.identity.Tokens.asStaff;
import static dev.turnstile.rental.RentalHttp.unique;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.turnstile.identity.Caller;
import dev.turnstile.rental.CrashingIdempotencyRecords.CrashPoint;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;

/**
 * A keyed rent whose request dies between two of its steps (claim, bike write, complete; see
 * {@link CrashingIdempotencyRecords}), then the client's retry with the same key: exactly one rent, and the retry
 * gets the answer of that rent, never NOT_AVAILABLE. Without transactions (dynalite), as in production without them.
 */
@QuarkusTest
class RentalCrashTest {

    @Inject
    CrashingIdempotencyRecords records;

    @ParameterizedTest
    @EnumSource(CrashPoint.class)
    void aRetryAfterACrashRentsOnceAndAnswersAsTheRent(CrashPoint point) throws InterruptedException {
        String bikeId = unique("b");
        String customer = unique("c");
        String key = unique("k");
        BikeApiTest.create(bikeId, "harbour", 3);
        records.crashOnce(new Caller(customer, false, false).scope(key), point);

        rent(bikeId, customer, key).then().statusCode(500);

        Response retried = retryUntilSettled(bikeId, customer, key);
        retried.then().statusCode(200).body("rentedBy", is(customer)).body("ridesSinceService", is(4))
                .body("version", is(2));
        // the request that crashed before writing the bike leaves nothing to replay: the retry does the rent
        assertEquals(point == CrashPoint.AFTER_CLAIM ? null : "true", retried.header("Idempotent-Replayed"));
        asStaff().get("/bikes/" + bikeId).then().body("status", is("RENTED")).body("rentedBy", is(customer))
                .body("ridesSinceService", is(4)).body("version", is(2));

        Response again = rent(bikeId, customer, key);
        again.then().statusCode(200).header("Idempotent-Replayed", is("true"));
        assertEquals(retried.asString(), again.asString(), "the stored answer, byte for byte");
        assertEquals(retried.header("ETag"), again.header("ETag"));
    }

    /**
     * A keyed rent that is refused frees its key afterwards, so that the same request can be decided again. When that
     * release fails (the store timed out), the answer is still the refusal: it was a 500 (the refusal and the store
     * fault came back together, and nothing maps that pair). The key stays claimed until its claim expires.
     */
    @Test
    void aRefusalWhoseKeyCannotBeFreedIsStillTheRefusal() {
        String bikeId = unique("b");
        String holder = unique("c");
        String customer = unique("c");
        String key = unique("k");
        BikeApiTest.create(bikeId, "harbour", 3);
        rent(bikeId, holder, unique("k")).then().statusCode(200);
        records.failNextRelease(new Caller(customer, false, false).scope(key));

        rent(bikeId, customer, key).then().statusCode(409).contentType("application/problem+json")
                .body("reason", is("NOT_AVAILABLE"));

        asStaff().get("/bikes/" + bikeId).then().body("status", is("RENTED")).body("rentedBy", is(holder))
                .body("version", is(2));
    }

    /**
     * With transactions on, a duplicate that looked for the key's record just before the first request's transaction
     * committed, and read the bike just after, finds the key's mark on the bike and then the COMPLETED record. It
     * completed that record again, a write DynamoDB refuses while a third duplicate's transaction carries the record
     * (TransactionConflictException): 500 where the answer is the replay. A completed record is not completed again.
     */
    @Test
    void aDuplicateThatFindsTheCompletedRecordThroughTheBikeIsReplayedWithoutWritingIt() {
        String bikeId = unique("b");
        String customer = unique("c");
        String key = unique("k");
        BikeApiTest.create(bikeId, "harbour", 3);
        Response first = rent(bikeId, customer, key);
        first.then().statusCode(200);
        records.missNextLookupThenConflictOnComplete(new Caller(customer, false, false).scope(key));

        Response duplicate = rent(bikeId, customer, key);

        duplicate.then().statusCode(200).header("Idempotent-Replayed", is("true"));
        assertEquals(first.asString(), duplicate.asString(), "the stored answer, byte for byte");
        asStaff().get("/bikes/" + bikeId).then().body("rentedBy", is(customer)).body("ridesSinceService", is(4))
                .body("version", is(2));
    }

    /** What a client does: retry with the same key, honouring 409 IDEMPOTENCY_IN_PROGRESS's Retry-After. */
    private static Response retryUntilSettled(String bikeId, String customer, String key) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (true) {
            Response answer = rent(bikeId, customer, key);
            if (answer.statusCode() != 409 || !"IDEMPOTENCY_IN_PROGRESS".equals(answer.path("reason"))) {
                return answer;
            }
            assertTrue(Integer.parseInt(answer.header("Retry-After")) >= 1);
            assertTrue(Instant.now().isBefore(deadline), "the abandoned claim must expire");
            Thread.sleep(500);
        }
    }

    private static Response rent(String bikeId, String customer, String key) {
        return asCustomer(customer).contentType(ContentType.JSON).header("Idempotency-Key", key).body(BikeApiTest.rentBody(customer))
                .post("/bikes/" + bikeId + "/rent");
    }
}
