package dev.turnstile.observability;

import static dev.turnstile.identity.Tokens.asStaff;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import dev.turnstile.LambdaMode;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;

/**
 * The trace tree with the fare's gate as production has it (one transaction of a fare at a time): the test profile
 * turns the gate off, so {@link BookingSpanTreeTest}'s own bookings never queued there. Its tests run here too.
 */
@QuarkusTest
@TestProfile(GatedBookingSpanTreeTest.Gated.class)
class GatedBookingSpanTreeTest extends BookingSpanTreeTest {

    public static class Gated implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("turnstile.booking.transactions-per-fare", "1");
        }
    }

    /**
     * Bookings of one fare queue at its gate and are let in by the booking before them, from that booking's own
     * callback: each one's statements must still be in its own trace, under its own attempt.
     */
    @Test
    void bookingsLetInByTheirFaresGateKeepTheirStatementsUnderTheirAttempt() throws Exception {
        Assumptions.assumeFalse(LambdaMode.active(), LambdaMode.NO_OVERLAP);
        int bookings = 12;
        String flight = "SPAN-" + UUID.randomUUID();
        asStaff().contentType(ContentType.JSON).body("{\"seats\":" + bookings + ",\"eliteReserve\":0,\"shards\":1}")
                .put("/flights/" + flight + "/fares/Y").then().statusCode(201);
        List<String> paths = Collections.nCopies(bookings, "/flights/" + flight + "/fares/Y/bookings");
        bookAtOnce(paths);
        assertEachBookingsStatementsUnderItsAttempt(paths);
    }
}
