package dev.turnstile.rental;

import static dev.turnstile.identity.Tokens.asStaff;
import static dev.turnstile.rental.RentalHttp.unique;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/** The HTTP API against dynalite: status codes, ETags and what is stored afterwards. */
@QuarkusTest
class BikeApiTest {

    static void create(String bikeId, String station, int rides) {
        asStaff().contentType(ContentType.JSON)
                .body("{\"bikeId\":\"" + bikeId + "\",\"station\":\"" + station + "\",\"ridesSinceService\":" + rides + "}")
                .post("/bikes").then().statusCode(201);
    }

    /** The bike's current entity tag, quotes included, as a client would send it back in If-Match. */
    static String etag(String bikeId) {
        return asStaff().get("/bikes/" + bikeId).then().statusCode(200).extract().header("ETag");
    }

    static String rentBody(String customerId) {
        return "{\"customerId\":\"" + customerId + "\"}";
    }

    @Test
    void createAnswers201WithLocationAndFirstVersion() {
        String bikeId = unique("b");
        asStaff().contentType(ContentType.JSON).body("{\"bikeId\":\"" + bikeId + "\",\"station\":\"harbour\"}")
                .post("/bikes")
                .then().statusCode(201)
                .header("Location", endsWith("/bikes/" + bikeId))
                .header("ETag", matchesPattern("\"1-[0-9a-f]{8}\""))
                .body("status", is("AVAILABLE")).body("ridesSinceService", is(0)).body("version", is(1));

        asStaff().get("/bikes/" + bikeId).then().statusCode(200).header("ETag", matchesPattern("\"1-[0-9a-f]{8}\""))
                .body("station", is("harbour")).body("rentedBy", nullValue());
    }

    @Test
    void anExistingBikeIsNeverOverwritten() {
        String bikeId = unique("b");
        create(bikeId, "harbour", 7);
        asStaff().contentType(ContentType.JSON).body(rentBody("c-1")).post("/bikes/" + bikeId + "/rent").then().statusCode(200);

        asStaff().contentType(ContentType.JSON).body("{\"bikeId\":\"" + bikeId + "\",\"station\":\"airport\"}")
                .post("/bikes")
                .then().statusCode(409).contentType("application/problem+json").body("reason", is("BIKE_EXISTS"));

        asStaff().get("/bikes/" + bikeId).then().statusCode(200)
                .body("station", is("harbour")).body("version", is(2)).body("ridesSinceService", is(8))
                .body("rentedBy", is("c-1"));
    }

    @Test
    void unknownBikesAre404Problems() {
        String bikeId = unique("missing");
        asStaff().get("/bikes/" + bikeId).then().statusCode(404).contentType("application/problem+json")
                .body("reason", is("BIKE_NOT_FOUND")).body("status", is(404));
        asStaff().contentType(ContentType.JSON).body(rentBody("c-1")).post("/bikes/" + bikeId + "/rent")
                .then().statusCode(404).body("reason", is("BIKE_NOT_FOUND"));
        asStaff().contentType(ContentType.JSON).body(rentBody("c-1")).post("/bikes/" + bikeId + "/rent?mode=condition")
                .then().statusCode(404).body("reason", is("BIKE_NOT_FOUND"));
        asStaff().post("/bikes/" + bikeId + "/service").then().statusCode(404);
        asStaff().get("/bikes/" + bikeId).then().statusCode(404);
    }

    @Test
    void ifNoneMatchWithTheCurrentTagIs304AndAnOlderTagGetsTheBike() {
        String bikeId = unique("b");
        create(bikeId, "harbour", 0);
        String first = etag(bikeId);
        asStaff().header("If-None-Match", first).get("/bikes/" + bikeId).then().statusCode(304).header("ETag", is(first));
        String second = asStaff().contentType(ContentType.JSON).body(rentBody("c-1")).post("/bikes/" + bikeId + "/rent")
                .then().statusCode(200).header("ETag", startsWith("\"2-")).extract().header("ETag");
        asStaff().header("If-None-Match", first).get("/bikes/" + bikeId).then().statusCode(200)
                .header("ETag", is(second)).body("status", is("RENTED"));
    }

    @Test
    void listsAStationsBikesOptionallyByStatus() {
        String station = unique("station");
        String first = unique("b");
        String second = unique("b");
        create(first, station, 0);
        create(second, station, 0);
        create(unique("b"), unique("elsewhere"), 0);
        asStaff().contentType(ContentType.JSON).body(rentBody("c-1")).post("/bikes/" + second + "/rent").then().statusCode(200);

        asStaff().queryParam("station", station).get("/bikes").then().statusCode(200)
                .body("bikes.bikeId", containsInAnyOrder(first, second)).body("next", nullValue());
        asStaff().queryParam("station", station).queryParam("status", "AVAILABLE").get("/bikes").then().statusCode(200)
                .body("bikes.bikeId", contains(first));
    }

    @Test
    void returnNeedsTheRenterAndARentedBike() {
        String bikeId = unique("b");
        create(bikeId, "harbour", 3);
        asStaff().contentType(ContentType.JSON).body("{\"customerId\":\"c-1\",\"station\":\"airport\"}")
                .post("/bikes/" + bikeId + "/return").then().statusCode(409).body("reason", is("NOT_RENTED"));
        asStaff().contentType(ContentType.JSON).body(rentBody("c-1")).post("/bikes/" + bikeId + "/rent").then().statusCode(200);

        asStaff().contentType(ContentType.JSON).body("{\"customerId\":\"c-2\",\"station\":\"airport\"}")
                .post("/bikes/" + bikeId + "/return").then().statusCode(409).body("reason", is("WRONG_CUSTOMER"));
        asStaff().contentType(ContentType.JSON).body("{\"customerId\":\"c-1\",\"station\":\"airport\"}")
                .post("/bikes/" + bikeId + "/return").then().statusCode(200).header("ETag", startsWith("\"3-"))
                .body("station", is("airport")).body("status", is("AVAILABLE")).body("rentedBy", nullValue())
                .body("ridesSinceService", is(4));
    }

    /** One name for one header in {@code errors[].field}, whichever check refused it (the Java parameter's, before). */
    @Test
    void aRefusedHeaderIsNamedAsTheRequestNamesIt() {
        String bikeId = unique("b");
        create(bikeId, "harbour", 5);
        String rent = "/bikes/" + bikeId + "/rent";

        asStaff().contentType(ContentType.JSON).header("Idempotency-Key", "a b").body(rentBody("c-1")).post(rent)
                .then().statusCode(400).body("errors[0].field", is("Idempotency-Key"));
        asStaff().contentType(ContentType.JSON).header("Idempotency-Key", unique("k")).body(rentBody("c-1")).post(rent + "?mode=condition")
                .then().statusCode(400).body("errors[0].field", is("Idempotency-Key"));
        asStaff().contentType(ContentType.JSON).header("Lease-Token", "t".repeat(65)).body(rentBody("c-1")).post(rent)
                .then().statusCode(400).body("errors[0].field", is("Lease-Token"));

        asStaff().get("/bikes/" + bikeId).then().body("status", is("AVAILABLE")).body("version", is(1));
    }

    @Test
    void theConditionOnlyPathRentsWithoutReadingAndExplainsRefusals() {
        String bikeId = unique("b");
        String due = unique("b");
        create(bikeId, "harbour", 5);
        create(due, "harbour", 30);

        asStaff().contentType(ContentType.JSON).body(rentBody("c-1")).post("/bikes/" + bikeId + "/rent?mode=condition")
                .then().statusCode(200).header("ETag", startsWith("\"2-"))
                .body("status", is("RENTED")).body("rentedBy", is("c-1")).body("ridesSinceService", is(6));
        asStaff().contentType(ContentType.JSON).body(rentBody("c-2")).post("/bikes/" + bikeId + "/rent?mode=condition")
                .then().statusCode(409).body("reason", is("NOT_AVAILABLE"));
        asStaff().contentType(ContentType.JSON).body(rentBody("c-2")).post("/bikes/" + due + "/rent?mode=condition")
                .then().statusCode(409).body("reason", is("SERVICE_DUE"));

        asStaff().get("/bikes/" + bikeId).then().body("rentedBy", is("c-1")).body("version", is(2)).body("ridesSinceService", is(6));
        asStaff().get("/bikes/" + due).then().body("status", is("AVAILABLE")).body("version", is(1)).body("ridesSinceService", is(30));
    }

    @Test
    void aBikeCreatedAvailableAtTheRideLimitCanBeServicedThenRented() {
        String due = unique("b");
        create(due, "harbour", 30);

        asStaff().post("/bikes/" + due + "/service").then().statusCode(200)
                .body("status", is("AVAILABLE")).body("ridesSinceService", is(0)).body("version", is(2));
        asStaff().contentType(ContentType.JSON).body(rentBody("c-1")).post("/bikes/" + due + "/rent").then().statusCode(200);

        asStaff().get("/bikes/" + due).then().body("status", is("RENTED")).body("ridesSinceService", is(1)).body("version", is(3));
    }

    @Test
    void patchWithTheCurrentTagChangesTheNote() {
        String bikeId = unique("b");
        create(bikeId, "harbour", 0);

        asStaff().contentType(ContentType.JSON).header("If-Match", etag(bikeId)).body("{\"note\":\"bell missing\"}")
                .patch("/bikes/" + bikeId)
                .then().statusCode(200).header("ETag", startsWith("\"2-")).body("note", is("bell missing"));

        asStaff().get("/bikes/" + bikeId).then().body("note", is("bell missing")).body("version", is(2));
    }

    @Test
    void patchWithAStaleTagIs412WithTheCurrentBikeAndChangesNothing() {
        String bikeId = unique("b");
        create(bikeId, "harbour", 0);
        String seen = etag(bikeId);
        asStaff().contentType(ContentType.JSON).header("If-Match", seen).body("{\"note\":\"first edit\"}")
                .patch("/bikes/" + bikeId).then().statusCode(200);

        asStaff().contentType(ContentType.JSON).header("If-Match", seen).body("{\"note\":\"outdated form\"}")
                .patch("/bikes/" + bikeId)
                .then().statusCode(412).contentType("application/problem+json")
                .body("reason", is("STALE_VERSION")).body("current.version", is(2)).body("current.note", is("first edit"));

        asStaff().get("/bikes/" + bikeId).then().body("note", is("first edit")).body("version", is(2));
    }

    @Test
    void patchWithoutIfMatchIs428AndChangesNothing() {
        String bikeId = unique("b");
        create(bikeId, "harbour", 0);

        asStaff().contentType(ContentType.JSON).body("{\"note\":\"no precondition\"}").patch("/bikes/" + bikeId)
                .then().statusCode(428).contentType("application/problem+json").body("reason", is("PRECONDITION_REQUIRED"));

        asStaff().get("/bikes/" + bikeId).then().body("note", nullValue()).body("version", is(1));
    }

    @Test
    void deleteNeedsTheCurrentTag() {
        String bikeId = unique("b");
        create(bikeId, "harbour", 0);
        String seen = etag(bikeId);
        asStaff().contentType(ContentType.JSON).header("If-Match", seen).body("{\"note\":\"bell\"}")
                .patch("/bikes/" + bikeId).then().statusCode(200);

        asStaff().delete("/bikes/" + bikeId).then().statusCode(428);
        asStaff().header("If-Match", seen).delete("/bikes/" + bikeId)
                .then().statusCode(412).body("reason", is("STALE_VERSION")).body("current.version", is(2));
        asStaff().get("/bikes/" + bikeId).then().statusCode(200).body("version", is(2));

        asStaff().header("If-Match", etag(bikeId)).delete("/bikes/" + bikeId).then().statusCode(204);
        asStaff().get("/bikes/" + bikeId).then().statusCode(404);
    }

    @Test
    void aRentedBikeCannotBeDeleted() {
        String bikeId = unique("b");
        create(bikeId, "harbour", 0);
        asStaff().contentType(ContentType.JSON).body(rentBody("c-1")).post("/bikes/" + bikeId + "/rent").then().statusCode(200);

        asStaff().header("If-Match", etag(bikeId)).delete("/bikes/" + bikeId)
                .then().statusCode(409).contentType("application/problem+json").body("reason", is("BIKE_RENTED"));
        asStaff().get("/bikes/" + bikeId).then().statusCode(200).body("status", is("RENTED")).body("rentedBy", is("c-1"));

        asStaff().contentType(ContentType.JSON).body("{\"customerId\":\"c-1\",\"station\":\"harbour\"}")
                .post("/bikes/" + bikeId + "/return").then().statusCode(200);
        asStaff().header("If-Match", etag(bikeId)).delete("/bikes/" + bikeId).then().statusCode(204);
    }

    @Test
    void aTagOfADeletedBikeNeverMatchesTheBikeCreatedAgainUnderItsId() {
        String bikeId = unique("b");
        create(bikeId, "harbour", 0);
        String old = etag(bikeId);
        asStaff().header("If-Match", old).delete("/bikes/" + bikeId).then().statusCode(204);
        create(bikeId, "harbour", 0);

        asStaff().get("/bikes/" + bikeId).then().statusCode(200).body("version", is(1))
                .header("ETag", not(is(old)));
        asStaff().header("If-None-Match", old).get("/bikes/" + bikeId).then().statusCode(200);
        asStaff().contentType(ContentType.JSON).header("If-Match", old).body("{\"note\":\"meant for the old bike\"}")
                .patch("/bikes/" + bikeId).then().statusCode(412).body("reason", is("STALE_VERSION"));
        asStaff().header("If-Match", old).delete("/bikes/" + bikeId).then().statusCode(412);
        asStaff().get("/bikes/" + bikeId).then().statusCode(200).body("note", nullValue());
    }
}
