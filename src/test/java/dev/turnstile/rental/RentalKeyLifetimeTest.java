package dev.turnstile.rental;

import static dev.turnstile.identity.Tokens.asCustomer;
import static dev.turnstile.identity.Tokens.asStaff;
import static dev.turnstile.rental.RentalHttp.unique;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.turnstile.rental.CrashingIdempotencyRecords.CrashPoint;
import dev.turnstile.identity.Caller;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * How long a key lives: an IN_PROGRESS record whose owner died blocks its key only until
 * {@code turnstile.rental.idempotency.in-progress-expiry} (7 s in tests), and a record past its {@code expiresAt}
 * counts as gone, whether DynamoDB's TTL deleted it (simulated: the test deletes the item) or not yet (the test moves
 * {@code expiresAt} into the past). The bike item still carries the key's mark from the earlier life; it must not
 * make the new request look applied.
 */
@QuarkusTest
class RentalKeyLifetimeTest {

    @Inject
    DynamoDbAsyncClient dynamo;

    @Inject
    RentalTables tables;

    @Inject
    CrashingIdempotencyRecords records;

    @Test
    void anAbandonedClaimBlocksItsKeyUntilTheConfiguredExpiryThenTheKeyIsUsable() throws Exception {
        String bikeId = unique("b");
        String customer = unique("c");
        String key = unique("k");
        BikeApiTest.create(bikeId, "harbour", 3);
        records.crashOnce(new Caller(customer, false, false).scope(key), CrashPoint.AFTER_CLAIM);
        Instant claimed = Instant.now();
        rent(bikeId, customer, key).then().statusCode(500);

        Response blocked = rent(bikeId, customer, key);
        blocked.then().statusCode(409).body("reason", is("IDEMPOTENCY_IN_PROGRESS"));
        int retryAfter = Integer.parseInt(blocked.header("Retry-After"));
        assertTrue(retryAfter >= 1 && retryAfter <= 7, "Retry-After within the in-progress expiry: " + retryAfter);
        asStaff().get("/bikes/" + bikeId).then().body("status", is("AVAILABLE")).body("version", is(1));

        Response taken;
        do {
            Thread.sleep(250);
            taken = rent(bikeId, customer, key);
        } while (taken.statusCode() == 409 && Instant.now().isBefore(claimed.plusSeconds(15)));
        assertTrue(Duration.between(claimed, Instant.now()).toMillis() >= 6_500, "blocked for the configured 7 s");
        taken.then().statusCode(200).header("Idempotent-Replayed", nullValue()).body("rentedBy", is(customer))
                .body("ridesSinceService", is(4));
        asStaff().get("/bikes/" + bikeId).then().body("ridesSinceService", is(4)).body("version", is(2));
    }

    @Test
    void aKeyWhoseRecordTheTtlDeletedIsDecidedAsNew() {
        String bikeId = unique("b");
        String customer = unique("c");
        String key = unique("k");
        BikeApiTest.create(bikeId, "harbour", 3);
        rent(bikeId, customer, key).then().statusCode(200);
        giveBack(bikeId, customer);
        dynamo.deleteItem(request -> request.tableName(tables.idempotency()).key(recordKey(customer, key))).join();

        Response again = rent(bikeId, customer, key);

        again.then().statusCode(200).header("Idempotent-Replayed", nullValue()).body("ridesSinceService", is(5))
                .body("version", is(4));
        Response replay = rent(bikeId, customer, key);
        replay.then().statusCode(200).header("Idempotent-Replayed", is("true"));
        assertEquals(again.asString(), replay.asString());
        asStaff().get("/bikes/" + bikeId).then().body("ridesSinceService", is(5)).body("version", is(4));
    }

    @Test
    void aKeyWhoseRecordIsPastItsExpiryIsDecidedAsNewEvenBeforeTheTtlDeletesIt() {
        String bikeId = unique("b");
        String other = unique("b");
        String customer = unique("c");
        String key = unique("k");
        BikeApiTest.create(bikeId, "harbour", 3);
        BikeApiTest.create(other, "harbour", 0);
        rent(bikeId, customer, key).then().statusCode(200);
        giveBack(bikeId, customer);
        expire(customer, key);

        rent(bikeId, customer, key).then().statusCode(200).header("Idempotent-Replayed", nullValue())
                .body("ridesSinceService", is(5));
        giveBack(bikeId, customer);
        expire(customer, key);
        // another request under the expired key is no reuse (422) either
        rent(other, customer, key).then().statusCode(200).header("Idempotent-Replayed", nullValue())
                .body("bikeId", is(other));
        asStaff().get("/bikes/" + bikeId).then().body("status", is("AVAILABLE")).body("ridesSinceService", is(5))
                .body("version", is(5));
    }

    @Test
    void aMarkFromTheKeysEarlierLifeNeverAnswersForAClaimThatDiedBeforeItsWrite() throws Exception {
        String bikeId = unique("b");
        String customer = unique("c");
        String key = unique("k");
        BikeApiTest.create(bikeId, "harbour", 3);
        rent(bikeId, customer, key).then().statusCode(200);
        giveBack(bikeId, customer);
        expire(customer, key);
        records.crashOnce(new Caller(customer, false, false).scope(key), CrashPoint.AFTER_CLAIM);
        rent(bikeId, customer, key).then().statusCode(500);

        Response retried;
        Instant deadline = Instant.now().plusSeconds(15);
        do {
            Thread.sleep(250);
            retried = rent(bikeId, customer, key);
        } while (retried.statusCode() == 409 && Instant.now().isBefore(deadline));

        // the claim's answer was never made true: the retry rents, it does not replay a phantom rent
        retried.then().statusCode(200).header("Idempotent-Replayed", nullValue()).body("ridesSinceService", is(5));
        asStaff().get("/bikes/" + bikeId).then().body("status", is("RENTED")).body("rentedBy", is(customer))
                .body("ridesSinceService", is(5)).body("version", is(4));
    }

    private void expire(String customer, String key) {
        dynamo.updateItem(request -> request.tableName(tables.idempotency()).key(recordKey(customer, key))
                .updateExpression("SET expiresAt = :past")
                .expressionAttributeValues(Map.of(":past",
                        AttributeValue.fromN(Long.toString(Instant.now().minusSeconds(1).getEpochSecond())))))
                .join();
    }

    private static Map<String, AttributeValue> recordKey(String customer, String key) {
        return Map.of("id", AttributeValue.fromS(new Caller(customer, false, false).scope(key)));
    }

    private static void giveBack(String bikeId, String customer) {
        asCustomer(customer).contentType(ContentType.JSON).body("{\"customerId\":\"" + customer + "\",\"station\":\"harbour\"}")
                .post("/bikes/" + bikeId + "/return").then().statusCode(200);
    }

    private static Response rent(String bikeId, String customer, String key) {
        return asCustomer(customer).contentType(ContentType.JSON).header("Idempotency-Key", key).body(BikeApiTest.rentBody(customer))
                .post("/bikes/" + bikeId + "/rent");
    }
}
