package dev.turnstile.booking;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.hamcrest.Matchers.is;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * The flash sale through the per-fare gate as production runs it (one transaction of a fare at a time): exact, and
 * the optimistic and serializable strategies stop conflicting, because their transactions no longer overlap.
 */
@QuarkusTest
@TestProfile(FareGateTest.Gated.class)
class FareGateTest {

    public static class Gated implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("turnstile.booking.transactions-per-fare", "1");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = "SHARDED", mode = EnumSource.Mode.EXCLUDE)
    void aGatedFlashSaleSellsExactlyTheSeatsWithoutAConflict(Strategy strategy) {
        double conflicts = Metrics.counter("turnstile_booking_conflicts_total", strategy);
        String flight = "GATED-" + strategy.label() + "-" + UUID.randomUUID();
        BookingClient client = new BookingClient();
        client.putFare(flight, "Y", 100, 0, 1);

        List<BookingClient.Answer> answers = client.flashSale(flight, "Y", strategy.label(), 300);

        Map<String, Long> outcomes = answers.stream().collect(Collectors.groupingBy(
                a -> a.status() + " " + (a.reason() == null ? "" : a.reason()), Collectors.counting()));
        assertEquals(Map.of("201 ", 100L, "409 SOLD_OUT", 200L), outcomes, strategy + ": " + outcomes);
        asStaff().get("/flights/" + flight + "/fares/Y/audit").then().statusCode(200)
                .body("consistent", is(true)).body("seatsAvailable", is(0)).body("confirmedBookings", is(100));
        assertEquals(Math.max(conflicts, 0), Math.max(Metrics.counter("turnstile_booking_conflicts_total", strategy), 0),
                strategy + ": no two transactions of the fare overlapped");
    }
}
