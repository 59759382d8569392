package dev.turnstile.rental;

import static dev.turnstile.identity.Tokens.asStaff;
import static dev.turnstile.rental.RentalHttp.unique;
import static org.hamcrest.Matchers.anyOf;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;

/**
 * Bad input on every route: a 4xx problem that names the field, and the stored bike exactly as before (no write).
 */
@QuarkusTest
class BikeBadInputTest {

    private static final String HUGE = "x".repeat(70_000);

    private String bikeId;
    private Map<String, Object> before;

    @BeforeEach
    void aRentedBike() {
        bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 3);
        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-1")).post("/bikes/" + bikeId + "/rent")
                .then().statusCode(200);
        before = stored();
    }

    private Map<String, Object> stored() {
        return asStaff().get("/bikes/" + bikeId).then().statusCode(200).extract().jsonPath().getMap("");
    }

    private static RequestSpecification json(String body) {
        return asStaff().contentType(ContentType.JSON).body(body);
    }

    private void rejected(io.restassured.response.Response response, String field) {
        response.then().log().ifValidationFails().statusCode(400).contentType("application/problem+json")
                .body("status", is(400))
                .body("reason", anyOf(is("INVALID_REQUEST"), is("MALFORMED_JSON")))
                .body("detail", containsString(field));
        assertEquals(before, stored(), "a rejected request must not write");
    }

    private void malformed(io.restassured.response.Response response) {
        response.then().statusCode(400).contentType("application/problem+json").body("reason", is("MALFORMED_JSON"));
        assertEquals(before, stored());
    }

    private void tooLarge(io.restassured.response.Response response) {
        response.then().statusCode(413);
        assertEquals(before, stored());
    }

    @Test
    void createBike() {
        String fresh = unique("b");
        malformed(json("{\"bikeId\":\"" + fresh + "\",").post("/bikes"));
        rejected(json("{\"bikeId\":\"" + fresh + "\",\"station\":\"s\",\"ridesSinceService\":\"many\"}").post("/bikes"), "ridesSinceService");
        rejected(json("{\"bikeId\":\"" + fresh + "\",\"station\":\"s\",\"ridesSinceService\":\"3\"}").post("/bikes"), "ridesSinceService");
        rejected(json("{\"bikeId\":\"" + fresh + "\",\"station\":\"s\",\"ridesSinceService\":2.5}").post("/bikes"), "ridesSinceService");
        rejected(json("{\"bikeId\":{\"id\":1},\"station\":\"s\"}").post("/bikes"), "bikeId");
        rejected(json("{\"bikeId\":\"" + fresh + "\"}").post("/bikes"), "station");
        rejected(json("{\"bikeId\":\"  \",\"station\":\"s\"}").post("/bikes"), "bikeId");
        rejected(json("{\"bikeId\":\"has space\",\"station\":\"s\"}").post("/bikes"), "bikeId");
        rejected(json("{\"bikeId\":\"" + fresh + "\",\"station\":\"s\",\"ridesSinceService\":-1}").post("/bikes"), "ridesSinceService");
        rejected(json("{\"bikeId\":\"" + fresh + "\",\"station\":\"s\",\"status\":\"BROKEN\"}").post("/bikes"), "status");
        rejected(json("{\"bikeId\":\"" + fresh + "\",\"station\":\"s\",\"status\":\"RENTED\"}").post("/bikes"), "status");
        rejected(json("{\"bikeId\":\"" + fresh + "\",\"station\":\"" + "s".repeat(65) + "\"}").post("/bikes"), "station");
        rejected(json("").post("/bikes"), "body");
        tooLarge(json("{\"bikeId\":\"" + fresh + "\",\"station\":\"" + HUGE + "\"}").post("/bikes"));
        asStaff().get("/bikes/" + fresh).then().statusCode(404);
        rejected(json("{\"bikeId\":\"" + bikeId + "\",\"station\":\"airport\",\"ridesSinceService\":0,\"status\":\"MAINTENANCE \"}").post("/bikes"), "status");
    }

    @Test
    void getAndList() {
        rejected(asStaff().get("/bikes/" + "x".repeat(65)), "bikeId");
        rejected(asStaff().get("/bikes"), "station");
        rejected(asStaff().queryParam("station", " ").get("/bikes"), "station");
        rejected(asStaff().queryParam("station", "harbour").queryParam("status", "BROKEN").get("/bikes"), "status");
    }

    @Test
    void rent() {
        // an available bike: on the rented one a rent that got past the checks could not have written either
        bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 3);
        before = stored();
        String path = "/bikes/" + bikeId + "/rent";
        malformed(json("{\"customerId\":").post(path));
        rejected(json("{\"customerId\":[\"c-2\"]}").post(path), "customerId");
        rejected(json("{\"customerId\":\" \"}").post(path), "customerId");
        rejected(json("").post(path), "body");
        rejected(json(BikeApiTest.rentBody("c-2")).queryParam("mode", "fast").post(path), "mode");
        rejected(json(BikeApiTest.rentBody("c-2")).header("Idempotency-Key", "k".repeat(256)).post(path), "Idempotency-Key");
        // a client whose key came out empty, or that sent two, asked for a retry-safe rent: neither is one
        rejected(json(BikeApiTest.rentBody("c-2")).header("Idempotency-Key", "").post(path), "Idempotency-Key");
        rejected(json(BikeApiTest.rentBody("c-2")).header("Idempotency-Key", "k-1").header("Idempotency-Key", "k-2").post(path),
                "Idempotency-Key");
        rejected(json(BikeApiTest.rentBody("c-2")).header("Idempotency-Key", "k-1,k-2").post(path), "Idempotency-Key");
        rejected(json(BikeApiTest.rentBody("c-2")).post("/bikes/bad%20id/rent"), "bikeId");
        tooLarge(json("{\"customerId\":\"" + HUGE + "\"}").post(path));
    }

    @Test
    void anUnknownRentModeNamesTheParameterAndTheAllowedValues() {
        json(BikeApiTest.rentBody("c-2")).queryParam("mode", "fast").post("/bikes/" + bikeId + "/rent")
                .then().statusCode(400).contentType("application/problem+json")
                .body("reason", is("INVALID_REQUEST"))
                .body("errors[0].field", is("mode"))
                .body("errors[0].message", is("must be one of [condition, read-decide-write]"))
                .body("allowed", contains("condition", "read-decide-write"));
        assertEquals(before, stored());
    }

    @Test
    void anUnknownStatusFilterNamesTheParameterAndTheAllowedValues() {
        asStaff().queryParam("station", "harbour").queryParam("status", "available").get("/bikes")
                .then().statusCode(400).contentType("application/problem+json")
                .body("reason", is("INVALID_REQUEST"))
                .body("errors[0].field", is("status"))
                .body("allowed", contains("AVAILABLE", "RENTED", "MAINTENANCE"));
    }

    @Test
    void giveBack() {
        String path = "/bikes/" + bikeId + "/return";
        malformed(json("{\"customerId\":\"c-1\",\"station\"").post(path));
        rejected(json("{\"customerId\":\"c-1\"}").post(path), "station");
        rejected(json("{\"customerId\":\"c-1\",\"station\":{}}").post(path), "station");
        rejected(json("{\"customerId\":\"\",\"station\":\"airport\"}").post(path), "customerId");
        rejected(json("").post(path), "body");
        tooLarge(json("{\"customerId\":\"c-1\",\"station\":\"" + HUGE + "\"}").post(path));
    }

    @Test
    void service() {
        rejected(asStaff().post("/bikes/" + "b".repeat(65) + "/service"), "bikeId");
    }

    @Test
    void patchNote() {
        String path = "/bikes/" + bikeId;
        String current = "\"" + before.get("version") + "\"";
        malformed(json("{\"note\":").header("If-Match", current).patch(path));
        rejected(json("{\"note\":[\"x\"]}").header("If-Match", current).patch(path), "note");
        rejected(json("{\"note\":\"  \"}").header("If-Match", current).patch(path), "note");
        rejected(json("{}").header("If-Match", current).patch(path), "note");
        rejected(json("{\"note\":\"" + "n".repeat(501) + "\"}").header("If-Match", current).patch(path), "note");
        rejected(json("").header("If-Match", current).patch(path), "body");
        tooLarge(json("{\"note\":\"" + HUGE + "\"}").header("If-Match", current).patch(path));
        json("{\"note\":\"ok\"}").header("If-Match", "not-a-tag").patch(path).then().statusCode(412);
        assertEquals(before, stored());
    }

    @Test
    void deleteBike() {
        rejected(asStaff().header("If-Match", "\"1\"").delete("/bikes/bad%20id"), "bikeId");
        asStaff().header("If-Match", "garbage").delete("/bikes/" + bikeId).then().statusCode(412);
        assertEquals(before, stored());
    }

    @Test
    void leaseAndRelease() {
        String path = "/bikes/" + bikeId + "/lease";
        malformed(json("{\"holder\":").post(path));
        rejected(json("{\"holder\":\"w\",\"ttlSeconds\":\"long\"}").post(path), "ttlSeconds");
        rejected(json("{\"holder\":\"w\",\"ttlSeconds\":0}").post(path), "ttlSeconds");
        rejected(json("{\"holder\":\"w\",\"ttlSeconds\":86401}").post(path), "ttlSeconds");
        rejected(json("{\"holder\":\"w\"}").post(path), "ttlSeconds");
        rejected(json("{\"holder\":\" \",\"ttlSeconds\":60}").post(path), "holder");
        rejected(json("").post(path), "body");
        tooLarge(json("{\"holder\":\"" + HUGE + "\",\"ttlSeconds\":60}").post(path));
        rejected(asStaff().delete(path), "Lease-Token");
        json("{\"holder\":\"w\",\"ttlSeconds\":60}").post(path).then().statusCode(201);
        json("{\"holder\":\"other\",\"ttlSeconds\":60}").post(path).then().statusCode(409).body("holder", is("w"));
    }
}
