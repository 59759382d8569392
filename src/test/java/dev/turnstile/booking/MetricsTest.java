package dev.turnstile.booking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.turnstile.LambdaMode;
import io.quarkus.test.junit.QuarkusTest;

/** The per-strategy counters are published and move: conflicts and retries for the strategies that retry. */
@QuarkusTest
class MetricsTest {

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = { "OPTIMISTIC", "SERIALIZABLE" })
    void conflictsAreCountedAndRetriedPerStrategy(Strategy strategy) {
        for (String name : List.of("attempts", "retries", "conflicts", "exhausted", "lock_timeouts", "booked")) {
            assertTrue(Metrics.counter("turnstile_booking_" + name + "_total", strategy) >= 0, name + " is published");
        }
        double attempts = Metrics.counter("turnstile_booking_attempts_total", strategy);
        double conflicts = Metrics.counter("turnstile_booking_conflicts_total", strategy);
        double retries = Metrics.counter("turnstile_booking_retries_total", strategy);
        double booked = Metrics.counter("turnstile_booking_booked_total", strategy);
        String flight = "METRICS-" + UUID.randomUUID();
        BookingClient client = new BookingClient();
        client.putFare(flight, "Y", 1000, 0, 1);

        client.mintTokens(IntStream.range(0, 100).mapToObj(i -> "p" + i).toList(), false);
        List<CompletableFuture<BookingClient.Answer>> sent = IntStream.range(0, 100)
                .mapToObj(i -> client.bookUntilFinal(flight, "Y", strategy.label(), "p" + i, false)).toList();
        sent.forEach(f -> assertEquals(201, f.join().status()));

        assertTrue(Metrics.counter("turnstile_booking_attempts_total", strategy) >= attempts + 100);
        assertEquals(booked + 100, Metrics.counter("turnstile_booking_booked_total", strategy));
        assumeFalse(LambdaMode.active(), LambdaMode.NO_OVERLAP);
        assertTrue(Metrics.counter("turnstile_booking_conflicts_total", strategy) > conflicts, "one hot row, 100 writers: conflicts");
        assertTrue(Metrics.counter("turnstile_booking_retries_total", strategy) > retries, "conflicts are retried");
    }
}
