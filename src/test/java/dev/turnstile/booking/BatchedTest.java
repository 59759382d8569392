package dev.turnstile.booking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import dev.turnstile.LambdaMode;
import dev.turnstile.booking.BookingRepository.Passenger;
import dev.turnstile.identity.Tokens;
import dev.turnstile.idempotency.Keyed;
import dev.turnstile.idempotency.StoredAnswer;
import dev.turnstile.problem.ProblemException;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The {@code batched} strategy on its own: a batch of ten leaves when its tenth booking arrives (the window is far
 * longer), so the bookings handed to it one after the other form exactly one transaction, decided in that order.
 */
@QuarkusTest
@TestProfile(BatchedTest.BatchesOfTen.class)
class BatchedTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    public static class BatchesOfTen implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("turnstile.booking.batched.max-size", "10", "turnstile.booking.batched.window", "1s");
        }
    }

    @Inject
    BatchedTakes batched;

    @Inject
    Pool pool;

    @Test
    void aBatchThatSellsOutInTheMiddleAnswersInArrivalOrder() {
        String flight = "BATCH-" + UUID.randomUUID();
        FareKey fare = new FareKey(flight, "Y");
        new BookingClient().putFare(flight, "Y", 6, 2, 1);
        double attempts = Metrics.counter("turnstile_booking_attempts_total", Strategy.BATCHED);
        List<Passenger> arrivals = Stream.of("n0", "n1", "n2", "E3", "n4", "n0", "E5", "E6", "E7", "n8")
                .map(id -> new Passenger(flight + "-" + id, id.startsWith("E"), null, null)).toList();

        List<CompletableFuture<UUID>> sent = arrivals.stream()
                .map(passenger -> batched.book(fare, passenger).subscribeAsCompletionStage()).toList();
        List<String> outcomes = sent.stream().map(BatchedTest::outcome).toList();

        assertEquals(List.of("201", "201", "201", "201", "ELITE_RESERVE", "ALREADY_BOOKED", "201", "201", "SOLD_OUT",
                "SOLD_OUT"), outcomes, "four non-elite seats above the reserve of two, then the elite ones, then none");
        assertEquals(Math.max(attempts, 0) + 1, Metrics.counter("turnstile_booking_attempts_total", Strategy.BATCHED),
                "one transaction for the ten");
        ProblemException already = failure(sent.get(5));
        assertEquals(Map.of("bookingId", sent.get(0).join().toString()), already.toProblem().getExtensions(),
                "the second booking of n0 in the same batch names the first");
        assertEquals(Map.of(flight + "-n0", 1L, flight + "-n1", 1L, flight + "-n2", 1L, flight + "-E3", 1L, flight + "-E5", 1L,
                flight + "-E6", 1L), confirmedByPassenger(flight));
        audit(flight, 6);
    }

    @Test
    void aBatchThatMeetsAHeldLockFailsEveryBookingInItAndTakesNothing() {
        String flight = "BATCH-LOCKED-" + UUID.randomUUID();
        FareKey fare = new FareKey(flight, "Y");
        new BookingClient().putFare(flight, "Y", 20, 0, 1);
        SqlConnection holder = pool.getConnection().await().atMost(TIMEOUT);
        List<CompletableFuture<UUID>> sent;
        try {
            holder.begin().await().atMost(TIMEOUT);
            holder.preparedQuery("SELECT * FROM flight_inventory WHERE flight_id = $1 FOR UPDATE").execute(Tuple.of(flight))
                    .await().atMost(TIMEOUT);
            sent = IntStream.range(0, 10).mapToObj(i -> batched.book(fare, new Passenger(flight + "-" + i, false, null, null))
                    .subscribeAsCompletionStage()).toList();
            List<String> outcomes = sent.stream().map(BatchedTest::outcome).toList();
            assertEquals(List.of("BUSY"), outcomes.stream().distinct().toList(), "lock_timeout fails the whole batch: " + outcomes);
            assertEquals(503, failure(sent.get(0)).status());
        } finally {
            holder.close().await().atMost(TIMEOUT);
        }
        assertEquals(Map.of(), confirmedByPassenger(flight), "nothing of the failed batch was written");
        audit(flight, 0);
    }

    @Test
    void keysInABatchAreClaimedTogetherAndReplayedByteForByte() {
        String flight = "BATCH-KEYS-" + UUID.randomUUID();
        FareKey fare = new FareKey(flight, "Y");
        new BookingClient().putFare(flight, "Y", 3, 0, 1);
        String earlier = "k-earlier-" + UUID.randomUUID();
        Keyed<StoredAnswer> first = batched.bookKeyed(fare, keyed(flight, "a", earlier)).await().atMost(TIMEOUT);

        String shared = "k-shared-" + UUID.randomUUID();
        List<CompletableFuture<Keyed<StoredAnswer>>> sent = new ArrayList<>();
        sent.add(batched.bookKeyed(fare, keyed(flight, "b", shared)).subscribeAsCompletionStage());
        sent.add(batched.bookKeyed(fare, keyed(flight, "a", earlier)).subscribeAsCompletionStage());
        sent.add(batched.bookKeyed(fare, keyed(flight, "b", shared)).subscribeAsCompletionStage());
        sent.add(batched.bookKeyed(fare, keyed(flight, "c", "k-c-" + UUID.randomUUID())).subscribeAsCompletionStage());
        sent.add(batched.bookKeyed(fare, keyed(flight, "d", "k-d-" + UUID.randomUUID())).subscribeAsCompletionStage());
        for (int i = 0; i < 5; i++) {
            batched.book(fare, new Passenger(flight + "-late-" + i, false, null, null)).subscribeAsCompletionStage();
        }
        List<Keyed<StoredAnswer>> answers = sent.stream().map(CompletableFuture::join).toList();

        assertTrue(first instanceof Keyed.Fresh<StoredAnswer>, first.toString());
        StoredAnswer b = ((Keyed.Fresh<StoredAnswer>) answers.get(0)).value();
        assertEquals(Keyed.replay(b), answers.get(2), "the same key twice in one batch: the second replays the first");
        assertEquals(Keyed.replay(((Keyed.Fresh<StoredAnswer>) first).value()), answers.get(1), "a key of an earlier batch replays");
        assertEquals(false, b.refused());
        StoredAnswer c = ((Keyed.Fresh<StoredAnswer>) answers.get(3)).value();
        StoredAnswer d = ((Keyed.Fresh<StoredAnswer>) answers.get(4)).value();
        assertEquals(false, c.refused(), "b and c take the last two seats");
        assertEquals(true, d.refused());
        assertEquals("SOLD_OUT", new JsonObject(d.body()).getString("reason"));
        assertEquals(3, confirmedByPassenger(flight).size());
        assertEquals(new JsonObject(b.body()).getString("bookingId"),
                pool.preparedQuery("SELECT id FROM bookings WHERE idempotency_key = $1").execute(Tuple.of(shared))
                        .await().atMost(TIMEOUT).iterator().next().getUUID(0).toString());
        audit(flight, 3);
    }

    /**
     * A key that holds an answer, sent in one batch by a different request first (its owner there) and then by the
     * request that answer is for, a genuine retry: the different one is refused, the retry replays. The retry was
     * compared with the batch's owner instead of with the stored request, and refused 422 too.
     */
    @Test
    void aRetryBehindADifferentRequestUnderItsKeyInOneBatchStillReplays() {
        String flight = "BATCH-REUSED-" + UUID.randomUUID();
        FareKey fare = new FareKey(flight, "Y");
        new BookingClient().putFare(flight, "Y", 20, 0, 1);
        String key = "k-" + UUID.randomUUID();
        Keyed<StoredAnswer> first = batched.bookKeyed(fare, keyed(flight, "a", key)).await().atMost(TIMEOUT);

        CompletableFuture<Keyed<StoredAnswer>> different = batched.bookKeyed(fare, keyed(flight, "x", key))
                .subscribeAsCompletionStage();
        CompletableFuture<Keyed<StoredAnswer>> retry = batched.bookKeyed(fare, keyed(flight, "a", key))
                .subscribeAsCompletionStage();
        for (int i = 0; i < 8; i++) {
            batched.book(fare, new Passenger(flight + "-filler-" + i, false, null, null)).subscribeAsCompletionStage();
        }

        assertEquals(Keyed.replay(((Keyed.Fresh<StoredAnswer>) first).value()), retry.join());
        CompletionException refused = assertThrows(CompletionException.class, different::join);
        assertEquals("IDEMPOTENCY_KEY_REUSED", ((ProblemException) refused.getCause()).reason());
        assertEquals(Map.of(flight + "-a", 1L), confirmedByPassenger(flight).entrySet().stream()
                .filter(booked -> !booked.getKey().contains("filler")).collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
        audit(flight, 9);
    }

    @Test
    void aFlashSaleOnASixteenShardFareSellsEverySeatAndKeepsTheEliteReserve() {
        Assumptions.assumeFalse(LambdaMode.active(), LambdaMode.NO_OVERLAP);
        String flight = "BATCH-16-" + UUID.randomUUID();
        BookingClient client = new BookingClient();
        client.putFare(flight, "Y", 100, 10, 16);
        List<String> plain = IntStream.range(0, 150).mapToObj(i -> "plain-" + i).toList();
        List<String> elite = IntStream.range(0, 30).mapToObj(i -> "elite-" + i).toList();
        client.mintTokens(plain, false);
        client.mintTokens(elite, true);

        List<CompletableFuture<BookingClient.Answer>> sent = new ArrayList<>();
        for (int i = 0; i < 180; i++) {
            boolean isElite = i % 6 == 5;
            String passenger = isElite ? elite.get(i / 6) : plain.get(i - i / 6);
            sent.add(client.bookUntilFinal(flight, "Y", "batched", passenger, isElite));
        }
        List<BookingClient.Answer> answers = sent.stream().map(CompletableFuture::join).toList();

        Map<String, Long> outcomes = answers.stream().collect(Collectors.groupingBy(
                a -> a.status() + " " + (a.reason() == null ? "" : a.reason()), Collectors.counting()));
        assertEquals(100L, outcomes.get("201 "), outcomes.toString());
        long plainBooked = count("SELECT count(*) FROM bookings WHERE flight_id = $1 AND status = 'CONFIRMED' AND NOT elite", flight);
        assertTrue(plainBooked <= 90, "the last ten seats went to elite passengers only: " + plainBooked + " plain");
        assertEquals(0L, count("SELECT count(*) FROM flight_inventory WHERE flight_id = $1 AND seats_available <> 0", flight),
                "every shard sold out, none below zero");
        audit(flight, 100);
    }

    private static Passenger keyed(String flight, String passenger, String key) {
        return new Passenger(flight + "-" + passenger, false, key, "fingerprint-" + flight + "-" + passenger);
    }

    private static String outcome(CompletableFuture<UUID> booking) {
        try {
            booking.join();
            return "201";
        } catch (CompletionException e) {
            return ((ProblemException) e.getCause()).reason();
        }
    }

    private static ProblemException failure(CompletableFuture<UUID> booking) {
        try {
            booking.join();
            throw new AssertionError("booked");
        } catch (CompletionException e) {
            return (ProblemException) e.getCause();
        }
    }

    private Map<String, Long> confirmedByPassenger(String flight) {
        return pool.preparedQuery("SELECT passenger_id, count(*) AS n FROM bookings WHERE flight_id = $1 AND status = 'CONFIRMED' GROUP BY 1")
                .execute(Tuple.of(flight)).await().atMost(TIMEOUT).stream()
                .collect(Collectors.toMap(row -> row.getString(0), row -> row.getLong(1)));
    }

    private long count(String sql, String flight) {
        return pool.preparedQuery(sql).execute(Tuple.of(flight)).await().atMost(TIMEOUT).iterator().next().getLong(0);
    }

    private static void audit(String flight, int confirmed) {
        Tokens.asStaff().get("/flights/" + flight + "/fares/Y/audit").then().statusCode(200)
                .body("consistent", org.hamcrest.Matchers.is(true))
                .body("confirmedBookings", org.hamcrest.Matchers.is(confirmed));
    }
}
