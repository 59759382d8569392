package dev.turnstile.booking;

import static dev.turnstile.identity.Tokens.asCustomer;
import static dev.turnstile.identity.Tokens.asStaff;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.turnstile.identity.Caller;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;

@QuarkusTest
class IdempotencyTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);


    /** Each test's own customers, so that no test meets the per-account attempt limit through another's requests. */
    private final String alice = "alice-" + UUID.randomUUID();
    private final String bob = "bob-" + UUID.randomUUID();

    @Inject
    Pool pool;

    @ParameterizedTest
    @ValueSource(strings = { "optimistic", "atomic", "serializable", "batched" })
    void twentyConcurrentRetriesOfOneRequestBookOnceAndAllGetTheSameAnswer(String strategy) {
        String flight = "IDEM-" + UUID.randomUUID();
        String key = "key-" + UUID.randomUUID();
        BookingClient client = new BookingClient();
        client.putFare(flight, "Y", 10, 0, 1);

        List<CompletableFuture<BookingClient.Answer>> sent = IntStream.range(0, 20)
                .mapToObj(i -> client.book(flight, "Y", strategy, alice, false, key)).toList();
        List<BookingClient.Answer> answers = sent.stream().map(CompletableFuture::join).toList();

        assertEquals(1, answers.stream().map(a -> a.status() + " " + a.body()).distinct().count(), answers.toString());
        assertEquals(201, answers.get(0).status());
        assertEquals(1L, count("SELECT count(*) FROM bookings WHERE flight_id = $1", flight));
        assertEquals(answers.get(0).json().getString("bookingId"),
                pool.preparedQuery("SELECT id FROM bookings WHERE idempotency_key = $1").execute(Tuple.of(scoped(alice, key)))
                        .await().atMost(TIMEOUT).iterator().next().getUUID(0).toString());
        assertEquals(9L, count("SELECT sum(seats_available) FROM flight_inventory WHERE flight_id = $1", flight));
    }

    @Test
    void aReplayIsMarkedAndCarriesTheFirstAnswersBytes() {
        String flight = "IDEM-" + UUID.randomUUID();
        String key = "key-" + UUID.randomUUID();
        new BookingClient().putFare(flight, "Y", 1, 0, 1);
        io.restassured.response.Response first = asCustomer(alice).header("Idempotency-Key", key).contentType("application/json")
                .body("{\"passengerId\":\"" + alice + "\"}").post("/flights/" + flight + "/fares/Y/bookings");
        first.then().statusCode(201).contentType("application/json").header("Idempotent-Replayed", nullValue());

        asCustomer(alice).header("Idempotency-Key", key).contentType("application/json").body("{\"passengerId\":\"" + alice + "\"}")
                .post("/flights/" + flight + "/fares/Y/bookings")
                .then().statusCode(201).contentType("application/json").header("Idempotent-Replayed", is("true"))
                .body(is(first.asString()));

        String soldOut = "key-" + UUID.randomUUID();
        String refused = asCustomer(bob).header("Idempotency-Key", soldOut).contentType("application/json")
                .body("{\"passengerId\":\"" + bob + "\"}").post("/flights/" + flight + "/fares/Y/bookings")
                .then().statusCode(409).contentType("application/problem+json").header("Idempotent-Replayed", nullValue())
                .body("reason", is("SOLD_OUT")).extract().asString();
        asCustomer(bob).header("Idempotency-Key", soldOut).contentType("application/json").body("{\"passengerId\":\"" + bob + "\"}")
                .post("/flights/" + flight + "/fares/Y/bookings")
                .then().statusCode(409).contentType("application/problem+json").header("Idempotent-Replayed", is("true"))
                .body(is(refused));

        String cancel = "cancel-" + UUID.randomUUID();
        String bookingId = first.jsonPath().getString("bookingId");
        asStaff().header("Idempotency-Key", cancel).delete("/bookings/" + bookingId)
                .then().statusCode(204).header("Idempotent-Replayed", nullValue());
        asStaff().header("Idempotency-Key", cancel).delete("/bookings/" + bookingId)
                .then().statusCode(204).header("Idempotent-Replayed", is("true"));
    }

    /** Before, an empty key booked as if no key had been sent, and of two keys the first was used. */
    @Test
    void anEmptyOrASecondKeyIsRefusedWithoutAWrite() {
        String flight = "IDEM-" + UUID.randomUUID();
        new BookingClient().putFare(flight, "Y", 10, 0, 1);
        String path = "/flights/" + flight + "/fares/Y/bookings";
        asCustomer(alice).header("Idempotency-Key", "").contentType("application/json").body("{}").post(path)
                .then().statusCode(400).body("reason", is("INVALID_REQUEST")).body("errors[0].field", is("Idempotency-Key"));
        asCustomer(alice).header("Idempotency-Key", "k-1").header("Idempotency-Key", "k-2").contentType("application/json")
                .body("{}").post(path)
                .then().statusCode(400).body("reason", is("INVALID_REQUEST")).body("errors[0].field", is("Idempotency-Key"));
        // the two keys as a hop may join them (API Gateway does): one line, a comma between
        asCustomer(alice).header("Idempotency-Key", "k-1,k-2").contentType("application/json").body("{}").post(path)
                .then().statusCode(400).body("reason", is("INVALID_REQUEST")).body("errors[0].field", is("Idempotency-Key"));
        // a key of the wrong shape is told the shape (the Lambda adapter splits k-1,k-2 into two lines: "sent once")
        asCustomer(alice).header("Idempotency-Key", "k".repeat(256)).contentType("application/json").body("{}").post(path)
                .then().statusCode(400).body("errors[0].field", is("Idempotency-Key"))
                .body("errors[0].message", is("must be 1-255 printable ASCII characters without spaces or commas"));
        assertEquals(0L, count("SELECT count(*) FROM bookings WHERE flight_id = $1", flight));
        assertEquals(10L, count("SELECT sum(seats_available) FROM flight_inventory WHERE flight_id = $1", flight));
        String bookingId = asCustomer(alice).contentType("application/json").body("{}").post(path)
                .then().statusCode(201).extract().path("bookingId");
        asCustomer(alice).header("Idempotency-Key", "").delete("/bookings/" + bookingId)
                .then().statusCode(400).body("errors[0].field", is("Idempotency-Key"));
        asStaff().get("/bookings/" + bookingId).then().statusCode(200).body("status", is("CONFIRMED"));
    }

    @Test
    void sameKeyWithAnotherBodyIsRejectedWithoutAWrite() {
        String flight = "IDEM-" + UUID.randomUUID();
        String key = "key-" + UUID.randomUUID();
        new BookingClient().putFare(flight, "Y", 10, 0, 1);
        // one caller (an agent booking for two passengers) sending one key with two bodies
        asStaff().header("Idempotency-Key", key).contentType("application/json").body("{\"passengerId\":\"" + alice + "\"}")
                .post("/flights/" + flight + "/fares/Y/bookings").then().statusCode(201);

        asStaff().header("Idempotency-Key", key).contentType("application/json").body("{\"passengerId\":\"" + bob + "\"}")
                .post("/flights/" + flight + "/fares/Y/bookings")
                .then().statusCode(422).contentType("application/problem+json").body("reason", is("IDEMPOTENCY_KEY_REUSED"));

        assertEquals(1L, count("SELECT count(*) FROM bookings WHERE flight_id = $1", flight));
    }

    @Test
    void aKeyIsTheCallersOwnSoAnotherCustomerSendingItGetsTheirOwnBooking() {
        String flight = "IDEM-" + UUID.randomUUID();
        String key = "key-" + UUID.randomUUID();
        new BookingClient().putFare(flight, "Y", 10, 0, 1);
        String alices = asCustomer(alice).header("Idempotency-Key", key).contentType("application/json").body("{}")
                .post("/flights/" + flight + "/fares/Y/bookings").then().statusCode(201)
                .body("passengerId", is(alice)).extract().asString();

        asCustomer(bob).header("Idempotency-Key", key).contentType("application/json").body("{}")
                .post("/flights/" + flight + "/fares/Y/bookings")
                .then().statusCode(201).header("Idempotent-Replayed", nullValue()).body("passengerId", is(bob));
        asCustomer(alice).header("Idempotency-Key", key).contentType("application/json").body("{}")
                .post("/flights/" + flight + "/fares/Y/bookings")
                .then().statusCode(201).header("Idempotent-Replayed", is("true")).body(is(alices));

        assertEquals(2L, count("SELECT count(*) FROM bookings WHERE flight_id = $1", flight));
        assertEquals(1L, count("SELECT count(*) FROM bookings WHERE idempotency_key = $1", scoped(bob, key)));
        assertEquals(8L, count("SELECT sum(seats_available) FROM flight_inventory WHERE flight_id = $1", flight));
    }

    @Test
    void aStoredRejectionIsReplayedEvenAfterSeatsAppear() {
        String flight = "IDEM-" + UUID.randomUUID();
        String key = "key-" + UUID.randomUUID();
        BookingClient client = new BookingClient();
        client.putFare(flight, "Y", 0, 0, 1);
        BookingClient.Answer first = client.book(flight, "Y", null, alice, false, key).join();
        client.putFare(flight, "Y", 5, 0, 1);

        BookingClient.Answer again = client.book(flight, "Y", null, alice, false, key).join();

        assertEquals("SOLD_OUT", first.reason());
        assertEquals(first, again);
        assertEquals(0L, count("SELECT count(*) FROM bookings WHERE flight_id = $1", flight));
    }

    @Test
    void anExpiredKeyIsIgnored() {
        String flight = "IDEM-" + UUID.randomUUID();
        String key = "key-" + UUID.randomUUID();
        new BookingClient().putFare(flight, "Y", 5, 0, 1);
        pool.preparedQuery("INSERT INTO idempotency_keys (key, request_hash, status_code, response_body, created_at, expires_at)"
                + " VALUES ($1, 'some other request', 201, '{}', now() - interval '2 days', now() - interval '1 day')")
                .execute(Tuple.of(scoped(alice, key))).await().atMost(TIMEOUT);

        asCustomer(alice).header("Idempotency-Key", key).contentType("application/json").body("{\"passengerId\":\"" + alice + "\"}")
                .post("/flights/" + flight + "/fares/Y/bookings").then().statusCode(201);

        assertEquals(1L, count("SELECT count(*) FROM bookings WHERE flight_id = $1", flight));
        assertEquals(1L, count("SELECT count(*) FROM idempotency_keys WHERE key = $1 AND expires_at > now()", scoped(alice, key)));
    }

    @Test
    void cancelUnderAKeyReplaysAndReturnsTheSeatOnce() {
        String flight = "IDEM-" + UUID.randomUUID();
        String key = "cancel-" + UUID.randomUUID();
        BookingClient client = new BookingClient();
        client.putFare(flight, "Y", 5, 0, 1);
        String bookingId = client.book(flight, "Y", null, alice, false, null).join().json().getString("bookingId");

        List<CompletableFuture<Response>> cancels = IntStream.range(0, 5).mapToObj(i -> CompletableFuture.supplyAsync(() ->
                asStaff().header("Idempotency-Key", key).delete("/bookings/" + bookingId))).toList();

        cancels.forEach(c -> assertEquals(204, c.join().statusCode()));
        // one cancel did the work; the others got its answer back (a keyless cancel is a no-op 204 too, so the
        // header is what shows the key was used)
        assertEquals(4L, cancels.stream().filter(c -> "true".equals(c.join().header("Idempotent-Replayed"))).count());
        assertEquals(5L, count("SELECT sum(seats_available) FROM flight_inventory WHERE flight_id = $1", flight));
        asStaff().header("Idempotency-Key", key).delete("/bookings/" + UUID.randomUUID())
                .then().statusCode(422).body("reason", is("IDEMPOTENCY_KEY_REUSED"));
    }

    /** The key as stored: in the space of the customer who sent it. */
    private static String scoped(String customer, String key) {
        return new Caller(customer, false, false).scope(key);
    }

    private long count(String sql, String argument) {
        return ((Number) pool.preparedQuery(sql).execute(Tuple.of(argument)).await().atMost(TIMEOUT).iterator().next().getValue(0)).longValue();
    }
}
