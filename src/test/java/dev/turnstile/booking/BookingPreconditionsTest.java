package dev.turnstile.booking;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.turnstile.idempotency.Idempotency;
import dev.turnstile.identity.Caller;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * A booking has an ETag that moves when it is cancelled or ticketed, and DELETE evaluates If-Match (RFC 9110 13.1.1):
 * an agent who cancels "the booking as I saw it" (say, before its ticket was issued) never cancels one that changed
 * since. Without If-Match a cancel stays idempotent.
 */
@QuarkusTest
class BookingPreconditionsTest {

    private static final String FARE = "/flights/{flight}/fares/Y";

    @Inject
    Pool pool;

    @Test
    void aBookingAnswersWithAnEtagAnd304WhenUnchanged() {
        String booking = book(fare(5), "bp-1");
        String tag = ticketed(booking);

        asStaff().header("If-None-Match", tag).get("/bookings/" + booking).then().statusCode(304);
    }

    @Test
    void aCancelUnderAnEtagTheBookingNoLongerHasIsRefusedAndKeepsTheSeat() {
        String flight = fare(5);
        String booking = book(flight, "bp-2");
        ticketed(booking);

        asStaff().header("If-Match", "\"confirmed-not-this\"").delete("/bookings/" + booking)
                .then().statusCode(412).contentType("application/problem+json").body("reason", is("STALE_VERSION"));

        asStaff().get("/bookings/" + booking).then().body("status", is("CONFIRMED")).body("ticketStatus", is("ISSUED"));
        asStaff().get(FARE, flight).then().body("seatsAvailable", is(4));
    }

    /**
     * The same conditional cancel sent again (its first answer lost with the connection after COMMIT, or a second
     * agent acting on the same read): the cancel it asks for has happened, which RFC 9110 (13.1.1) lets the server
     * answer 2xx rather than 412, as a fare PUT already exactly as asked is answered 200. One seat went back.
     */
    @Test
    void aConditionalCancelSentAgainAfterItWasAppliedIs204AndReturnsOneSeat() {
        String flight = fare(5);
        String booking = book(flight, "bp-3");
        String seen = ticketed(booking);

        asStaff().header("If-Match", seen).delete("/bookings/" + booking).then().statusCode(204);
        asStaff().header("If-Match", seen).delete("/bookings/" + booking).then().statusCode(204);
        asStaff().header("If-Match", "\"confirmed-pending\"").delete("/bookings/" + booking).then().statusCode(204);
        asStaff().delete("/bookings/" + booking).then().statusCode(204);

        asStaff().get("/bookings/" + booking).then().body("status", is("CANCELLED")).body("ticketStatus", is("VOID"));
        asStaff().get(FARE, flight).then().body("seatsAvailable", is(5));
    }

    @Test
    void aKeyedCancelRefusedByIfMatchFreesItsKey() {
        String flight = fare(5);
        String booking = book(flight, "bp-4");
        ticketed(booking);
        String key = "bp-key-" + UUID.randomUUID();

        asStaff().header("If-Match", "\"confirmed-pending\"").header("Idempotency-Key", key).delete("/bookings/" + booking)
                .then().statusCode(412);
        asStaff().header("Idempotency-Key", key).delete("/bookings/" + booking).then().statusCode(204);

        asStaff().get(FARE, flight).then().body("seatsAvailable", is(5));
    }

    @Test
    void aNewBookingNamesWhereItLivesAndItsEtagUnderEveryStrategy() {
        for (String strategy : List.of("pessimistic", "optimistic", "atomic", "sharded", "batched")) {
            String flight = fare(5);
            var created = asStaff().contentType("application/json").body("{\"passengerId\":\"bp-5\"}")
                    .queryParam("strategy", strategy).post(FARE + "/bookings", flight)
                    .then().statusCode(201).body("ticketStatus", is("PENDING")).extract();
            String booking = created.path("bookingId");

            assertThat(strategy, created.header("Location"), endsWith("/bookings/" + booking));
            assertThat(strategy, created.header("ETag"), is("\"confirmed-pending\""));
            asStaff().get(URI.create(created.header("Location")).getPath()).then().statusCode(200).body("bookingId", is(booking));
        }
    }

    @Test
    void aKeyedBookingAndItsReplayNameTheSameLocationAndEtag() {
        String flight = fare(5);
        String key = "bp-key-" + UUID.randomUUID();
        var first = asStaff().contentType("application/json").header("Idempotency-Key", key).body("{\"passengerId\":\"bp-6\"}")
                .post(FARE + "/bookings", flight).then().statusCode(201).extract();
        var replay = asStaff().contentType("application/json").header("Idempotency-Key", key).body("{\"passengerId\":\"bp-6\"}")
                .post(FARE + "/bookings", flight).then().statusCode(201).header("Idempotent-Replayed", "true").extract();

        String booking = first.path("bookingId");
        assertThat(first.header("Location"), endsWith("/bookings/" + booking));
        assertThat(first.header("ETag"), is("\"confirmed-pending\""));
        assertThat(replay.header("Location"), is(first.header("Location")));
        assertThat(replay.header("ETag"), is(first.header("ETag")));
        asStaff().get(URI.create(first.header("Location")).getPath()).then().statusCode(200).body("bookingId", is(booking));
    }

    @Test
    void behindAProxyANewBookingsLocationNamesTheAddressTheClientUsed() {
        String flight = fare(5);
        var created = asStaff().header("X-Forwarded-Proto", "https").header("X-Forwarded-Host", "api.example.com")
                .contentType("application/json").body("{\"passengerId\":\"bp-8\"}").post(FARE + "/bookings", flight)
                .then().statusCode(201).extract();

        assertThat(created.header("Location"), is("https://api.example.com/bookings/" + created.path("bookingId")));
    }

    /** A proxy's headers that name no address, or another host, refuse the booking before a seat is taken. */
    @Test
    void behindAProxyForwardedHeadersThatNameNoAddressTakeNoSeat() {
        String flight = fare(5);
        String[][] refused = { { "X-Forwarded-Host", "a b" }, { "X-Forwarded-Proto", "1" }, { "X-Forwarded-Prefix", "//evil.example" } };
        for (String[] header : refused) {
            asStaff().header(header[0], header[1]).contentType("application/json").body("{\"passengerId\":\"bp-9\"}")
                    .post(FARE + "/bookings", flight).then().statusCode(400).body("errors[0].field", is(header[0]));
        }
        asStaff().get(FARE, flight).then().statusCode(200).body("seatsAvailable", is(5)).body("booked", is(0));
    }

    /**
     * Answers stored before bookings had a ticket status (2026-12-03) live on under their keys for the keys' lifetime
     * after an upgrade: their replay names the booking's Location but no ETag it cannot derive.
     */
    @Test
    void aReplayOfAnAnswerStoredWithoutATicketStatusNamesItsLocationAndNoEtag() {
        String flight = fare(5);
        String key = "bp-key-" + UUID.randomUUID();
        String booking = UUID.randomUUID().toString();
        JsonObject stored = new JsonObject().put("bookingId", booking).put("flightId", flight).put("fareClass", "Y")
                .put("passengerId", "bp-7").put("elite", false).put("status", "CONFIRMED");
        pool.preparedQuery("INSERT INTO idempotency_keys (key, request_hash, status_code, refused, response_body, expires_at) "
                + "VALUES ($1, $2, 201, false, $3, now() + interval '1 hour')")
                .execute(Tuple.of(new Caller("staff-test", true, false).scope(key),
                        Idempotency.fingerprintOf("book", flight, "Y", "pessimistic", "bp-7", false), stored))
                .await().atMost(Duration.ofSeconds(10));

        var replay = asStaff().contentType("application/json").header("Idempotency-Key", key).body("{\"passengerId\":\"bp-7\"}")
                .queryParam("strategy", "pessimistic").post(FARE + "/bookings", flight)
                .then().statusCode(201).header("Idempotent-Replayed", "true").body("bookingId", is(booking)).extract();

        assertThat(replay.header("Location"), endsWith("/bookings/" + booking));
        assertThat(replay.header("ETag"), is(nullValue()));
    }

    private static String fare(int seats) {
        String flight = "BP" + UUID.randomUUID().toString().substring(0, 8);
        asStaff().contentType("application/json").body("{\"seats\":" + seats + "}").put(FARE, flight).then().statusCode(201);
        return flight;
    }

    private static String book(String flight, String passenger) {
        return asStaff().contentType("application/json").body("{\"passengerId\":\"" + passenger + "\"}")
                .post(FARE + "/bookings", flight).then().statusCode(201).extract().path("bookingId");
    }

    /** Waits for the ticket workers to issue the booking's ticket; its ETag from then on, until a cancel. */
    private static String ticketed(String booking) {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
        while (Instant.now().isBefore(deadline)) {
            var answer = asStaff().get("/bookings/" + booking).then().statusCode(200).header("ETag", notNullValue()).extract();
            if ("ISSUED".equals(answer.path("ticketStatus"))) {
                return answer.header("ETag");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new AssertionError("booking " + booking + " was not ticketed within 10 s");
    }
}
