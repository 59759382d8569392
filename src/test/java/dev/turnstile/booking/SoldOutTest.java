package dev.turnstile.booking;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.UUID;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * A fare this instance saw sold out is answered from one unlocked read ({@link SoldOutFares}), through the gate as
 * production runs it: the answer is still exact. A seat given back by a cancel or by a reset is sold again, and a
 * passenger who holds a seat hears ALREADY_BOOKED, not SOLD_OUT.
 */
@QuarkusTest
@TestProfile(FareGateTest.Gated.class)
class SoldOutTest {

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = "SHARDED", mode = EnumSource.Mode.EXCLUDE)
    void aSoldOutFareReopensForASeatGivenBack(Strategy strategy) {
        String flight = "SOLDOUT-" + strategy.label() + "-" + UUID.randomUUID();
        BookingClient client = new BookingClient();
        client.putFare(flight, "Y", 1, 0, 1);

        String first = book(client, flight, strategy, "p1", 201).json().getString("bookingId");
        book(client, flight, strategy, "p2", 409, "SOLD_OUT");
        book(client, flight, strategy, "p2", 409, "SOLD_OUT");
        BookingClient.Answer again = book(client, flight, strategy, "p1", 409, "ALREADY_BOOKED");
        assertEquals(first, again.json().getString("bookingId"));

        asStaff().delete("/bookings/" + first).then().statusCode(204);
        book(client, flight, strategy, "p3", 201);
        book(client, flight, strategy, "p4", 409, "SOLD_OUT");

        client.putFare(flight, "Y", 2, 0, 1);
        book(client, flight, strategy, "p4", 201);
        book(client, flight, strategy, "p5", 409, "SOLD_OUT");

        asStaff().get("/flights/" + flight + "/fares/Y/audit").then().statusCode(200)
                .body("consistent", is(true)).body("seatsAvailable", is(0)).body("confirmedBookings", is(2));
    }

    private static BookingClient.Answer book(BookingClient client, String flight, Strategy strategy, String passenger, int status, String... reason) {
        BookingClient.Answer answer = client.book(flight, "Y", strategy.label(), passenger, false, null).join();
        assertEquals(status, answer.status(), strategy + " " + passenger + ": " + answer.body());
        if (reason.length > 0) {
            assertEquals(reason[0], answer.reason(), strategy + " " + passenger);
        }
        return answer;
    }
}
