package dev.turnstile.booking;

import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * SQL on {@code bookings}: taking a seat (decrement and insert in one statement, so the lock on the inventory row is
 * held for one round trip less), cancelling, reading, and claiming the ticket queue. The key a booking was made under
 * is given up by the idempotency floor ({@link BookingKeys}).
 */
@ApplicationScoped
public class BookingRepository {

    /**
     * Every way to take a seat ends in this: the seat (CTE {@code seat}, one UPDATE) and the booking row in one
     * statement, so the row lock is held one round trip less. The passenger's existing confirmed booking on the flight
     * is read in the same statement and stops the UPDATE, so a retry without a key takes no second seat and costs no
     * extra round trip. A duplicate that commits while this statement runs is caught by the unique index: the INSERT
     * waits for it, then fails the statement (23505), so even a COMMIT already sent behind it rolls back, seat and all,
     * and the caller retries.
     */
    private static final String TAKE = """
            WITH existing AS (
                SELECT id FROM bookings WHERE flight_id = $1 AND passenger_id = $4 AND status = 'CONFIRMED'),
            seat AS (%s),
            booked AS (
                INSERT INTO bookings (flight_id, fare_class, passenger_id, elite, shard, idempotency_key, request_hash)
                SELECT $1, $2, $4, $5, seat.shard, $6, $7 FROM seat
                RETURNING id)
            SELECT (SELECT id FROM booked) AS id, (SELECT id FROM existing) AS existing""";
    /** For strategies that have read (and maybe locked) the row: the rule was checked in Java. */
    private static final String TAKE_READ_SEAT = """
            UPDATE flight_inventory SET seats_available = seats_available - 1, version = version + 1
                WHERE flight_id = $1 AND fare_class = $2 AND shard = $3 AND seats_available > 0%s
                  AND NOT EXISTS (SELECT 1 FROM existing)
                RETURNING shard""";
    private static final String TAKE_LOCKED_SEAT = TAKE.formatted(TAKE_READ_SEAT.formatted(""));
    /**
     * The row's version as read, and no later fare revision: a reset that lowers the shard count deletes rows and one
     * that raises it creates them again at the first version, which a take after two resets found "unchanged".
     */
    private static final String TAKE_SEAT_AT_VERSION = TAKE.formatted(
            TAKE_READ_SEAT.formatted(" AND version = $8 AND fare_revision <= $9"));
    /**
     * The rule inside the statement. On a single-row fare the reserve is checked on the row itself, which PostgreSQL
     * re-evaluates against the newest row version after waiting for a concurrent writer, so it is exact. On a
     * sharded fare it needs the sum over the other rows, which nothing locks: see docs/booking.md on write skew. The
     * fare row is not re-read after such a wait: a row a reset rewrote meanwhile carries a newer fare revision than
     * the fare row this statement sees, takes nothing, and the fall-over decides on a fresh read.
     */
    private static final String TAKE_SEAT_ATOMICALLY = TAKE.formatted("""
            UPDATE flight_inventory i SET seats_available = i.seats_available - 1, version = i.version + 1
                FROM fares f
                WHERE f.flight_id = $1 AND f.fare_class = $2 AND i.flight_id = $1 AND i.fare_class = $2
                  AND i.shard = $3 % f.shards AND i.seats_available > 0 AND i.fare_revision <= f.revision
                  AND ($5 OR f.elite_reserve = 0
                       OR (CASE WHEN f.shards = 1 THEN i.seats_available
                           ELSE (SELECT sum(s.seats_available) FROM flight_inventory s
                                 WHERE s.flight_id = $1 AND s.fare_class = $2) END) > f.elite_reserve)
                  AND NOT EXISTS (SELECT 1 FROM existing)
                RETURNING i.shard""");
    private static final String FIND = """
            SELECT id, flight_id, fare_class, passenger_id, elite, status, ticket_status, ticket_number
            FROM bookings WHERE id = $1""";
    private static final String FIND_CONFIRMED = """
            SELECT id FROM bookings WHERE flight_id = $1 AND passenger_id = $2 AND status = 'CONFIRMED'""";
    /**
     * Locks the booking and, FOR KEY SHARE, its fare row: a fare reset (which takes the fare row FOR UPDATE before it
     * drops or re-creates shard rows) cannot run between this and the seat's return, so the shard the seat goes back
     * to exists when the next statement (a new snapshot under READ COMMITTED) looks for it.
     */
    private static final String LOCK_FOR_CANCEL = """
            SELECT b.flight_id, b.fare_class, b.passenger_id, b.shard, b.status, b.ticket_status, f.shards
            FROM bookings b JOIN fares f ON f.flight_id = b.flight_id AND f.fare_class = b.fare_class
            WHERE b.id = $1
            FOR NO KEY UPDATE OF b FOR KEY SHARE OF f""";
    /**
     * The seat goes back to the booking's shard (or the last one, should a reset have removed it), and the booking is
     * cancelled only if a seat went back, so "no inventory row updated" can never be answered as a cancel. A cancel
     * voids the ticket whether it was issued or not (an issued number stays, for the refund).
     */
    private static final String CANCEL = """
            WITH seat AS (
                UPDATE flight_inventory i SET seats_available = i.seats_available + 1, version = i.version + 1
                WHERE i.flight_id = $2 AND i.fare_class = $3 AND i.shard = $4
                RETURNING i.shard)
            UPDATE bookings SET status = 'CANCELLED', cancelled_at = now(), ticket_status = 'VOID'
            WHERE id = $1 AND status = 'CONFIRMED' AND EXISTS (SELECT 1 FROM seat)
            RETURNING id""";
    private static final String COUNT_CONFIRMED = """
            SELECT count(*) AS confirmed FROM bookings WHERE flight_id = $1 AND fare_class = $2 AND status = 'CONFIRMED'""";
    /**
     * SKIP LOCKED: concurrent workers (in this JVM or another instance) each get different rows and never wait for
     * one another. The ticket number comes from a sequence, so nothing external runs while the rows are locked.
     * {@code id = ANY(ARRAY(...))}, not {@code id IN (...)} with the status repeated outside: the planner joined the
     * latter against every pending booking when its statistics did not know the backlog (autovacuum off or behind),
     * so a claim cost the whole backlog (38 ms at 200 000 pending on an idle machine, against 1 ms now) instead of its
     * batch; the array form looks the batch up by primary key whatever the statistics say. The locked rows are still
     * PENDING: FOR UPDATE re-checks its condition on a row that changed before it was locked, and a cancel waits for
     * the lock.
     */
    static final String ISSUE_TICKETS = """
            UPDATE bookings SET ticket_status = 'ISSUED', ticketed_at = now(),
                ticket_number = 'TK' || lpad(nextval('ticket_number_seq')::text, 10, '0')
            WHERE id = ANY(ARRAY(
                SELECT id FROM bookings WHERE ticket_status = 'PENDING' ORDER BY created_at LIMIT $1
                FOR UPDATE SKIP LOCKED))
            RETURNING id""";

    /** Who takes the seat, and under which idempotency key (both null without one). */
    public record Passenger(String passengerId, boolean elite, String idempotencyKey, String requestHash) {
    }

    /**
     * What a take statement did: {@code booked} is the new booking; else {@code existing} is the passenger's confirmed
     * booking on this flight (nothing was taken); else no seat was left on that row.
     */
    public record Taken(UUID booked, UUID existing) {
    }

    /** The booking a cancel targets, locked, with its fare's current shard count; null when there is none. */
    public record CancelTarget(FareKey fare, String passengerId, int shard, String status, String ticketStatus, int shards) {
    }

    /** Takes a seat on a shard the caller has locked (or reads under SERIALIZABLE). */
    public Uni<Taken> takeLockedSeat(SqlClient client, FareKey fare, int shard, Passenger passenger) {
        return take(client, TAKE_LOCKED_SEAT, Tuple.from(new Object[] { fare.flightId(), fare.fareClass(), shard,
                passenger.passengerId(), passenger.elite(), passenger.idempotencyKey(), passenger.requestHash() }));
    }

    /** Takes a seat only if the shard row still has {@code version}. */
    public Uni<Taken> takeSeatAtVersion(SqlClient client, FareKey fare, int shard, long version, long fareRevision,
            Passenger passenger) {
        return take(client, TAKE_SEAT_AT_VERSION, Tuple.from(new Object[] { fare.flightId(), fare.fareClass(), shard,
                passenger.passengerId(), passenger.elite(), passenger.idempotencyKey(), passenger.requestHash(), version,
                fareRevision }));
    }

    /** Takes a seat on shard {@code shard % shards} if the rule allows it, without any read. */
    public Uni<Taken> takeSeatAtomically(SqlClient client, FareKey fare, int shard, Passenger passenger) {
        return take(client, TAKE_SEAT_ATOMICALLY, Tuple.from(new Object[] { fare.flightId(), fare.fareClass(), shard,
                passenger.passengerId(), passenger.elite(), passenger.idempotencyKey(), passenger.requestHash() }));
    }

    public Uni<BookingView> find(SqlClient client, UUID bookingId) {
        return client.preparedQuery(FIND).execute(Tuple.of(bookingId))
                .map(rows -> rows.size() == 0 ? null : toView(rows.iterator().next()));
    }

    /** The passenger's confirmed booking on this flight, or null. */
    public Uni<UUID> findConfirmed(SqlClient client, String flightId, String passengerId) {
        return client.preparedQuery(FIND_CONFIRMED).execute(Tuple.of(flightId, passengerId))
                .map(rows -> rows.size() == 0 ? null : rows.iterator().next().getUUID("id"));
    }

    /** Locks the booking and its fare against a concurrent reset (see {@link #LOCK_FOR_CANCEL}); null if unknown. */
    public Uni<CancelTarget> lockForCancel(SqlClient client, UUID bookingId) {
        return client.preparedQuery(LOCK_FOR_CANCEL).execute(Tuple.of(bookingId)).map(rows -> {
            if (rows.size() == 0) {
                return null;
            }
            Row row = rows.iterator().next();
            return new CancelTarget(new FareKey(row.getString("flight_id"), row.getString("fare_class")), row.getString("passenger_id"),
                    row.getInteger("shard"), row.getString("status"), row.getString("ticket_status"), row.getInteger("shards"));
        });
    }

    /** Cancels the locked, confirmed booking and returns its seat to {@code shard}; false when no seat went back. */
    public Uni<Boolean> cancel(SqlClient client, UUID bookingId, CancelTarget target, int shard) {
        return client.preparedQuery(CANCEL).execute(Tuple.of(bookingId, target.fare().flightId(), target.fare().fareClass(), shard))
                .map(rows -> rows.size() > 0);
    }

    public Uni<Long> countConfirmed(SqlClient client, FareKey fare) {
        return client.preparedQuery(COUNT_CONFIRMED).execute(Tuple.of(fare.flightId(), fare.fareClass()))
                .map(rows -> rows.iterator().next().getLong("confirmed"));
    }

    /** Issues tickets to at most {@code batch} pending bookings in one short transaction; returns how many. */
    public Uni<Integer> issueTickets(SqlClient client, int batch) {
        return client.preparedQuery(ISSUE_TICKETS).execute(Tuple.of(batch)).map(rows -> rows.rowCount());
    }

    private static Uni<Taken> take(SqlClient client, String sql, Tuple arguments) {
        return client.preparedQuery(sql).execute(arguments).map(rows -> {
            Row row = rows.iterator().next();
            return new Taken(row.getUUID("id"), row.getUUID("existing"));
        });
    }

    private static BookingView toView(Row row) {
        return new BookingView(row.getUUID("id").toString(), row.getString("flight_id"), row.getString("fare_class"),
                row.getString("passenger_id"), row.getBoolean("elite"), row.getString("status"),
                row.getString("ticket_status"), row.getString("ticket_number"));
    }
}
