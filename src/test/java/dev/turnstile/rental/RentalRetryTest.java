package dev.turnstile.rental;

import static dev.turnstile.rental.RentalHttp.unique;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * Retries, counted: a real concurrent writer changes the bike after each of the service's reads (see
 * {@link ContendedBikeRepository}), and the test counts the reads and the Micrometer counters at /q/metrics.
 */
@QuarkusTest
class RentalRetryTest {

    private static final String CONFLICTS = "turnstile_rental_version_conflicts_total";
    private static final String RETRIES = "turnstile_rental_retries_total";
    private static final String EXHAUSTED = "turnstile_rental_retries_exhausted_total";

    @Inject
    ContendedBikeRepository repository;

    @Test
    void aLostRaceIsRetriedWithAFreshReadAndSucceeds() {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 4);
        repository.contend(bikeId, 1);
        double conflicts = metric(CONFLICTS);
        double retries = metric(RETRIES);
        double exhausted = metric(EXHAUSTED);

        given().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-1")).post("/bikes/" + bikeId + "/rent")
                .then().statusCode(200).body("rentedBy", is("c-1")).body("ridesSinceService", is(5))
                .body("version", is(3));

        assertEquals(2, repository.reads(bikeId), "the second attempt must read again");
        assertEquals(conflicts + 1, metric(CONFLICTS));
        assertEquals(retries + 1, metric(RETRIES));
        assertEquals(exhausted, metric(EXHAUSTED));
    }

    @Test
    void threeLostRacesExhaustTheRetriesAnd409VersionConflict() {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 4);
        repository.contend(bikeId, 3);
        double conflicts = metric(CONFLICTS);
        double retries = metric(RETRIES);
        double exhausted = metric(EXHAUSTED);

        given().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-1")).post("/bikes/" + bikeId + "/rent")
                .then().statusCode(409).contentType("application/problem+json")
                .body("reason", is("VERSION_CONFLICT")).body("current.version", is(4));

        assertEquals(3, repository.reads(bikeId), "3 attempts by default, each reading again");
        assertEquals(conflicts + 3, metric(CONFLICTS));
        assertEquals(retries + 2, metric(RETRIES));
        assertEquals(exhausted + 1, metric(EXHAUSTED));
        given().get("/bikes/" + bikeId).then().body("status", is("AVAILABLE")).body("ridesSinceService", is(4))
                .body("version", is(4));
    }

    @Test
    void businessRejectionsAreNotRetried() {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 30);
        double retries = metric(RETRIES);

        given().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-1")).post("/bikes/" + bikeId + "/rent")
                .then().statusCode(409).body("reason", is("SERVICE_DUE"));

        assertEquals(1, repository.reads(bikeId));
        assertEquals(retries, metric(RETRIES));
    }

    @Test
    void humanEditsAreNeverRetried() {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 0);
        String seen = BikeApiTest.etag(bikeId);
        int reads = repository.reads(bikeId);
        repository.contend(bikeId, 1);
        double retries = metric(RETRIES);
        double conflicts = metric(CONFLICTS);

        given().contentType(ContentType.JSON).header("If-Match", seen).body("{\"note\":\"edit\"}")
                .patch("/bikes/" + bikeId)
                .then().statusCode(412).body("reason", is("STALE_VERSION")).body("current.version", is(2));

        assertEquals(reads + 1, repository.reads(bikeId));
        assertEquals(retries, metric(RETRIES));
        assertEquals(conflicts + 1, metric(CONFLICTS));
        given().get("/bikes/" + bikeId).then().body("note", is((String) null));
    }

    @Test
    void theCountersArePublishedAtQMetrics() {
        for (String name : new String[] { CONFLICTS, RETRIES, EXHAUSTED }) {
            assertTrue(metric(name) >= 0);
        }
    }

    static double metric(String name) {
        String metrics = given().get("/q/metrics").then().statusCode(200).extract().asString();
        Matcher value = Pattern.compile("(?m)^" + name + "(\\{[^}]*\\})? ([0-9.eE+-]+)$").matcher(metrics);
        assertTrue(value.find(), name + " missing from /q/metrics");
        return Double.parseDouble(value.group(2));
    }
}
