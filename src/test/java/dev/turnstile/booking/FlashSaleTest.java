package dev.turnstile.booking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

import jakarta.inject.Inject;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;

/** 100 seats, 300 buyers at once, for every strategy: never one seat too many, never one too few. */
@QuarkusTest
class FlashSaleTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);


    @Inject
    Pool pool;

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void sellsExactlyTheSeatsThereAre(Strategy strategy) {
        String flight = "FLASH-" + strategy.label() + "-" + UUID.randomUUID();
        int shards = strategy == Strategy.SHARDED ? 4 : 1;
        BookingClient client = new BookingClient();
        client.putFare(flight, "Y", 100, 0, shards);

        List<BookingClient.Answer> answers = client.flashSale(flight, "Y", strategy.label(), 300);

        Map<String, Long> outcomes = answers.stream().collect(Collectors.groupingBy(
                a -> a.status() + " " + (a.reason() == null ? "" : a.reason()), Collectors.counting()));
        assertEquals(Map.of("201 ", 100L, "409 SOLD_OUT", 200L), outcomes, strategy + ": " + outcomes);
        long distinctIds = answers.stream().filter(a -> a.status() == 201).map(a -> a.json().getString("bookingId")).distinct().count();
        assertEquals(100, distinctIds);

        List<Integer> shardSeats = pool.preparedQuery("SELECT seats_available FROM flight_inventory WHERE flight_id = $1 ORDER BY shard")
                .execute(Tuple.of(flight)).await().atMost(TIMEOUT).stream().map(r -> r.getInteger(0)).toList();
        assertEquals(shards, shardSeats.size());
        assertTrue(shardSeats.stream().allMatch(s -> s == 0), "every shard empty: " + shardSeats);
        Row bookings = pool.preparedQuery("SELECT count(*) AS n, count(DISTINCT passenger_id) AS p FROM bookings WHERE flight_id = $1 AND status = 'CONFIRMED'")
                .execute(Tuple.of(flight)).await().atMost(TIMEOUT).iterator().next();
        assertEquals(100L, bookings.getLong("n"));
        assertEquals(100L, bookings.getLong("p"), "no passenger booked twice");

        dev.turnstile.identity.Tokens.asStaff().get("/flights/" + flight + "/fares/Y/audit").then().statusCode(200)
                .body("consistent", org.hamcrest.Matchers.is(true))
                .body("seatsAvailable", org.hamcrest.Matchers.is(0))
                .body("confirmedBookings", org.hamcrest.Matchers.is(100));
    }
}
