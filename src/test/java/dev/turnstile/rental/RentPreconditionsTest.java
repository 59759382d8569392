package dev.turnstile.rental;

import static dev.turnstile.identity.Tokens.asCustomer;
import static dev.turnstile.identity.Tokens.asStaff;
import static dev.turnstile.rental.RentalHttp.unique;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * Rent, return and service answer with the bike's ETag, so a client (a staff tool, a kiosk) may send it back as
 * If-Match to act only on the bike it showed. RFC 9110 13.1.1: a server MUST evaluate If-Match before performing the
 * method. A bike changed since is 412 STALE_VERSION with the current bike, and nothing is written.
 */
@QuarkusTest
class RentPreconditionsTest {

    private static void note(String bikeId, String note) {
        asStaff().contentType(ContentType.JSON).header("If-Match", BikeApiTest.etag(bikeId)).body("{\"note\":\"" + note + "\"}")
                .patch("/bikes/" + bikeId).then().statusCode(200);
    }

    @Test
    void aRentOfTheBikeAsSeenSucceeds() {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 0);

        asStaff().contentType(ContentType.JSON).header("If-Match", BikeApiTest.etag(bikeId)).body(BikeApiTest.rentBody("c-1"))
                .post("/bikes/" + bikeId + "/rent").then().statusCode(200).body("rentedBy", is("c-1"));
    }

    @Test
    void aRentOfABikeChangedSinceIs412AndRentsNothing() {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 0);
        String seen = BikeApiTest.etag(bikeId);
        note(bikeId, "saddle loose");

        asStaff().contentType(ContentType.JSON).header("If-Match", seen).body(BikeApiTest.rentBody("c-1"))
                .post("/bikes/" + bikeId + "/rent")
                .then().statusCode(412).contentType("application/problem+json").body("reason", is("STALE_VERSION"))
                .body("current.version", is(2)).body("current.note", is("saddle loose"));

        asStaff().get("/bikes/" + bikeId).then().body("status", is("AVAILABLE")).body("version", is(2));
    }

    /** Eight kiosks rent the bike they all showed, at once, for eight customers: one rents it, seven hear 412. */
    @Test
    void concurrentRentsFromOneReadRentTheBikeOnce() {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 0);
        String seen = BikeApiTest.etag(bikeId);

        List<CompletableFuture<Integer>> rents = IntStream.range(0, 8)
                .mapToObj(i -> CompletableFuture.supplyAsync(() -> asStaff().contentType(ContentType.JSON).header("If-Match", seen)
                        .body(BikeApiTest.rentBody("kiosk-" + i)).post("/bikes/" + bikeId + "/rent").statusCode()))
                .toList();
        List<Integer> statuses = rents.stream().map(CompletableFuture::join).toList();

        assertEquals(1, statuses.stream().filter(s -> s == 200).count(), statuses.toString());
        assertEquals(7, statuses.stream().filter(s -> s == 412).count(), statuses.toString());
        asStaff().get("/bikes/" + bikeId).then().body("status", is("RENTED")).body("version", is(2))
                .body("ridesSinceService", is(1));
    }

    @Test
    void aKeyedRentReplaysItsAnswerThoughTheBikeChangedByIt() {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 0);
        String seen = BikeApiTest.etag(bikeId);
        String key = unique("k");

        for (int attempt = 0; attempt < 2; attempt++) {
            asStaff().contentType(ContentType.JSON).header("If-Match", seen).header("Idempotency-Key", key)
                    .body(BikeApiTest.rentBody("c-1")).post("/bikes/" + bikeId + "/rent")
                    .then().statusCode(200).body("rentedBy", is("c-1")).body("version", is(2));
        }
        asStaff().get("/bikes/" + bikeId).then().body("version", is(2));
    }

    @Test
    void aKeyedRentOfABikeChangedSinceIs412AndFreesTheKey() {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 0);
        String seen = BikeApiTest.etag(bikeId);
        note(bikeId, "bell");
        String key = unique("k");

        asStaff().contentType(ContentType.JSON).header("If-Match", seen).header("Idempotency-Key", key)
                .body(BikeApiTest.rentBody("c-1")).post("/bikes/" + bikeId + "/rent")
                .then().statusCode(412).body("reason", is("STALE_VERSION"));
        asStaff().contentType(ContentType.JSON).header("If-Match", BikeApiTest.etag(bikeId)).header("Idempotency-Key", key)
                .body(BikeApiTest.rentBody("c-1")).post("/bikes/" + bikeId + "/rent")
                .then().statusCode(200).body("rentedBy", is("c-1"));
    }

    @Test
    void aReturnOfABikeChangedSinceIs412AndTheRideGoesOn() {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 0);
        String rented = asCustomer("c-7").contentType(ContentType.JSON).body("{}").post("/bikes/" + bikeId + "/rent")
                .then().statusCode(200).extract().header("ETag");
        note(bikeId, "light flickers");

        asCustomer("c-7").contentType(ContentType.JSON).header("If-Match", rented).body("{\"station\":\"airport\"}")
                .post("/bikes/" + bikeId + "/return")
                .then().statusCode(412).body("reason", is("STALE_VERSION")).body("current.rentedBy", is("c-7"));

        asStaff().get("/bikes/" + bikeId).then().body("status", is("RENTED")).body("rentedBy", is("c-7"))
                .body("station", is("harbour"));
    }

    @Test
    void the412ShowsAnotherCustomerTheBikeWithoutItsRenter() {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 0);
        String seen = BikeApiTest.etag(bikeId);
        asCustomer("c-first").contentType(ContentType.JSON).body("{}").post("/bikes/" + bikeId + "/rent").then().statusCode(200);

        asCustomer("c-second").contentType(ContentType.JSON).header("If-Match", seen).body("{}")
                .post("/bikes/" + bikeId + "/rent")
                .then().statusCode(412).body("current.status", is("RENTED")).body("current", not(hasKey("rentedBy")));
    }

    @Test
    void aServiceOfABikeChangedSinceIs412() {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 0);
        String seen = BikeApiTest.etag(bikeId);
        note(bikeId, "chain");

        asStaff().header("If-Match", seen).post("/bikes/" + bikeId + "/service")
                .then().statusCode(412).body("reason", is("STALE_VERSION"));
        asStaff().get("/bikes/" + bikeId).then().body("version", is(2));
    }

    /** The condition-only rent tests no entity tag: If-Match, and If-None-Match, which it had ignored, are refused. */
    @ParameterizedTest
    @ValueSource(strings = { "If-Match", "If-None-Match" })
    void aPreconditionWithTheConditionOnlyRentIsRefusedAndRentsNothing(String precondition) {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 0);

        asStaff().contentType(ContentType.JSON).header(precondition, BikeApiTest.etag(bikeId)).body(BikeApiTest.rentBody("c-1"))
                .post("/bikes/" + bikeId + "/rent?mode=condition")
                .then().statusCode(400).body("errors[0].field", is(precondition));
        asStaff().get("/bikes/" + bikeId).then().body("status", is("AVAILABLE")).body("version", is(1));
    }
}
