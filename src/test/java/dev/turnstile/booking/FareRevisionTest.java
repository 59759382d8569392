package dev.turnstile.booking;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

/**
 * The fare revision each shard row carries (V4) must not make a fare unbookable. It did twice: the read compared the
 * two revisions as boxed {@code Long}s, equal only up to 127, so from a fare's 128th reset on every locked read was
 * a "conflict" (409 CONTENTION under every strategy that reads, CONTENTION for SOLD_OUT under atomic, 500 on the
 * next reset); and a fare reset by the release before V4 (which moves the fare's revision and leaves the rows' as they
 * are) during a rolling upgrade was the same for the new release.
 */
@QuarkusTest
class FareRevisionTest {

    @Test
    void aFareResetMoreThan127TimesIsBookedSoldOutAndResetAsAnyOther() {
        BookingClient client = new BookingClient();
        String flight = "REV-" + UUID.randomUUID();
        int seats = Strategy.values().length;
        client.putFare(flight, "Y", seats, 0, 1);
        for (int reset = 0; reset < 130; reset++) {
            client.putFare(flight, "Y", seats, 0, 1);
        }

        bookOncePerStrategyThenSoldOut(client, flight, seats);
        asStaff().contentType("application/json").body("{\"seats\":" + (seats + 1) + "}")
                .put("/flights/" + flight + "/fares/Y").then().statusCode(200);
        asStaff().get("/flights/" + flight + "/fares/Y").then().statusCode(200)
                .body("seatsAvailable", is(1)).body("booked", is(seats));
    }

    @Test
    void aFareTheReleaseBeforeV4ResetIsBookedAndResetAsAnyOther() throws SQLException {
        BookingClient client = new BookingClient();
        String flight = "REV-OLD-" + UUID.randomUUID();
        int seats = Strategy.values().length;
        client.putFare(flight, "Y", seats, 0, 1);
        try (Connection connection = TestDatabase.connect(); PreparedStatement olderReset = connection.prepareStatement(
                "UPDATE fares SET revision = revision + 1 WHERE flight_id = ?")) {
            olderReset.setString(1, flight);
            assertEquals(1, olderReset.executeUpdate());
        }

        bookOncePerStrategyThenSoldOut(client, flight, seats);
        asStaff().contentType("application/json").body("{\"seats\":" + (seats + 1) + "}")
                .put("/flights/" + flight + "/fares/Y").then().statusCode(200);
        asStaff().get("/flights/" + flight + "/fares/Y").then().statusCode(200)
                .body("seatsAvailable", is(1)).body("booked", is(seats));
    }

    private static void bookOncePerStrategyThenSoldOut(BookingClient client, String flight, int seats) {
        for (Strategy strategy : Strategy.values()) {
            BookingClient.Answer answer = client.book(flight, "Y", strategy.label(), "p-" + strategy.label(), false, null).join();
            assertEquals(201, answer.status(), strategy + ": " + answer.body());
        }
        for (Strategy strategy : Strategy.values()) {
            BookingClient.Answer answer = client.book(flight, "Y", strategy.label(), "late-" + strategy.label(), false, null).join();
            assertEquals("SOLD_OUT", answer.reason(), strategy + ": " + answer.body());
        }
        asStaff().get("/flights/" + flight + "/fares/Y").then().statusCode(200)
                .body("seatsAvailable", is(0)).body("booked", is(seats));
    }
}
