package dev.turnstile.booking;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * A fare reset honours If-Match and If-None-Match (RFC 9110 13.1): a staff tool that read the fare, or that only
 * means to create one, never overwrites a change it did not see. The fare's ETag moves with every booking, cancel and
 * reset, so a reset guarded by an old ETag is refused once anything changed.
 */
@QuarkusTest
class FarePreconditionsTest {

    private static final String FARE = "/flights/{flight}/fares/Y";

    @Test
    void aResetUnderAnOldEtagIsRefusedAndChangesNothing() {
        String flight = flight();
        String seen = put(flight, 10, null, null).then().statusCode(201).extract().header("ETag");
        put(flight, 12, null, null).then().statusCode(200);

        put(flight, 20, seen, null).then().statusCode(412).contentType("application/problem+json")
                .body("reason", is("STALE_VERSION"));
        asStaff().get(FARE, flight).then().statusCode(200).body("seatsTotal", is(12));
    }

    @Test
    void aBookingMovesTheEtagSoAResetReadBeforeItIsRefused() {
        String flight = flight();
        String seen = put(flight, 10, null, null).then().statusCode(201).extract().header("ETag");
        asStaff().contentType("application/json").body("{\"passengerId\":\"pre-1\"}")
                .post(FARE + "/bookings", flight).then().statusCode(201);

        put(flight, 3, seen, null).then().statusCode(412).body("reason", is("STALE_VERSION"));
        asStaff().get(FARE, flight).then().statusCode(200).body("seatsTotal", is(10)).body("seatsAvailable", is(9));
    }

    @Test
    void aResetUnderTheCurrentEtagOrAnyEtagIsApplied() {
        String flight = flight();
        put(flight, 10, null, null).then().statusCode(201);
        String current = asStaff().get(FARE, flight).then().statusCode(200).extract().header("ETag");

        String next = put(flight, 15, current, null).then().statusCode(200).body("seatsTotal", is(15)).extract().header("ETag");
        put(flight, 16, "\"0.0\", " + next, null).then().statusCode(200).body("seatsTotal", is(16));
        put(flight, 17, "*", null).then().statusCode(200).body("seatsTotal", is(17));
    }

    @Test
    void ifMatchOnAFareThatDoesNotExistCreatesNothing() {
        String flight = flight();
        put(flight, 10, "*", null).then().statusCode(412).body("reason", is("STALE_VERSION"));
        put(flight, 10, "\"1.1\"", null).then().statusCode(412);
        asStaff().get(FARE, flight).then().statusCode(404);
    }

    @Test
    void ifNoneMatchStarCreatesOnlyAndNeverResets() {
        String flight = flight();
        put(flight, 10, null, "*").then().statusCode(201).body("seatsTotal", is(10));
        put(flight, 99, null, "*").then().statusCode(412).body("reason", is("STALE_VERSION"));
        asStaff().get(FARE, flight).then().statusCode(200).body("seatsTotal", is(10));
    }

    /** Eight staff tools reset the same fare from the same read at once: exactly one wins, the others see 412. */
    @Test
    void concurrentResetsFromOneReadApplyExactlyOnce() {
        String flight = flight();
        String seen = put(flight, 10, null, null).then().statusCode(201).extract().header("ETag");

        List<CompletableFuture<Integer>> resets = IntStream.range(0, 8)
                .mapToObj(i -> CompletableFuture.supplyAsync(() -> put(flight, 20 + i, seen, null).statusCode())).toList();
        List<Integer> statuses = resets.stream().map(CompletableFuture::join).toList();

        assertEquals(1, statuses.stream().filter(s -> s == 200).count(), statuses.toString());
        assertEquals(7, statuses.stream().filter(s -> s == 412).count(), statuses.toString());
        int total = asStaff().get(FARE, flight).then().statusCode(200).extract().path("seatsTotal");
        assertEquals(1, IntStream.range(0, 8).filter(i -> total == 20 + i).count(), "seatsTotal " + total);
    }

    private static Response put(String flight, int seats, String ifMatch, String ifNoneMatch) {
        var request = asStaff().contentType("application/json").body("{\"seats\":" + seats + "}");
        if (ifMatch != null) {
            request.header("If-Match", ifMatch);
        }
        if (ifNoneMatch != null) {
            request.header("If-None-Match", ifNoneMatch);
        }
        return request.put(FARE, flight);
    }

    private static String flight() {
        return "PRE-" + UUID.randomUUID();
    }
}
