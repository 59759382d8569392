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
 * Every bike write the AWS SDK sends twice (its first answer lost on the way back, see {@link ResendingDynamoDb}) is
 * answered as the write it was: the first send applied it and the resend failed its condition on that very change.
 * Before the writes were stamped each of these answered as if someone else had changed the bike: a create 409, a
 * rent 409, an edit 412, a delete 404, a lease release 409 LEASE_NOT_HELD. The data is checked too: the change is
 * there once.
 */
@QuarkusTest
class ResentWritesTest {

    @Inject
    ContendedBikeRepository repository;

    @Test
    void aResentCreateIsTheCreate() {
        String bikeId = unique("b");
        repository.resendNextWrite(bikeId);

        asStaff().contentType(ContentType.JSON)
                .body("{\"bikeId\":\"" + bikeId + "\",\"station\":\"harbour\",\"ridesSinceService\":2}")
                .post("/bikes").then().statusCode(201).body("version", is(1));

        asStaff().get("/bikes/" + bikeId).then().statusCode(200).body("station", is("harbour")).body("version", is(1));
        asStaff().contentType(ContentType.JSON)
                .body("{\"bikeId\":\"" + bikeId + "\",\"station\":\"airport\",\"ridesSinceService\":0}")
                .post("/bikes").then().statusCode(409);
    }

    @Test
    void aResentWriteThatLostItsRaceIsStillTheLoser() {
        String bikeId = bikeWithRides(4);
        repository.contend(bikeId, 1);
        repository.resendNextWrite(bikeId);

        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-1")).post("/bikes/" + bikeId + "/rent")
                .then().statusCode(200).body("version", is(3));

        assertEquals(2, repository.reads(bikeId), "the lost race was retried, not taken for the write");
        rentedOnceTo(bikeId, "c-1", 5, 3);
    }

    @Test
    void aResentRentIsTheRent() {
        String bikeId = bikeWithRides(4);
        repository.resendNextWrite(bikeId);

        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-1")).post("/bikes/" + bikeId + "/rent")
                .then().statusCode(200).body("rentedBy", is("c-1")).body("version", is(2));

        rentedOnceTo(bikeId, "c-1", 5, 2);
    }

    /**
     * The mark a keyed write leaves in the item told an earlier attempt's resend apart already; on the last attempt
     * there was no next read to find it, and the rent that happened answered 409 VERSION_CONFLICT.
     */
    @Test
    void aKeyedRentResentOnItsLastAttemptIsTheRentAndItsReplayToo() {
        String bikeId = bikeWithRides(4);
        String key = unique("k");
        repository.contend(bikeId, 2);
        repository.resendWrite(bikeId, 3);

        for (int send = 0; send < 2; send++) {
            asStaff().contentType(ContentType.JSON).header("Idempotency-Key", key).body(BikeApiTest.rentBody("c-1"))
                    .post("/bikes/" + bikeId + "/rent")
                    .then().statusCode(200).body("rentedBy", is("c-1")).body("version", is(4));
        }

        rentedOnceTo(bikeId, "c-1", 5, 4);
    }

    @Test
    void aResentConditionOnlyRentIsTheRent() {
        String bikeId = bikeWithRides(4);
        repository.resendNextWrite(bikeId);

        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-1"))
                .post("/bikes/" + bikeId + "/rent?mode=condition")
                .then().statusCode(200).body("rentedBy", is("c-1")).body("version", is(2));

        rentedOnceTo(bikeId, "c-1", 5, 2);
    }

    @Test
    void aResentReturnIsTheReturn() {
        String bikeId = bikeWithRides(4);
        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-1")).post("/bikes/" + bikeId + "/rent")
                .then().statusCode(200);
        repository.resendNextWrite(bikeId);

        asStaff().contentType(ContentType.JSON).body("{\"customerId\":\"c-1\",\"station\":\"airport\"}")
                .post("/bikes/" + bikeId + "/return")
                .then().statusCode(200).body("status", is("AVAILABLE")).body("station", is("airport")).body("version", is(3));

        asStaff().get("/bikes/" + bikeId).then().statusCode(200).body("status", is("AVAILABLE"))
                .body("station", is("airport")).body("rentedBy", nullValue()).body("ridesSinceService", is(5))
                .body("version", is(3));
    }

    @Test
    void aResentEditIsTheEdit() {
        String bikeId = bikeWithRides(0);
        String seen = BikeApiTest.etag(bikeId);
        repository.resendNextWrite(bikeId);

        asStaff().contentType(ContentType.JSON).header("If-Match", seen).body("{\"note\":\"brakes\"}")
                .patch("/bikes/" + bikeId)
                .then().statusCode(200).body("note", is("brakes")).body("version", is(2));

        asStaff().get("/bikes/" + bikeId).then().body("note", is("brakes")).body("version", is(2));
    }

    @Test
    void aResentDeleteIsTheDelete() {
        String bikeId = bikeWithRides(0);
        String seen = BikeApiTest.etag(bikeId);
        repository.resendNextWrite(bikeId);

        asStaff().header("If-Match", seen).delete("/bikes/" + bikeId).then().statusCode(204);

        asStaff().get("/bikes/" + bikeId).then().statusCode(404);
    }

    @Test
    void aResentLeaseReleaseIsTheRelease() {
        String bikeId = bikeWithRides(0);
        String token = asStaff().contentType(ContentType.JSON).body("{\"holder\":\"workshop-a\",\"ttlSeconds\":600}")
                .post("/bikes/" + bikeId + "/lease").then().statusCode(201).extract().path("token");
        repository.resendNextWrite(bikeId);

        asStaff().header("Lease-Token", token).delete("/bikes/" + bikeId + "/lease").then().statusCode(204);

        asStaff().get("/bikes/" + bikeId).then().body("leaseHolder", nullValue());
        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-1")).post("/bikes/" + bikeId + "/rent")
                .then().statusCode(200);
    }

    private static String bikeWithRides(int rides) {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", rides);
        return bikeId;
    }

    private static void rentedOnceTo(String bikeId, String customerId, int rides, int version) {
        asStaff().get("/bikes/" + bikeId).then().statusCode(200).body("status", is("RENTED"))
                .body("rentedBy", is(customerId)).body("ridesSinceService", is(rides)).body("version", is(version));
    }
}
