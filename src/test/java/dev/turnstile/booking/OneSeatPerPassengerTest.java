package dev.turnstile.booking;

import static dev.turnstile.identity.Tokens.asCustomer;
import static dev.turnstile.identity.Tokens.asStaff;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;

/** A passenger holds at most one confirmed seat per flight, whatever the strategy and however the retries race. */
@QuarkusTest
class OneSeatPerPassengerTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Inject
    Pool pool;

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void aRetryWithoutAKeyGetsTheExistingBookingNotASecondSeat(Strategy strategy) {
        String flight = "ONE-" + strategy.label() + "-" + UUID.randomUUID();
        BookingClient client = new BookingClient();
        int shards = strategy == Strategy.SHARDED ? 4 : 1;
        client.putFare(flight, "Y", 20, 0, shards);
        client.putFare(flight, "J", 20, 0, shards);

        BookingClient.Answer first = client.book(flight, "Y", strategy.label(), "alice", false, null).join();
        assertEquals(201, first.status(), first.body());
        String aliceId = first.json().getString("bookingId");
        for (String fareClass : List.of("Y", "J")) {
            BookingClient.Answer again = client.book(flight, fareClass, strategy.label(), "alice", false, null).join();
            assertEquals(409, again.status(), again.body());
            assertEquals("ALREADY_BOOKED", again.reason());
            assertEquals(aliceId, again.json().getString("bookingId"));
        }

        client.mintTokens(List.of("bob"), false);
        List<CompletableFuture<BookingClient.Answer>> racing = IntStream.range(0, 12)
                .mapToObj(i -> client.bookUntilFinal(flight, i % 2 == 0 ? "Y" : "J", strategy.label(), "bob", false)).toList();
        List<BookingClient.Answer> answers = racing.stream().map(CompletableFuture::join).toList();
        Map<String, Long> outcomes = answers.stream().collect(Collectors.groupingBy(
                a -> a.status() + " " + (a.reason() == null ? "" : a.reason()), Collectors.counting()));
        assertEquals(Map.of("201 ", 1L, "409 ALREADY_BOOKED", 11L), outcomes, strategy + ": " + outcomes);
        String bobId = answers.stream().filter(a -> a.status() == 201).findFirst().orElseThrow().json().getString("bookingId");
        answers.stream().filter(a -> a.status() == 409).forEach(a -> assertEquals(bobId, a.json().getString("bookingId")));

        String key = "one-" + UUID.randomUUID();
        BookingClient.Answer carol = client.book(flight, "Y", strategy.label(), "carol", false, key).join();
        assertEquals(carol, client.book(flight, "Y", strategy.label(), "carol", false, key).join(), "a replay returns the original");
        BookingClient.Answer otherKey = client.book(flight, "Y", strategy.label(), "carol", false, "other-" + key).join();
        assertEquals("ALREADY_BOOKED", otherKey.reason());
        assertEquals(carol.json().getString("bookingId"), otherKey.json().getString("bookingId"));

        assertEquals(3L, pool.preparedQuery("SELECT count(*) FROM bookings WHERE flight_id = $1 AND status = 'CONFIRMED'")
                .execute(Tuple.of(flight)).await().atMost(TIMEOUT).iterator().next().getLong(0));
        for (String fareClass : List.of("Y", "J")) {
            asStaff().get("/flights/" + flight + "/fares/" + fareClass + "/audit").then().statusCode(200)
                    .body("consistent", org.hamcrest.Matchers.is(true));
        }

        asCustomer("alice").delete("/bookings/" + aliceId).then().statusCode(204);
        assertEquals(201, client.book(flight, "J", strategy.label(), "alice", false, null).join().status(),
                "after a cancel the passenger may book again");
    }
}
