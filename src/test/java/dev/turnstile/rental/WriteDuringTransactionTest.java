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

    /** Service is a single-item write with transactions on too; a rent takes the same path where they are off. */
    @Test
    void aServiceThatMeetsATransactionDecidesAgainAndServices() {
        String bikeId = bikeWithRides(29);
        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-1")).post("/bikes/" + bikeId + "/rent")
                .then().statusCode(200);
        asStaff().contentType(ContentType.JSON).body("{\"customerId\":\"c-1\",\"station\":\"harbour\"}")
                .post("/bikes/" + bikeId + "/return").then().statusCode(200).body("status", is("MAINTENANCE"));
        int readsBefore = repository.reads(bikeId);
        repository.inTransaction(bikeId, 1);

        asStaff().post("/bikes/" + bikeId + "/service")
                .then().statusCode(200).body("status", is("AVAILABLE")).body("ridesSinceService", is(0)).body("version", is(4));

        assertEquals(readsBefore + 2, repository.reads(bikeId), "read again after the refused write");
        asStaff().get("/bikes/" + bikeId).then().body("status", is("AVAILABLE")).body("version", is(4));
    }

    /** The refused send may be a resend whose first send was applied: that is the write, found by its stamp. */
    @Test
    void aResentConditionOnlyRentThatMeetsATransactionIsTheRent() {
        String bikeId = bikeWithRides(4);
        repository.resendNextWriteIntoTransaction(bikeId);

        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-1"))
                .post("/bikes/" + bikeId + "/rent?mode=condition")
                .then().statusCode(200).body("rentedBy", is("c-1")).body("version", is(2));

        asStaff().get("/bikes/" + bikeId).then().body("status", is("RENTED")).body("ridesSinceService", is(5))
                .body("version", is(2));
    }

    @Test
    void aResentLeaseThatMeetsATransactionIsTheLeaseAndItsTokenReleasesIt() {
        String bikeId = bikeWithRides(4);
        repository.resendNextWriteIntoTransaction(bikeId);

        String token = asStaff().contentType(ContentType.JSON).body("{\"holder\":\"workshop-a\",\"ttlSeconds\":600}")
                .post("/bikes/" + bikeId + "/lease").then().statusCode(201).extract().path("token");
        asStaff().get("/bikes/" + bikeId).then().body("leaseHolder", is("workshop-a")).body("version", is(2));
        repository.resendNextWriteIntoTransaction(bikeId);

        asStaff().header("Lease-Token", token).delete("/bikes/" + bikeId + "/lease").then().statusCode(204);

        asStaff().get("/bikes/" + bikeId).then().body("leaseHolder", nullValue()).body("version", is(3));
    }

    @Test
    void aResentEditThatMeetsATransactionIsTheEdit() {
        String bikeId = bikeWithRides(4);
        String seen = BikeApiTest.etag(bikeId);
        repository.resendNextWriteIntoTransaction(bikeId);

        asStaff().contentType(ContentType.JSON).header("If-Match", seen).body("{\"note\":\"brakes\"}")
                .patch("/bikes/" + bikeId).then().statusCode(200).body("note", is("brakes")).body("version", is(2));

        asStaff().get("/bikes/" + bikeId).then().body("note", is("brakes")).body("version", is(2));
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

    /** The bike exists (a transaction is writing it): BIKE_EXISTS, as when the create's own condition fails. */
    @Test
    void aCreateOfABikeATransactionIsWritingIsBikeExists() {
        String bikeId = bikeWithRides(4);
        repository.inTransaction(bikeId, 1);

        asStaff().contentType(ContentType.JSON)
                .body("{\"bikeId\":\"" + bikeId + "\",\"station\":\"depot\",\"ridesSinceService\":0}")
                .post("/bikes").then().statusCode(409).body("reason", is("BIKE_EXISTS"));
        unchanged(bikeId);
    }

    /**
     * No bike, yet a transaction holds its key (a rent of a bike deleted meanwhile, whose condition will fail): the
     * create wrote nothing and nobody created the bike, so it is a conflict to try again, not a 500.
     */
    @Test
    void aCreateThatMeetsATransactionOnAnAbsentBikeIsAConflictAndWritesNothing() {
        String bikeId = unique("b");
        repository.inTransaction(bikeId, 1);

        asStaff().contentType(ContentType.JSON)
                .body("{\"bikeId\":\"" + bikeId + "\",\"station\":\"depot\",\"ridesSinceService\":0}")
                .post("/bikes").then().statusCode(409).contentType("application/problem+json")
                .body("reason", is("VERSION_CONFLICT"));
        asStaff().get("/bikes/" + bikeId).then().statusCode(404);
    }

    /** A create whose first send was applied and whose resend met a transaction: its stamp says it is the create. */
    @Test
    void aCreateResentIntoATransactionIsTheCreate() {
        String bikeId = unique("b");
        repository.resendNextWriteIntoTransaction(bikeId);

        asStaff().contentType(ContentType.JSON)
                .body("{\"bikeId\":\"" + bikeId + "\",\"station\":\"harbour\",\"ridesSinceService\":4}")
                .post("/bikes").then().statusCode(201);
        unchanged(bikeId);
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
