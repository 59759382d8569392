package dev.turnstile.rental;

import static dev.turnstile.identity.Tokens.asStaff;
import static dev.turnstile.rental.RentalHttp.unique;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * With transactions on, a rent or return writes the bike in a TransactWriteItems; a single-item write on the same
 * bike at that moment (a condition-only rent, an edit, a delete, a lease) is refused by DynamoDB with
 * TransactionConflictException, which the AWS SDK does not send again. Each of these answered 500 INTERNAL_ERROR.
 * dynalite has no transactions: the test alternative's client refuses the write as DynamoDB does
 * ({@link ResendingDynamoDb}); everything else is real. The data is checked too: a refused write changed nothing.
 */
@QuarkusTest
class WriteDuringTransactionTest {

    @Inject
    ContendedBikeRepository repository;

    @Test
    void aRentThatMeetsATransactionDecidesAgainAndRents() {
        String bikeId = bikeWithRides(4);
        repository.inTransaction(bikeId, 1);

        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-1")).post("/bikes/" + bikeId + "/rent")
                .then().statusCode(200).body("rentedBy", is("c-1")).body("version", is(2));

        assertEquals(2, repository.reads(bikeId), "read again after the refused write");
        asStaff().get("/bikes/" + bikeId).then().body("status", is("RENTED")).body("ridesSinceService", is(5))
                .body("version", is(2));
    }

    @Test
    void aConditionOnlyRentThatMeetsATransactionIsAConflictAndChangesNothing() {
        String bikeId = bikeWithRides(4);
        repository.inTransaction(bikeId, 1);

        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-1"))
                .post("/bikes/" + bikeId + "/rent?mode=condition")
                .then().statusCode(409).body("reason", is("VERSION_CONFLICT"));

        unchanged(bikeId);
    }

    @Test
    void anEditOrDeleteThatMeetsATransactionIsAConflictAndChangesNothing() {
        String bikeId = bikeWithRides(4);
        String seen = BikeApiTest.etag(bikeId);
        repository.inTransaction(bikeId, 2);

        asStaff().contentType(ContentType.JSON).header("If-Match", seen).body("{\"note\":\"brakes\"}")
                .patch("/bikes/" + bikeId).then().statusCode(409).body("reason", is("VERSION_CONFLICT"));
        asStaff().header("If-Match", seen).delete("/bikes/" + bikeId)
                .then().statusCode(409).body("reason", is("VERSION_CONFLICT"));

        unchanged(bikeId);
        asStaff().get("/bikes/" + bikeId).then().body("note", nullValue());
    }

    @Test
    void aLeaseThatMeetsATransactionIsAConflictBothWays() {
        String bikeId = bikeWithRides(4);
        repository.inTransaction(bikeId, 1);

        asStaff().contentType(ContentType.JSON).body("{\"holder\":\"workshop-a\",\"ttlSeconds\":600}")
                .post("/bikes/" + bikeId + "/lease").then().statusCode(409).body("reason", is("VERSION_CONFLICT"));
        unchanged(bikeId);

        String token = asStaff().contentType(ContentType.JSON).body("{\"holder\":\"workshop-a\",\"ttlSeconds\":600}")
                .post("/bikes/" + bikeId + "/lease").then().statusCode(201).extract().path("token");
        repository.inTransaction(bikeId, 1);

        asStaff().header("Lease-Token", token).delete("/bikes/" + bikeId + "/lease")
                .then().statusCode(409).body("reason", is("VERSION_CONFLICT"));
        asStaff().get("/bikes/" + bikeId).then().body("leaseHolder", is("workshop-a")).body("version", is(2));
    }

    private static String bikeWithRides(int rides) {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", rides);
        return bikeId;
    }

    private static void unchanged(String bikeId) {
        asStaff().get("/bikes/" + bikeId).then().statusCode(200).body("status", is("AVAILABLE"))
                .body("rentedBy", nullValue()).body("ridesSinceService", is(4)).body("leaseHolder", nullValue())
                .body("version", is(1));
    }
}
