package dev.turnstile.booking;

import static dev.turnstile.identity.Tokens.as;
import static dev.turnstile.identity.Tokens.asCustomer;
import static dev.turnstile.identity.Tokens.asStaff;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.notNullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.turnstile.identity.Roles;
import dev.turnstile.identity.Tokens;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Who may do what on the booking routes: the passenger is the token's subject, elite status is the token's, a customer
 * sees and cancels only their own bookings, fares are put and audited by staff, and one account's attempts are limited.
 */
@QuarkusTest
class BookingAccessTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Inject
    Pool pool;

    // --- every route: anonymous 401, wrong role 403 ---

    @ParameterizedTest
    @CsvSource({ "POST,/bookings", "GET,", "PUT,", "GET,/audit", "GET,/booking", "DELETE,/booking" })
    void anAnonymousCallerIsAskedForABearerToken(String method, String suffix) {
        String flight = fare(5, 0);
        String bookingId = bookAs(Tokens.customer("owner"), flight, "{}").then().statusCode(201).extract().path("bookingId");
        send(given(), method, path(flight, bookingId, suffix))
                .then().statusCode(401).contentType("application/problem+json").header("WWW-Authenticate", is("Bearer"))
                .body("reason", is("UNAUTHENTICATED"));
        assertEquals(1, confirmed(flight), "an anonymous request changes nothing");
        assertEquals(4, seatsAvailable(flight));
    }

    @Test
    void aCustomerMayNotPutAFareOrReadItsAudit() {
        String flight = fare(5, 1);
        asCustomer("c-1").contentType(ContentType.JSON).body("{\"seats\":0}").put("/flights/" + flight + "/fares/Y")
                .then().statusCode(403).contentType("application/problem+json").body("reason", is("FORBIDDEN"));
        String unknown = "NEW-" + UUID.randomUUID();
        asCustomer("c-1").contentType(ContentType.JSON).body("{\"seats\":7}").put("/flights/" + unknown + "/fares/Y")
                .then().statusCode(403);
        asCustomer("c-1").get("/flights/" + flight + "/fares/Y/audit").then().statusCode(403).body("reason", is("FORBIDDEN"));

        asCustomer("c-1").get("/flights/" + flight + "/fares/Y").then().statusCode(200)
                .body("seatsTotal", is(5)).body("seatsAvailable", is(5)).body("eliteReserve", is(1));
        assertEquals(5L, query("SELECT seats_total FROM fares WHERE flight_id = $1", flight));
        assertEquals(0L, query("SELECT count(*) FROM fares WHERE flight_id = $1", unknown));
        asStaff().get("/flights/" + flight + "/fares/Y/audit").then().statusCode(200).body("consistent", is(true));
    }

    // --- the passenger is the token's subject ---

    @Test
    void thePassengerIsTheTokensSubjectAndMayBeLeftOut() {
        String flight = fare(5, 0);
        bookAs(Tokens.customer("c-self"), flight, "{}").then().statusCode(201).body("passengerId", is("c-self"));
        assertEquals(1L, query("SELECT count(*) FROM bookings WHERE flight_id = $1 AND passenger_id = 'c-self'", flight));
    }

    /**
     * Two accounts of the issuer that share a username (renamed, or a name given again after an account was deleted):
     * the passenger is the token's {@code sub}, which an issuer never reassigns, so neither sees the other's booking.
     */
    @Test
    void thePassengerIsTheSubjectNotTheUsername() {
        String flight = fare(5, 0);
        String first = Tokens.sign(Tokens.claims("c-sub-first", Set.of(Roles.CUSTOMER))
                .upn("shared-name").preferredUserName("shared-name"));
        String second = Tokens.sign(Tokens.claims("c-sub-second", Set.of(Roles.CUSTOMER))
                .upn("shared-name").preferredUserName("shared-name"));
        String bookingId = bookAs(first, flight, "{}").then().statusCode(201).body("passengerId", is("c-sub-first"))
                .extract().path("bookingId");
        as(second).get("/bookings/" + bookingId).then().statusCode(404);
        as(second).delete("/bookings/" + bookingId).then().statusCode(404);
        assertEquals(1, confirmed(flight));
        bookAs(second, flight, "{\"passengerId\":\"c-sub-second\"}").then().statusCode(201).body("passengerId", is("c-sub-second"));
    }

    @Test
    void staffBookForAPassengerWhoseSubjectHasAnIssuersPrefix() {
        String flight = fare(5, 0);
        String passenger = "google-oauth2|104758392011";
        String bookingId = bookAs(Tokens.staff("agent-3"), flight, "{\"passengerId\":\"" + passenger + "\"}").then().statusCode(201)
                .body("passengerId", is(passenger)).extract().path("bookingId");
        asCustomer(passenger).get("/bookings/" + bookingId).then().statusCode(200).body("passengerId", is(passenger));
        bookAs(Tokens.customer("auth0|5f7c8ec7c33c6c004bbafe82"), flight, "{\"passengerId\":\"auth0|5f7c8ec7c33c6c004bbafe82\"}")
                .then().statusCode(201);
    }

    /** An account id is an OpenID Connect subject: 1-255 ASCII characters; control characters and edge spaces are refused. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"passengerId\":\"a\\u0001b\"}",
            "{\"passengerId\":\" lead\"}",
            "{\"passengerId\":\"caf\\u00e9\"}",
            "{\"passengerId\":\"\"}",
    })
    void aPassengerIdThatIsNoSubjectIsRefusedAndBooksNothing(String body) {
        String flight = fare(5, 0);
        bookAs(Tokens.staff("agent-4"), flight, body).then().statusCode(400).body("errors[0].field", is("passengerId"));
        assertEquals(0, confirmed(flight));
    }

    @Test
    void aPassengerIdPastTheSubjectsLimitIsRefusedAndBooksNothing() {
        String flight = fare(5, 0);
        bookAs(Tokens.staff("agent-4"), flight, "{\"passengerId\":\"" + "p".repeat(256) + "\"}").then().statusCode(400)
                .body("errors[0].field", is("passengerId"));
        assertEquals(0, confirmed(flight));
    }

    @Test
    void aCustomerNamingAnotherPassengerIsRefusedAndBooksNothing() {
        String flight = fare(5, 0);
        bookAs(Tokens.customer("c-mallory"), flight, "{\"passengerId\":\"c-victim\"}")
                .then().statusCode(403).contentType("application/problem+json").body("reason", is("NOT_YOUR_ACCOUNT"));
        assertEquals(0, confirmed(flight));
        assertEquals(5, seatsAvailable(flight));
    }

    @Test
    void staffBookForTheNamedPassenger() {
        String flight = fare(5, 0);
        String bookingId = bookAs(Tokens.staff("agent-1"), flight, "{\"passengerId\":\"c-phoned\"}").then().statusCode(201)
                .body("passengerId", is("c-phoned")).extract().path("bookingId");
        asCustomer("c-phoned").get("/bookings/" + bookingId).then().statusCode(200).body("passengerId", is("c-phoned"));
    }

    // --- elite comes from the token, or from staff ---

    @Test
    void aBodyClaimingEliteFromANonEliteCustomerBooksOutsideTheReserveOnly() {
        String flight = fare(2, 1);
        bookAs(Tokens.customer("c-claims-1"), flight, "{\"elite\":true}").then().statusCode(201).body("elite", is(false));
        bookAs(Tokens.customer("c-claims-2"), flight, "{\"elite\":true}")
                .then().statusCode(409).body("reason", is("ELITE_RESERVE"));
        assertEquals(1L, query("SELECT count(*) FROM bookings WHERE flight_id = $1 AND NOT elite", flight));
        assertEquals(1, seatsAvailable(flight), "the reserved seat is still there");

        bookAs(Tokens.eliteCustomer("c-gold"), flight, "{}").then().statusCode(201).body("elite", is(true));
        assertEquals(0, seatsAvailable(flight));
    }

    @Test
    void anEliteCustomerSendingEliteFalseIsStillElite() {
        String flight = fare(1, 1);
        bookAs(Tokens.eliteCustomer("c-gold-quiet"), flight, "{\"elite\":false}").then().statusCode(201).body("elite", is(true));
    }

    @Test
    void staffStateTheElitenessOfThePassengerTheyBookFor() {
        String flight = fare(1, 1);
        bookAs(Tokens.staff("agent-2"), flight, "{\"passengerId\":\"c-vip\"}")
                .then().statusCode(409).body("reason", is("ELITE_RESERVE"));
        bookAs(Tokens.staff("agent-2"), flight, "{\"passengerId\":\"c-vip\",\"elite\":true}")
                .then().statusCode(201).body("elite", is(true)).body("passengerId", is("c-vip"));
    }

    // --- another customer's booking: as if it did not exist ---

    @Test
    void anotherCustomersBookingReadsAsAMissingOne() {
        String flight = fare(5, 0);
        String bookingId = bookAs(Tokens.customer("c-alice"), flight, "{}").then().statusCode(201).extract().path("bookingId");
        String missing = UUID.randomUUID().toString();

        Response theirs = asCustomer("c-bob").get("/bookings/" + bookingId);
        Response none = asCustomer("c-bob").get("/bookings/" + missing);
        theirs.then().statusCode(404).contentType("application/problem+json").body("reason", is("BOOKING_NOT_FOUND"));
        assertEquals(none.statusCode(), theirs.statusCode());
        assertEquals(none.asString().replace(missing, "ID"), theirs.asString().replace(bookingId, "ID"),
                "no oracle: the answer for someone else's booking is the answer for a missing one");

        asCustomer("c-alice").get("/bookings/" + bookingId).then().statusCode(200).body("passengerId", is("c-alice"));
        asStaff().get("/bookings/" + bookingId).then().statusCode(200).body("passengerId", is("c-alice"));
    }

    @Test
    void anotherCustomersCancelIsA404AndChangesNothing() {
        String flight = fare(5, 0);
        String bookingId = bookAs(Tokens.customer("c-carol"), flight, "{}").then().statusCode(201).extract().path("bookingId");

        asCustomer("c-dave").delete("/bookings/" + bookingId)
                .then().statusCode(404).contentType("application/problem+json").body("reason", is("BOOKING_NOT_FOUND"));
        asCustomer("c-dave").header("Idempotency-Key", "k-" + UUID.randomUUID()).delete("/bookings/" + bookingId)
                .then().statusCode(404).body("reason", is("BOOKING_NOT_FOUND"));

        assertEquals(1L, query("SELECT count(*) FROM bookings WHERE id = $1::uuid AND status = 'CONFIRMED'", bookingId));
        asStaff().get("/bookings/" + bookingId).then().statusCode(200).body("status", is("CONFIRMED"));
        asStaff().get("/flights/" + flight + "/fares/Y/audit").then().statusCode(200)
                .body("consistent", is(true)).body("seatsAvailable", is(4)).body("confirmedBookings", is(1));

        asStaff().delete("/bookings/" + bookingId).then().statusCode(204);
        asStaff().get("/bookings/" + bookingId).then().body("status", is("CANCELLED"));
        assertEquals(5, seatsAvailable(flight));
    }

    // --- abuse limit ---

    @Test
    void sixtyRapidAttemptsOfOneCustomerMeetTheLimitAndTheRefusedOnesBookNothing() {
        String passenger = "c-hammer-" + UUID.randomUUID();
        List<String> flights = IntStream.range(0, 60).mapToObj(i -> fare(5, 0)).toList();
        BookingClient client = new BookingClient();
        client.mintTokens(List.of(passenger), false);

        List<CompletableFuture<BookingClient.Answer>> sent = flights.stream()
                .map(flight -> client.book(flight, "Y", "atomic", passenger, false, null)).toList();
        List<BookingClient.Answer> answers = sent.stream().map(CompletableFuture::join).toList();

        long booked = answers.stream().filter(a -> a.status() == 201).count();
        List<Integer> limited = IntStream.range(0, answers.size()).filter(i -> answers.get(i).status() == 429).boxed().toList();
        assertFalse(limited.isEmpty(), "60 attempts at once must meet the limit of 20 per second");
        assertEquals(60, booked + limited.size(), answers.toString());
        limited.forEach(i -> assertEquals("TOO_MANY_ATTEMPTS", answers.get(i).reason()));
        assertEquals(booked, query("SELECT count(*) FROM bookings WHERE passenger_id = $1", passenger),
                "only the admitted attempts booked");
        for (int i : limited) {
            assertEquals(0, confirmed(flights.get(i)), "a refused attempt took no seat");
        }
    }

    @Test
    void aLimitedAttemptCarriesRetryAfter() {
        String passenger = "c-eager-" + UUID.randomUUID();
        String flight = fare(5, 0);
        String token = Tokens.customer(passenger);
        Response refused = null;
        for (int i = 0; i < 60 && refused == null; i++) {
            Response answer = bookAs(token, flight, "{}");
            if (answer.statusCode() == 429) {
                refused = answer;
            }
        }
        assertTrue(refused != null, "60 sequential attempts within a few seconds meet the limit");
        refused.then().contentType("application/problem+json").header("Retry-After", is("1"))
                .body("reason", is("TOO_MANY_ATTEMPTS")).body("status", is(429)).body("detail", notNullValue());
        assertEquals(1L, query("SELECT count(*) FROM bookings WHERE passenger_id = $1", passenger));
    }

    private String fare(int seats, int eliteReserve) {
        String flight = "ACCESS-" + UUID.randomUUID();
        asStaff().contentType(ContentType.JSON).body("{\"seats\":" + seats + ",\"eliteReserve\":" + eliteReserve + "}")
                .put("/flights/" + flight + "/fares/Y").then().statusCode(201);
        return flight;
    }

    private static Response bookAs(String token, String flight, String body) {
        return as(token).contentType(ContentType.JSON).body(body).post("/flights/" + flight + "/fares/Y/bookings?strategy=atomic");
    }

    private static String path(String flight, String bookingId, String suffix) {
        String fare = "/flights/" + flight + "/fares/Y";
        return switch (suffix == null ? "" : suffix) {
            case "/booking" -> "/bookings/" + bookingId;
            case "" -> fare;
            default -> fare + suffix;
        };
    }

    private static Response send(RequestSpecification request, String method, String path) {
        return switch (method) {
            case "POST" -> request.contentType(ContentType.JSON).body("{}").post(path);
            case "PUT" -> request.contentType(ContentType.JSON).body("{\"seats\":0}").put(path);
            case "DELETE" -> request.delete(path);
            default -> request.get(path);
        };
    }

    private int confirmed(String flight) {
        return (int) query("SELECT count(*) FROM bookings WHERE flight_id = $1 AND status = 'CONFIRMED'", flight);
    }

    private int seatsAvailable(String flight) {
        JsonPath audit = asStaff().get("/flights/" + flight + "/fares/Y/audit").then().statusCode(200).extract().jsonPath();
        return audit.getInt("seatsAvailable");
    }

    private long query(String sql, String argument) {
        return ((Number) pool.preparedQuery(sql).execute(Tuple.of(argument)).await().atMost(TIMEOUT).iterator().next().getValue(0)).longValue();
    }
}
