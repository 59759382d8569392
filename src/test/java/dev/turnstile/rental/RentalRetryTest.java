package dev.turnstile.rental;

import static dev.turnstile.identity.Tokens.asCustomer;
import static dev.turnstile.identity.Tokens.asStaff;
import static dev.turnstile.rental.RentalHttp.unique;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.turnstile.Management;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * Retries, counted: a real concurrent writer changes the bike after each of the service's reads (see
 * {@link ContendedBikeRepository}), and the test counts the reads and the metrics at /q/metrics: the service's
 * conflict counter, and SmallRye Fault Tolerance's own retry metrics of the guarded method.
 */
@QuarkusTest
class RentalRetryTest {

    private static final String CONFLICTS = "turnstile_rental_version_conflicts_total";
    private static final String GUARDED = "method=\"dev.turnstile.rental.RentalService.readDecideWrite\"";
    /** Attempts repeated after a version conflict. */
    private static final String RETRIES = "ft_retry_retries_total{" + GUARDED + "}";
    /** Calls answered 409 VERSION_CONFLICT because every attempt lost a race. */
    private static final String EXHAUSTED = "ft_retry_calls_total{" + GUARDED + ",retried=\"true\",retryResult=\"maxRetriesReached\"}";

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

        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-1")).post("/bikes/" + bikeId + "/rent")
                .then().statusCode(200).body("rentedBy", is("c-1")).body("ridesSinceService", is(5))
                .body("version", is(3));

        assertEquals(2, repository.reads(bikeId), "the second attempt must read again");
        assertEquals(conflicts + 1, metric(CONFLICTS));
        assertEquals(retries + 1, metric(RETRIES));
        assertEquals(exhausted, metric(EXHAUSTED));
    }

    @Test
    void theBikeInAConflictAnswerHidesWhoWonTheRaceFromAnotherCustomer() {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 0);
        repository.contendAndRentTo(bikeId, 3, "c-winner");

        asCustomer("c-loser").contentType(ContentType.JSON).body("{}").post("/bikes/" + bikeId + "/rent")
                .then().statusCode(409).body("reason", is("VERSION_CONFLICT"))
                .body("current.status", is("RENTED")).body("current", not(hasKey("rentedBy")));

        asStaff().get("/bikes/" + bikeId).then().body("rentedBy", is("c-winner"));
    }

    @Test
    void threeLostRacesExhaustTheRetriesAnd409VersionConflict() {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 4);
        repository.contend(bikeId, 3);
        double conflicts = metric(CONFLICTS);
        double retries = metric(RETRIES);
        double exhausted = metric(EXHAUSTED);

        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-1")).post("/bikes/" + bikeId + "/rent")
                .then().statusCode(409).contentType("application/problem+json")
                .body("reason", is("VERSION_CONFLICT")).body("current.version", is(4));

        assertEquals(3, repository.reads(bikeId), "3 attempts by default, each reading again");
        assertEquals(conflicts + 3, metric(CONFLICTS));
        assertEquals(retries + 2, metric(RETRIES));
        assertEquals(exhausted + 1, metric(EXHAUSTED));
        asStaff().get("/bikes/" + bikeId).then().body("status", is("AVAILABLE")).body("ridesSinceService", is(4))
                .body("version", is(4));
    }

    @Test
    void businessRejectionsAreNotRetried() {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 30);
        double retries = metric(RETRIES);

        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-1")).post("/bikes/" + bikeId + "/rent")
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

        asStaff().contentType(ContentType.JSON).header("If-Match", seen).body("{\"note\":\"edit\"}")
                .patch("/bikes/" + bikeId)
                .then().statusCode(412).body("reason", is("STALE_VERSION")).body("current.version", is(2));

        assertEquals(reads + 1, repository.reads(bikeId));
        assertEquals(retries, metric(RETRIES));
        assertEquals(conflicts + 1, metric(CONFLICTS));
        asStaff().get("/bikes/" + bikeId).then().body("note", is((String) null));
    }

    @Test
    void theCountersArePublishedAtQMetrics() {
        assertTrue(Pattern.compile("(?m)^" + CONFLICTS + "(\\{[^}]*\\})? ").matcher(metrics()).find(),
                CONFLICTS + " is published before the first conflict");
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 0);
        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-1")).post("/bikes/" + bikeId + "/rent")
                .then().statusCode(200);
        String metrics = metrics();
        assertTrue(metrics.contains("ft_retry_retries_total{" + GUARDED), "FT's retry metrics of readDecideWrite are published:\n" + metrics);
    }

    /**
     * The value of {@code name} (a metric name with the labels it must carry, in Prometheus' order), summed over its
     * other labels; 0 when no series has been written yet. A sample may end in an exemplar (" # {trace_id=...} ..."),
     * which the registry adds while tracing is on.
     */
    static double metric(String name) {
        int brace = name.indexOf('{');
        String metric = brace < 0 ? name : name.substring(0, brace);
        List<String> labels = brace < 0 ? List.of() : List.of(name.substring(brace + 1, name.length() - 1).split(","));
        Matcher series = Pattern.compile("(?m)^" + Pattern.quote(metric) + "(\\{[^}]*\\})? ([0-9.eE+-]+)( # .*)?$").matcher(metrics());
        double sum = 0;
        while (series.find()) {
            String found = series.group(1) == null ? "" : series.group(1);
            if (labels.stream().allMatch(found::contains)) {
                sum += Double.parseDouble(series.group(2));
            }
        }
        return sum;
    }

    private static String metrics() {
        return Management.given().get("/q/metrics").then().statusCode(200).extract().asString();
    }
}
