package dev.turnstile.booking;

import static dev.turnstile.identity.Tokens.as;
import static dev.turnstile.identity.Tokens.asCustomer;
import static dev.turnstile.identity.Tokens.asStaff;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.time.Duration;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import dev.turnstile.identity.Tokens;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;

@QuarkusTest
class BookingApiTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Inject
    Pool pool;

    // --- bad input: 400 naming the field, and nothing written ---

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"seats\":-1}|seats",
            "{\"seats\":\"ten\"}|seats",
            "{\"seats\":\"10\"}|seats",
            "{\"seats\":5,\"shards\":1.5}|shards",
            "{\"seats\":5,\"eliteReserve\":true}|eliteReserve",
            "{\"eliteReserve\":1}|seats",
            "{\"seats\":5,\"shards\":0}|shards",
            "{\"seats\":5,\"shards\":65}|shards",
            "{\"seats\":5,\"eliteReserve\":-1}|eliteReserve",
            "{\"seats\":5,\"eliteReserve\":6}|eliteReserve",
    })
    void badFareBodiesAreRejectedByField(String body, String field) {
        String flight = "BAD-" + UUID.randomUUID();
        asStaff().contentType("application/json").body(body).put("/flights/" + flight + "/fares/Y")
                .then().statusCode(400).contentType("application/problem+json")
                .body("reason", is("INVALID_REQUEST")).body("errors.field", hasItem(field));
        asStaff().get("/flights/" + flight + "/fares/Y").then().statusCode(404);
    }

    @Test
    void badFarePathsBodiesAndJsonAreRejected() {
        asStaff().contentType("application/json").body("{\"seats\":5}").put("/flights/bad flight!/fares/Y")
                .then().statusCode(400).body("errors.field", hasItem("flightId"));
        asStaff().contentType("application/json").body("{\"seats\":5}").put("/flights/OK-1/fares/TOOLONGCLASS")
                .then().statusCode(400).body("errors.field", hasItem("fareClass"));
        String flight = "BAD-" + UUID.randomUUID();
        asStaff().contentType("application/json").put("/flights/" + flight + "/fares/Y")
                .then().statusCode(400).body("errors.field", hasItem("fare"));
        asStaff().contentType("application/json").body("{\"seats\":").put("/flights/" + flight + "/fares/Y")
                .then().statusCode(400).body("reason", is("MALFORMED_JSON"));
        asStaff().get("/flights/" + flight + "/fares/Y").then().statusCode(404);
        asStaff().get("/flights/bad flight!/fares/Y/audit").then().statusCode(400).body("errors.field", hasItem("flightId"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "|{\"passengerId\":\"\"}|passengerId",
            "|{\"passengerId\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}|passengerId",
            "|{\"passengerId\":\"a\",\"elite\":\"yes\"}|elite",
            "|{\"passengerId\":[1]}|passengerId",
            "?strategy=fastest|{\"passengerId\":\"a\"}|strategy",
            "?strategy=a%20b|{\"passengerId\":\"a\"}|strategy",
    })
    void badBookingRequestsAreRejectedByFieldAndBookNothing(String query, String body, String field) {
        String flight = fare(5, 0, 1);
        asStaff().contentType("application/json").body(body).post("/flights/" + flight + "/fares/Y/bookings" + (query == null ? "" : query))
                .then().statusCode(400).contentType("application/problem+json").body("errors.field", hasItem(field));
        assertNothingBooked(flight, 5);
    }

    @Test
    void badBookingHeadersBodiesAndIdsAreRejected() {
        String flight = fare(5, 0, 1);
        asStaff().contentType("application/json").header("Idempotency-Key", "k".repeat(300)).body("{\"passengerId\":\"a\"}")
                .post("/flights/" + flight + "/fares/Y/bookings").then().statusCode(400).body("errors.field", hasItem("Idempotency-Key"));
        asStaff().contentType("application/json").post("/flights/" + flight + "/fares/Y/bookings")
                .then().statusCode(400).body("errors.field", hasItem("booking"));
        asStaff().contentType("application/json").body("{passengerId: a}").post("/flights/" + flight + "/fares/Y/bookings")
                .then().statusCode(400).body("reason", is("MALFORMED_JSON"));
        assertNothingBooked(flight, 5);
        asStaff().get("/bookings/not-a-uuid").then().statusCode(400).body("errors.field", hasItem("bookingId"));
        asStaff().delete("/bookings/not-a-uuid").then().statusCode(400).body("errors.field", hasItem("bookingId"));
    }

    // --- behaviour ---

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void bookingAnUnknownFareIs404(Strategy strategy) {
        asStaff().contentType("application/json").body("{\"passengerId\":\"a\"}")
                .post("/flights/NOPE-" + UUID.randomUUID() + "/fares/Y/bookings?strategy=" + strategy.label())
                .then().statusCode(404).body("reason", is("FARE_NOT_FOUND"));
    }

    @Test
    void anEmptyStrategyIsTheDefault() {
        String flight = fare(5, 0, 1);
        asStaff().contentType("application/json").body("{\"passengerId\":\"a\"}")
                .post("/flights/" + flight + "/fares/Y/bookings?strategy=").then().statusCode(201);
    }

    @Test
    void unknownFaresAndBookingsAre404() {
        asStaff().get("/flights/NOPE-" + UUID.randomUUID() + "/fares/Y").then().statusCode(404).body("reason", is("FARE_NOT_FOUND"));
        asStaff().get("/flights/NOPE-" + UUID.randomUUID() + "/fares/Y/audit").then().statusCode(404);
        asStaff().get("/bookings/" + UUID.randomUUID()).then().statusCode(404).body("reason", is("BOOKING_NOT_FOUND"));
        asStaff().delete("/bookings/" + UUID.randomUUID()).then().statusCode(404).body("reason", is("BOOKING_NOT_FOUND"));
    }

    @Test
    void cancelGivesTheSeatBackOnceAndIsIdempotent() {
        String flight = fare(3, 0, 1);
        String bookingId = book(flight, "atomic", "alice", false).statusCode(201)
                .body("status", is("CONFIRMED")).extract().path("bookingId");
        asCustomer("alice").get("/bookings/" + bookingId).then().statusCode(200).body("passengerId", is("alice")).body("flightId", is(flight));

        asCustomer("alice").delete("/bookings/" + bookingId).then().statusCode(204);
        asCustomer("alice").delete("/bookings/" + bookingId).then().statusCode(204);

        asCustomer("alice").get("/bookings/" + bookingId).then().body("status", is("CANCELLED"));
        asStaff().get("/flights/" + flight + "/fares/Y").then().body("seatsAvailable", is(3)).body("booked", is(0));
        asStaff().get("/flights/" + flight + "/fares/Y/audit").then().body("consistent", is(true));
    }

    @Test
    void fareCarriesAnEtagThatChangesWithEveryBooking() {
        String flight = fare(3, 1, 2);
        String etag = asStaff().get("/flights/" + flight + "/fares/Y").then().statusCode(200)
                .body("seatsTotal", is(3)).body("seatsAvailable", is(3)).body("booked", is(0)).body("eliteReserve", is(1))
                .body("shards", is(2)).body("version", notNullValue()).header("ETag", startsWith("\""))
                .extract().header("ETag");
        asStaff().header("If-None-Match", etag).get("/flights/" + flight + "/fares/Y").then().statusCode(304);

        book(flight, "pessimistic", "alice", false).statusCode(201);

        String after = asStaff().header("If-None-Match", etag).get("/flights/" + flight + "/fares/Y").then().statusCode(200)
                .body("seatsAvailable", is(2)).body("booked", is(1)).extract().header("ETag");
        assertNotEquals(etag, after);
    }

    @Test
    void reservedSeatsAreForEliteOnlyAndSoldOutIsFinal() {
        String flight = fare(2, 1, 1);
        book(flight, "atomic", "a", false).statusCode(201);
        book(flight, "atomic", "b", false).statusCode(409).body("reason", is("ELITE_RESERVE"));
        book(flight, "optimistic", "c", false).statusCode(409).body("reason", is("ELITE_RESERVE"));
        book(flight, "atomic", "gold", true).statusCode(201);
        book(flight, "atomic", "gold2", true).statusCode(409).body("reason", is("SOLD_OUT"));
    }

    @Test
    void resetKeepsConfirmedBookingsAndRefusesFewerSeatsThanBooked() {
        String flight = fare(5, 0, 1);
        book(flight, "atomic", "a", false).statusCode(201);
        book(flight, "atomic", "b", false).statusCode(201);

        asStaff().contentType("application/json").body("{\"seats\":10,\"shards\":4}").put("/flights/" + flight + "/fares/Y")
                .then().statusCode(200).body("seatsTotal", is(10)).body("seatsAvailable", is(8)).body("booked", is(2)).body("shards", is(4));
        asStaff().contentType("application/json").body("{\"seats\":1}").put("/flights/" + flight + "/fares/Y")
                .then().statusCode(409).body("reason", is("SEATS_BELOW_BOOKED"));
        asStaff().get("/flights/" + flight + "/fares/Y/audit").then().body("consistent", is(true)).body("seatsTotal", is(10));
    }

    private String fare(int seats, int eliteReserve, int shards) {
        String flight = "API-" + UUID.randomUUID();
        asStaff().contentType("application/json")
                .body("{\"seats\":" + seats + ",\"eliteReserve\":" + eliteReserve + ",\"shards\":" + shards + "}")
                .put("/flights/" + flight + "/fares/Y").then().statusCode(201);
        return flight;
    }

    private static ValidatableResponse book(String flight, String strategy, String passenger, boolean elite) {
        return as(elite ? Tokens.eliteCustomer(passenger) : Tokens.customer(passenger)).contentType("application/json")
                .body("{\"passengerId\":\"" + passenger + "\",\"elite\":" + elite + "}")
                .post("/flights/" + flight + "/fares/Y/bookings?strategy=" + strategy).then();
    }

    private void assertNothingBooked(String flight, int seats) {
        long bookings = pool.preparedQuery("SELECT count(*) FROM bookings WHERE flight_id = $1").execute(Tuple.of(flight))
                .await().atMost(TIMEOUT).iterator().next().getLong(0);
        assertEquals(0, bookings);
        asStaff().get("/flights/" + flight + "/fares/Y").then().body("seatsAvailable", is(seats));
    }
}
