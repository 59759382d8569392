package dev.turnstile.booking;

import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * SQL on {@code bookings}: taking a seat (decrement and insert in one statement, so the lock on the inventory row is
 * held for one round trip less), cancelling, reading, and claiming the ticket queue.
 */
@ApplicationScoped
public class BookingRepository {

    private static final String INSERT_FROM_SEAT = """
            INSERT INTO bookings (flight_id, fare_class, passenger_id, elite, shard, idempotency_key, request_hash)
            SELECT $1, $2, $4, $5, seat.shard, $6, $7 FROM seat
            RETURNING id""";
    /** For strategies that have read (and maybe locked) the row: the rule was checked in Java. */
    private static final String TAKE_READ_SEAT = """
            WITH seat AS (
                UPDATE flight_inventory SET seats_available = seats_available - 1, version = version + 1
                WHERE flight_id = $1 AND fare_class = $2 AND shard = $3 AND seats_available > 0%s
                RETURNING shard)
            """ + INSERT_FROM_SEAT;
    private static final String TAKE_LOCKED_SEAT = TAKE_READ_SEAT.formatted("");
    private static final String TAKE_SEAT_AT_VERSION = TAKE_READ_SEAT.formatted(" AND version = $8");
    /**
     * The rule inside the statement. On a single-row fare the reserve is checked on the row itself, which PostgreSQL
     * re-evaluates against the newest row version after waiting for a concurrent writer, so it is exact. On a
     * sharded fare it needs the sum over the other rows, which nothing locks: see docs/booking.md on write skew.
     */
    private static final String TAKE_SEAT_ATOMICALLY = """
            WITH seat AS (
                UPDATE flight_inventory i SET seats_available = i.seats_available - 1, version = i.version + 1
                FROM fares f
                WHERE f.flight_id = $1 AND f.fare_class = $2 AND i.flight_id = $1 AND i.fare_class = $2
                  AND i.shard = $3 % f.shards AND i.seats_available > 0
                  AND ($5 OR f.elite_reserve = 0
                       OR (CASE WHEN f.shards = 1 THEN i.seats_available
                           ELSE (SELECT sum(s.seats_available) FROM flight_inventory s
                                 WHERE s.flight_id = $1 AND s.fare_class = $2) END) > f.elite_reserve)
                RETURNING i.shard)
            """ + INSERT_FROM_SEAT;
    private static final String FIND = """
            SELECT id, flight_id, fare_class, passenger_id, elite, status, ticket_number FROM bookings WHERE id = $1""";
    /** The seat goes back to the booking's shard (or the last one, should a reset have removed it). */
    private static final String CANCEL = """
            WITH cancelled AS (
                UPDATE bookings SET status = 'CANCELLED', cancelled_at = now(),
                    ticket_status = CASE WHEN ticket_status = 'PENDING' THEN 'VOID' ELSE ticket_status END
                WHERE id = $1 AND status = 'CONFIRMED'
                RETURNING flight_id, fare_class, shard)
            UPDATE flight_inventory i SET seats_available = i.seats_available + 1, version = i.version + 1
            FROM cancelled c JOIN fares f ON f.flight_id = c.flight_id AND f.fare_class = c.fare_class
            WHERE i.flight_id = c.flight_id AND i.fare_class = c.fare_class AND i.shard = LEAST(c.shard, f.shards - 1)
            RETURNING i.shard""";
    private static final String COUNT_CONFIRMED = """
            SELECT count(*) AS confirmed FROM bookings WHERE flight_id = $1 AND fare_class = $2 AND status = 'CONFIRMED'""";
    /** An expired idempotency key may be used again: the booking made under it keeps its data but gives up the key. */
    private static final String RELEASE_KEY = "UPDATE bookings SET idempotency_key = NULL WHERE idempotency_key = $1";
    private static final String FORGET_EXPIRED_KEYS = """
            WITH gone AS (DELETE FROM idempotency_keys WHERE expires_at <= now() RETURNING key)
            UPDATE bookings SET idempotency_key = NULL WHERE idempotency_key IN (SELECT key FROM gone)""";
    /**
     * SKIP LOCKED: concurrent workers (in this JVM or another instance) each get different rows and never wait for
     * one another. The ticket number comes from a sequence, so nothing external runs while the rows are locked.
     */
    private static final String ISSUE_TICKETS = """
            UPDATE bookings SET ticket_status = 'ISSUED', ticketed_at = now(),
                ticket_number = 'TK' || lpad(nextval('ticket_number_seq')::text, 10, '0')
            WHERE ticket_status = 'PENDING' AND id IN (
                SELECT id FROM bookings WHERE ticket_status = 'PENDING' ORDER BY created_at LIMIT $1
                FOR UPDATE SKIP LOCKED)
            RETURNING id""";

    /** Who takes the seat, and under which idempotency key (both null without one). */
    public record Passenger(String passengerId, boolean elite, String idempotencyKey, String requestHash) {
    }

    /** Takes a seat on a shard the caller has locked (or reads under SERIALIZABLE); null when the row has none left. */
    public Uni<UUID> takeLockedSeat(SqlClient client, String flightId, String fareClass, int shard, Passenger passenger) {
        return take(client, TAKE_LOCKED_SEAT, Tuple.from(new Object[] { flightId, fareClass, shard,
                passenger.passengerId(), passenger.elite(), passenger.idempotencyKey(), passenger.requestHash() }));
    }

    /** Takes a seat only if the shard row still has {@code version}; null on a conflict. */
    public Uni<UUID> takeSeatAtVersion(SqlClient client, String flightId, String fareClass, int shard, long version,
            Passenger passenger) {
        return take(client, TAKE_SEAT_AT_VERSION, Tuple.from(new Object[] { flightId, fareClass, shard,
                passenger.passengerId(), passenger.elite(), passenger.idempotencyKey(), passenger.requestHash(), version }));
    }

    /** Takes a seat on shard {@code shard % shards} if the rule allows it, without any read; null otherwise. */
    public Uni<UUID> takeSeatAtomically(SqlClient client, String flightId, String fareClass, int shard, Passenger passenger) {
        return take(client, TAKE_SEAT_ATOMICALLY, Tuple.from(new Object[] { flightId, fareClass, shard,
                passenger.passengerId(), passenger.elite(), passenger.idempotencyKey(), passenger.requestHash() }));
    }

    public Uni<BookingView> find(SqlClient client, UUID bookingId) {
        return client.preparedQuery(FIND).execute(Tuple.of(bookingId))
                .map(rows -> rows.size() == 0 ? null : toView(rows.iterator().next()));
    }

    /** Cancels a confirmed booking and returns its seat; false when it was not confirmed (or does not exist). */
    public Uni<Boolean> cancel(SqlClient client, UUID bookingId) {
        return client.preparedQuery(CANCEL).execute(Tuple.of(bookingId)).map(rows -> rows.rowCount() > 0);
    }

    public Uni<Long> countConfirmed(SqlClient client, String flightId, String fareClass) {
        return client.preparedQuery(COUNT_CONFIRMED).execute(Tuple.of(flightId, fareClass))
                .map(rows -> rows.iterator().next().getLong("confirmed"));
    }

    public Uni<Void> releaseKey(SqlClient client, String idempotencyKey) {
        return client.preparedQuery(RELEASE_KEY).execute(Tuple.of(idempotencyKey)).replaceWithVoid();
    }

    public Uni<Integer> forgetExpiredKeys(SqlClient client) {
        return client.query(FORGET_EXPIRED_KEYS).execute().map(rows -> rows.rowCount());
    }

    /** Issues tickets to at most {@code batch} pending bookings in one short transaction; returns how many. */
    public Uni<Integer> issueTickets(SqlClient client, int batch) {
        return client.preparedQuery(ISSUE_TICKETS).execute(Tuple.of(batch)).map(rows -> rows.rowCount());
    }

    private static Uni<UUID> take(SqlClient client, String sql, Tuple arguments) {
        return client.preparedQuery(sql).execute(arguments)
                .map(rows -> rows.size() == 0 ? null : rows.iterator().next().getUUID("id"));
    }

    private static BookingView toView(Row row) {
        return new BookingView(row.getUUID("id").toString(), row.getString("flight_id"), row.getString("fare_class"),
                row.getString("passenger_id"), row.getBoolean("elite"), row.getString("status"),
                row.getString("ticket_number"));
    }
}
