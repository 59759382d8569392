package dev.turnstile.booking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.turnstile.LambdaMode;
import dev.turnstile.booking.BookingRepository.Passenger;
import dev.turnstile.booking.InventoryRepository.Lock;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Transaction;
import io.vertx.pgclient.PgException;

/**
 * The elite reserve is a rule over the SUM of the shard rows, while a booking writes ONE shard row: the classic
 * write skew. Two bookings that each read "2 left, 1 reserved" and then write different rows do not conflict on any
 * row, so read committed (and a version check on the written row) lets both through; SERIALIZABLE does not.
 */
@QuarkusTest
class WriteSkewTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);


    @Inject
    Pool pool;

    @Inject
    InventoryRepository inventory;

    @Inject
    BookingRepository bookings;

    @Inject
    RacingInventoryRepository racing;

    @Test
    void readCommittedWithVersionChecksLetsTwoNonEliteBookingsIntoTheReserve() {
        String flight = twoSeatsOneReserved();

        interleaveTwoBookings(flight, null);

        assertEquals(0, available(flight), "both committed: the reserved seat went to a non-elite passenger");
    }

    @Test
    void serializableLetsOnlyOneOfTheSameTwoBookingsCommit() {
        String flight = twoSeatsOneReserved();

        PgException failure = assertThrows(PgException.class,
                () -> interleaveTwoBookings(flight, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE"));

        assertEquals("40001", failure.getSqlState());
        assertEquals(1, available(flight), "the reserved seat is still there");
    }

    /**
     * Through the service, in the order that makes write skew: a second non-elite booking is made and committed
     * between the first one's read of the fare and its take. Serializable aborts the first (40001), whose retry
     * reads again and meets the reserve. The racing test below cannot tell that from two bookings that merely ran
     * one after the other; this one fails for any strategy that lets both commit.
     */
    @Test
    void aSerializableBookingThatReadBeforeAnotherCommittedMeetsTheReserveOnItsRetry() {
        Assumptions.assumeFalse(LambdaMode.active(), LambdaMode.NO_OVERLAP);
        BookingClient client = new BookingClient();
        String flight = twoSeatsOneReserved();
        client.mintTokens(List.of("p0", "p1"), false);
        racing.afterNextRead(new FareKey(flight, "Y"), () -> assertEquals(201,
                client.bookUntilFinal(flight, "Y", "serializable", "p1", false).join().status(), "the booking in between"));

        BookingClient.Answer first = client.bookUntilFinal(flight, "Y", "serializable", "p0", false).join();

        assertEquals("ELITE_RESERVE", first.reason(), first.toString());
        assertEquals(1, available(flight), "the reserved seat is still there");
    }

    /** Serializable aborts one of the two; batched decides both on the sum of every shard row, locked. */
    @ParameterizedTest
    @ValueSource(strings = { "serializable", "batched" })
    void concurrentNonEliteBookingsNeverTakeTheReserve(String strategy) {
        BookingClient client = new BookingClient();
        List<String> flights = IntStream.range(0, 10).mapToObj(i -> twoSeatsOneReserved()).toList();
        client.mintTokens(List.of("p0", "p1"), false);

        List<CompletableFuture<BookingClient.Answer>> racing = flights.stream()
                .flatMap(flight -> IntStream.range(0, 2).mapToObj(i -> client.bookUntilFinal(flight, "Y", strategy, "p" + i, false)))
                .toList();
        List<BookingClient.Answer> answers = racing.stream().map(CompletableFuture::join).toList();

        for (int f = 0; f < flights.size(); f++) {
            List<BookingClient.Answer> pair = answers.subList(2 * f, 2 * f + 2);
            long booked = pair.stream().filter(a -> a.status() == 201).count();
            assertEquals(1, booked, "exactly one of two non-elite bookings gets the unreserved seat: " + pair);
            assertTrue(pair.stream().anyMatch(a -> "ELITE_RESERVE".equals(a.reason())), pair.toString());
            assertEquals(1, available(flights.get(f)));
        }
        String flight = flights.get(0);
        assertEquals(201, client.bookUntilFinal(flight, "Y", strategy, "elite-1", true).join().status(),
                "an elite passenger can still take the reserved seat");
        assertEquals("SOLD_OUT", client.bookUntilFinal(flight, "Y", strategy, "elite-2", true).join().reason());
        assertEquals(0, available(flight));
    }

    /** Both read before either writes; each then takes a seat on a different shard, at the version it read. */
    private void interleaveTwoBookings(String flight, String isolation) {
        SqlConnection first = pool.getConnection().await().atMost(TIMEOUT);
        SqlConnection second = pool.getConnection().await().atMost(TIMEOUT);
        try {
            Transaction one = begin(first, isolation);
            Transaction two = begin(second, isolation);
            FareState seenByOne = inventory.read(first, new FareKey(flight, "Y"), Lock.NONE).await().atMost(TIMEOUT);
            FareState seenByTwo = inventory.read(second, new FareKey(flight, "Y"), Lock.NONE).await().atMost(TIMEOUT);
            assertEquals(SeatRules.Decision.OK, SeatRules.decide(seenByOne.seatsAvailable(), seenByOne.eliteReserve(), false));
            assertEquals(SeatRules.Decision.OK, SeatRules.decide(seenByTwo.seatsAvailable(), seenByTwo.eliteReserve(), false));

            assertNotNull(bookings.takeSeatAtVersion(first, new FareKey(flight, "Y"), 0, seenByOne.shard(0).version(), seenByOne.revision(), passenger())
                    .await().atMost(TIMEOUT).booked());
            one.commit().await().atMost(TIMEOUT);
            UUID secondBooking = bookings.takeSeatAtVersion(second, new FareKey(flight, "Y"), 1, seenByTwo.shard(1).version(), seenByTwo.revision(), passenger())
                    .await().atMost(TIMEOUT).booked();
            assertNotNull(secondBooking, "shard 1 was not touched, so its version check passes");
            two.commit().await().atMost(TIMEOUT);
        } finally {
            first.closeAndAwait();
            second.closeAndAwait();
        }
    }

    private static Transaction begin(SqlConnection connection, String isolation) {
        Transaction transaction = connection.begin().await().atMost(TIMEOUT);
        if (isolation != null) {
            connection.query(isolation).execute().await().atMost(TIMEOUT);
        }
        return transaction;
    }

    private static Passenger passenger() {
        return new Passenger("skew-" + UUID.randomUUID(), false, null, null);
    }

    /** 2 seats on 2 shards (one each), the last 1 kept for elite passengers. */
    private String twoSeatsOneReserved() {
        String flight = "SKEW-" + UUID.randomUUID();
        new BookingClient().putFare(flight, "Y", 2, 1, 2);
        return flight;
    }

    private int available(String flight) {
        return inventory.read(pool, new FareKey(flight, "Y"), Lock.NONE).await().atMost(TIMEOUT).seatsAvailable();
    }
}
