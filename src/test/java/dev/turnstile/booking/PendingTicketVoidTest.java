package dev.turnstile.booking;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * A booking cancelled before its ticket was issued: the ticket is void without a number. With the workers running
 * (TicketingTest) a fresh booking is usually ticketed within 100 ms, so this case needs them off to be sure of it.
 */
@QuarkusTest
@TestProfile(PendingTicketVoidTest.NoWorkers.class)
class PendingTicketVoidTest {

    public static class NoWorkers implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("turnstile.booking.ticketing.enabled", "false");
        }
    }

    @Test
    void cancellingAPendingBookingVoidsItsTicketBeforeOneIsIssued() {
        String flight = "VOID-" + UUID.randomUUID();
        BookingClient client = new BookingClient();
        client.putFare(flight, "Y", 5, 0, 1);
        String pending = client.book(flight, "Y", "atomic", "pending", false, null).join().json().getString("bookingId");
        asStaff().get("/bookings/" + pending).then().body("ticketStatus", is("PENDING"));

        asStaff().delete("/bookings/" + pending).then().statusCode(204);

        asStaff().get("/bookings/" + pending).then().statusCode(200).body("status", is("CANCELLED"))
                .body("ticketStatus", is("VOID")).body("ticketNumber", nullValue());
        asStaff().get("/flights/" + flight + "/fares/Y").then().body("seatsAvailable", is(5)).body("booked", is(0));
    }
}
