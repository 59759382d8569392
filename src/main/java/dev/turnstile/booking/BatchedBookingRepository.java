package dev.turnstile.booking;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/** SQL of the {@code batched} strategy: the seats and bookings of a whole batch in one statement. */
@ApplicationScoped
public class BatchedBookingRepository {

    /**
     * One lookup per passenger, each on the one-seat index's two columns. {@code passenger_id = ANY($2)} let the
     * planner of PostgreSQL 15 filter the flight's every booking instead, whenever the table's statistics lagged
     * behind it (PassengerLookupTest).
     */
    private static final String HOLDERS = """
            SELECT p.passenger_id,
                   (SELECT b.id FROM bookings b
                    WHERE b.flight_id = $1 AND b.passenger_id = p.passenger_id AND b.status = 'CONFIRMED') AS id
            FROM unnest($2::text[]) AS p(passenger_id)""";
    /**
     * The shard rows are locked by the batch's read, so each UPDATE finds the seats the plan counted on; the counts
     * come back so that a plan that does not match the rows fails the statement (and with it the COMMIT sent behind
     * it) rather than committing. A duplicate passenger committed elsewhere meanwhile fails the INSERT on the unique
     * index (23505), which rolls the batch back for a retry.
     */
    private static final String TAKE = """
            WITH seat AS (
                UPDATE flight_inventory i SET seats_available = i.seats_available - d.taken, version = i.version + 1
                FROM unnest($3::int[], $4::int[]) AS d(shard, taken)
                WHERE i.flight_id = $1 AND i.fare_class = $2 AND i.shard = d.shard AND i.seats_available >= d.taken
                RETURNING i.shard),
            booked AS (
                INSERT INTO bookings (id, flight_id, fare_class, passenger_id, elite, shard, idempotency_key, request_hash)
                SELECT b.id, $1, $2, b.passenger_id, b.elite, b.shard, b.idempotency_key, b.request_hash
                FROM unnest($5::uuid[], $6::text[], $7::bool[], $8::int[], $9::text[], $10::text[])
                    AS b(id, passenger_id, elite, shard, idempotency_key, request_hash)
                RETURNING id)
            SELECT 1 / ((SELECT count(*) FROM seat) = cardinality($3::int[]) AND (SELECT count(*) FROM booked) = cardinality($5::uuid[]))::int
                AS checked""";

    /** One booking of a batch, as it is inserted. */
    public record NewBooking(UUID id, String passengerId, boolean elite, int shard, String idempotencyKey,
            String requestHash) {
    }

    /** The confirmed booking each of {@code passengerIds} holds on the flight, for those who hold one. */
    public Uni<Map<String, UUID>> holders(SqlClient client, String flightId, List<String> passengerIds) {
        return client.preparedQuery(HOLDERS).execute(Tuple.of(flightId, passengerIds.toArray(String[]::new))).map(rows -> {
            Map<String, UUID> holders = new HashMap<>();
            for (Row row : rows) {
                UUID held = row.getUUID("id");
                if (held != null) {
                    holders.put(row.getString("passenger_id"), held);
                }
            }
            return holders;
        });
    }

    /**
     * Takes {@code seatsTaken[i]} seats from shard {@code shards[i]} and inserts {@code bookings}, in one statement;
     * the caller holds the shard rows' locks. Fails (division by zero) if a row had fewer seats than planned.
     */
    public Uni<Void> take(SqlClient client, FareKey fare, int[] shards, int[] seatsTaken, List<NewBooking> bookings) {
        int n = bookings.size();
        UUID[] ids = new UUID[n];
        String[] passengers = new String[n];
        Boolean[] elite = new Boolean[n];
        Integer[] bookedShards = new Integer[n];
        String[] keys = new String[n];
        String[] hashes = new String[n];
        for (int i = 0; i < n; i++) {
            NewBooking booking = bookings.get(i);
            ids[i] = booking.id();
            passengers[i] = booking.passengerId();
            elite[i] = booking.elite();
            bookedShards[i] = booking.shard();
            keys[i] = booking.idempotencyKey();
            hashes[i] = booking.requestHash();
        }
        return client.preparedQuery(TAKE).execute(Tuple.from(new Object[] { fare.flightId(), fare.fareClass(), boxed(shards),
                boxed(seatsTaken), ids, passengers, elite, bookedShards, keys, hashes })).replaceWithVoid();
    }

    private static Integer[] boxed(int[] values) {
        return Arrays.stream(values).boxed().toArray(Integer[]::new);
    }
}
