package dev.turnstile.booking;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;

@QuarkusTest
class TicketingTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);


    @Inject
    Pool pool;

    @ConfigProperty(name = "turnstile.booking.ticketing.workers")
    int workers;

    @Test
    void everyBookingGetsExactlyOneTicketFromTheWorkers() throws InterruptedException {
        assertEquals(4, workers, "the test profile runs 4 workers");
        String flight = "TICKETS-" + UUID.randomUUID();
        BookingClient client = new BookingClient();
        client.putFare(flight, "Y", 500, 0, 8);
        client.mintTokens(IntStream.range(0, 500).mapToObj(i -> "p" + i).toList(), false);
        for (int wave = 0; wave < 5; wave++) {
            int first = wave * 100;
            List<CompletableFuture<BookingClient.Answer>> sent = IntStream.range(first, first + 100)
                    .mapToObj(i -> client.bookUntilFinal(flight, "Y", "sharded", "p" + i, false)).toList();
            sent.forEach(f -> assertEquals(201, f.join().status()));
        }

        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        Row tickets = tickets(flight);
        while (tickets.getLong("pending") > 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
            tickets = tickets(flight);
        }

        assertEquals(0L, tickets.getLong("pending"), "none left pending");
        assertEquals(500L, tickets.getLong("issued"));
        assertEquals(500L, tickets.getLong("distinct_numbers"), "no ticket number twice");
        String anyBooking = pool.preparedQuery("SELECT id FROM bookings WHERE flight_id = $1 LIMIT 1").execute(Tuple.of(flight))
                .await().atMost(TIMEOUT).iterator().next().getUUID(0).toString();
        String number = asStaff().get("/bookings/" + anyBooking).then().statusCode(200).extract().path("ticketNumber");
        assertTrue(number != null && number.startsWith("TK"), number);
    }

    @Test
    void cancellingVoidsAnIssuedTicketAndKeepsItsNumber() throws InterruptedException {
        String flight = "VOID-" + UUID.randomUUID();
        BookingClient client = new BookingClient();
        client.putFare(flight, "Y", 5, 0, 1);
        String issued = client.book(flight, "Y", "atomic", "issued", false, null).join().json().getString("bookingId");
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (asStaff().get("/bookings/" + issued).path("ticketNumber") == null && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        String number = asStaff().get("/bookings/" + issued).then().body("ticketStatus", org.hamcrest.Matchers.is("ISSUED"))
                .extract().path("ticketNumber");

        asStaff().delete("/bookings/" + issued).then().statusCode(204);

        asStaff().get("/bookings/" + issued).then().statusCode(200).body("status", org.hamcrest.Matchers.is("CANCELLED"))
                .body("ticketStatus", org.hamcrest.Matchers.is("VOID"))
                .body("ticketNumber", org.hamcrest.Matchers.is(number));
        assertEquals("VOID", pool.preparedQuery("SELECT ticket_status FROM bookings WHERE id = $1")
                .execute(Tuple.of(UUID.fromString(issued))).await().atMost(TIMEOUT).iterator().next().getString(0));
    }

    private Row tickets(String flight) {
        return pool.preparedQuery("""
                SELECT count(*) FILTER (WHERE ticket_status = 'PENDING') AS pending,
                       count(*) FILTER (WHERE ticket_status = 'ISSUED') AS issued,
                       count(DISTINCT ticket_number) AS distinct_numbers
                FROM bookings WHERE flight_id = $1""").execute(Tuple.of(flight)).await().atMost(TIMEOUT).iterator().next();
    }
}
