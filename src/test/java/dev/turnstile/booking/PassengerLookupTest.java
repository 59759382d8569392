package dev.turnstile.booking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.turnstile.booking.BookingRepository.Passenger;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Every statement that looks for a passenger's booking on a flight reads that passenger's index entries, not every
 * booking of the flight, even before PostgreSQL has statistics for the table: a flash sale on a fresh database grows
 * the table far faster than autovacuum analyzes it, and with a second partial index leading on {@code flight_id} the
 * planner took that one and filtered the flight's bookings one by one (the batched strategy's holders query slowed
 * from 2 400 to 600 bookings/s over one minute of a benchmark). The statements run here against a temporary
 * {@code bookings} table built like the real one (a session's temporary table comes first on its search path) that
 * holds many bookings of one flight and has never been analyzed.
 */
@QuarkusTest
class PassengerLookupTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final int BOOKINGS_ON_THE_FLIGHT = 2_000;

    @Inject
    Pool pool;

    @Inject
    BatchedBookingRepository batches;

    @Inject
    BookingRepository bookings;

    @Inject
    InventoryRepository inventory;

    @Test
    void aPassengersBookingIsFoundWithoutReadingTheFlightsOtherBookings() {
        String flight = "LOOKUP-" + UUID.randomUUID();
        FareKey fare = new FareKey(flight, "Y");
        long fetched = pool.withTransaction(connection -> fareWithManyBookings(connection, fare)
                .chain(() -> batches.holders(connection, flight, List.of("p1", "nobody")))
                .invoke(holders -> assertEquals(Map.of("p1", holders.get("p1")), holders))
                .chain(() -> bookings.findConfirmed(connection, flight, "p2"))
                .invoke(found -> assertNotNull(found))
                .chain(() -> inventory.seatsLeft(connection, fare, "p3"))
                .invoke(left -> assertNotNull(left.existing()))
                .chain(() -> bookings.takeSeatAtomically(connection, fare, 0, new Passenger("p4", false, null, null)))
                .invoke(taken -> assertNotNull(taken.existing()))
                .chain(() -> tuplesFetchedByIndexScans(connection)))
                .await().atMost(TIMEOUT);
        // one entry per passenger looked up, against 2 000 per lookup when the flight's bookings are scanned
        assertTrue(fetched <= 4, "index scans fetched " + fetched + " bookings for 4 lookups");
    }

    private static Uni<Void> fareWithManyBookings(SqlConnection connection, FareKey fare) {
        return connection.query("CREATE TEMP TABLE bookings (LIKE public.bookings INCLUDING ALL) ON COMMIT DROP").execute()
                .chain(() -> connection.preparedQuery("""
                        INSERT INTO fares (flight_id, fare_class, seats_total, shards) VALUES ($1, $2, 10, 1)""")
                        .execute(Tuple.of(fare.flightId(), fare.fareClass())))
                .chain(() -> connection.preparedQuery("""
                        INSERT INTO flight_inventory (flight_id, fare_class, shard, seats_available) VALUES ($1, $2, 0, 10)""")
                        .execute(Tuple.of(fare.flightId(), fare.fareClass())))
                .chain(() -> connection.preparedQuery("""
                        INSERT INTO bookings (flight_id, fare_class, passenger_id, elite, shard)
                        SELECT $1, $2, 'p' || n, false, 0 FROM generate_series(1, $3) n""")
                        .execute(Tuple.of(fare.flightId(), fare.fareClass(), BOOKINGS_ON_THE_FLIGHT)))
                .replaceWithVoid();
    }

    /** Tuples fetched by index scans; a sequential scan of the table fails the test here, since it fetches none. */
    private static Uni<Long> tuplesFetchedByIndexScans(SqlConnection connection) {
        return connection.query("SELECT idx_tup_fetch, seq_tup_read FROM pg_stat_xact_user_tables WHERE relid = 'pg_temp.bookings'::regclass")
                .execute().map(rows -> {
                    Row counts = rows.iterator().next();
                    assertEquals(0L, counts.getLong("seq_tup_read"), "bookings read by sequential scans");
                    return counts.getLong("idx_tup_fetch");
                });
    }
}
