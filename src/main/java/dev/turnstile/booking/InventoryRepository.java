package dev.turnstile.booking;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import dev.turnstile.booking.BookingProblems.RetryableConflict;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/** SQL on {@code fares} and {@code flight_inventory}; no rules here. */
@ApplicationScoped
public class InventoryRepository {

    /** How {@link #read} locks the inventory rows it returns. */
    public enum Lock {
        NONE(""),
        /** Rows are locked in shard order, so two lockers of the same fare can never deadlock. */
        WAIT(" FOR UPDATE OF i"),
        NOWAIT(" FOR UPDATE OF i NOWAIT");

        private final String clause;

        Lock(String clause) {
            this.clause = clause;
        }
    }

    /**
     * A statement that waited for a shard row a reset held sees that row as the reset left it but the fare row, which
     * it does not lock, and the shard rows the reset added, as they were when it began: the row's fare revision then
     * differs from the fare's, and {@link #read} answers a retryable conflict rather than a fare that never was.
     */
    private static final String READ = """
            SELECT f.seats_total, f.elite_reserve, f.shards, f.revision, i.shard, i.seats_available, i.version, i.fare_revision
            FROM fares f JOIN flight_inventory i ON i.flight_id = f.flight_id AND i.fare_class = f.fare_class
            WHERE f.flight_id = $1 AND f.fare_class = $2 ORDER BY i.shard""";
    /** As READ plus the confirmed count, in one statement: one snapshot, so the figures add up under any load. */
    private static final String READ_COUNTED = """
            SELECT f.seats_total, f.elite_reserve, f.shards, f.revision, i.shard, i.seats_available, i.version,
                   (SELECT count(*) FROM bookings b WHERE b.flight_id = f.flight_id AND b.fare_class = f.fare_class
                          AND b.status = 'CONFIRMED') AS booked
            FROM fares f JOIN flight_inventory i ON i.flight_id = f.flight_id AND i.fare_class = f.fare_class
            WHERE f.flight_id = $1 AND f.fare_class = $2 ORDER BY i.shard""";
    /** For a fare thought sold out: its seats now, and the passenger's confirmed booking on the flight, unlocked. */
    private static final String SEATS_LEFT = """
            SELECT (SELECT sum(i.seats_available) FROM flight_inventory i WHERE i.flight_id = $1 AND i.fare_class = $2) AS seats,
                   (SELECT b.id FROM bookings b WHERE b.flight_id = $1 AND b.passenger_id = $3 AND b.status = 'CONFIRMED') AS existing""";
    private static final String CREATE_FARE = """
            INSERT INTO fares (flight_id, fare_class, seats_total, elite_reserve, shards) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (flight_id, fare_class) DO NOTHING RETURNING revision""";
    private static final String LOCK_FARE = "SELECT revision FROM fares WHERE flight_id = $1 AND fare_class = $2 FOR UPDATE";
    private static final String DROP_SHARDS = "DELETE FROM flight_inventory WHERE flight_id = $1 AND fare_class = $2 AND shard >= $3";
    private static final String PUT_SHARDS = """
            INSERT INTO flight_inventory AS i (flight_id, fare_class, shard, seats_available, fare_revision)
            SELECT $1, $2, s - 1, seats, $4 FROM unnest($3::int[]) WITH ORDINALITY AS u(seats, s)
            ON CONFLICT (flight_id, fare_class, shard)
            DO UPDATE SET seats_available = EXCLUDED.seats_available, version = i.version + 1,
                          fare_revision = EXCLUDED.fare_revision""";
    private static final String UPDATE_FARE = """
            UPDATE fares SET seats_total = $3, elite_reserve = $4, shards = $5, revision = revision + 1
            WHERE flight_id = $1 AND fare_class = $2 RETURNING revision""";
    private static final String AUDIT = """
            SELECT f.seats_total, f.elite_reserve,
                   array(SELECT i.seats_available FROM flight_inventory i
                         WHERE i.flight_id = f.flight_id AND i.fare_class = f.fare_class ORDER BY i.shard) AS shard_seats,
                   (SELECT count(*) FROM bookings b WHERE b.flight_id = f.flight_id AND b.fare_class = f.fare_class
                          AND b.status = 'CONFIRMED') AS confirmed
            FROM fares f WHERE f.flight_id = $1 AND f.fare_class = $2""";

    /** Seats left on a fare and the passenger's confirmed booking on its flight (or null). */
    public record SeatsLeft(long seats, java.util.UUID existing) {
    }

    /** One unlocked statement; null when the fare has no inventory rows. */
    public Uni<SeatsLeft> seatsLeft(SqlClient client, FareKey fare, String passengerId) {
        return client.preparedQuery(SEATS_LEFT).execute(Tuple.of(fare.flightId(), fare.fareClass(), passengerId)).map(rows -> {
            Row row = rows.iterator().next();
            Long seats = row.getLong("seats");
            return seats == null ? null : new SeatsLeft(seats, row.getUUID("existing"));
        });
    }

    /** The fare with all its shard rows, or null when there is no such fare. */
    public Uni<FareState> read(SqlClient client, FareKey fare, Lock lock) {
        return client.preparedQuery(READ + lock.clause).execute(Tuple.of(fare.flightId(), fare.fareClass()))
                .map(rows -> {
                    for (Row row : rows) {
                        // Newer, not other: the release before V4 moved the fare's revision on a reset and left the
                        // rows' behind, and such a fare must stay bookable through a rolling upgrade
                        if (row.getLong("fare_revision").longValue() > row.getLong("revision").longValue()) {
                            throw new RetryableConflict("the fare was reset while its shard rows were awaited");
                        }
                    }
                    return toState(fare, rows);
                });
    }

    /** A fare with its confirmed bookings, as of one snapshot. */
    public record CountedFare(FareState state, long booked) {
    }

    /** The fare and its confirmed-booking count read in one statement, or null when there is no such fare. */
    public Uni<CountedFare> readCounted(SqlClient client, FareKey fare) {
        return client.preparedQuery(READ_COUNTED).execute(Tuple.of(fare.flightId(), fare.fareClass())).map(rows -> rows.size() == 0
                ? null
                : new CountedFare(toState(fare, rows), rows.iterator().next().getLong("booked")));
    }

    /** Inserts a new fare with its shard rows; false (and no write) when the fare exists already. */
    public Uni<Boolean> create(SqlConnection connection, FareKey fare, int seats, int eliteReserve,
            int[] shardSeats) {
        return connection.preparedQuery(CREATE_FARE)
                .execute(Tuple.of(fare.flightId(), fare.fareClass(), seats, eliteReserve, shardSeats.length))
                .chain(created -> created.size() == 0
                        ? Uni.createFrom().item(false)
                        : putShards(connection, fare, shardSeats, created.iterator().next().getLong("revision")).replaceWith(true));
    }

    /** Locks the fare row, so that two resets of one fare run one after the other. */
    public Uni<Void> lockFare(SqlConnection connection, FareKey fare) {
        return connection.preparedQuery(LOCK_FARE).execute(Tuple.of(fare.flightId(), fare.fareClass())).replaceWithVoid();
    }

    /** Replaces capacity and shard rows of an existing fare; the caller holds the locks and has checked the counts. */
    public Uni<Void> reset(SqlConnection connection, FareKey fare, int seats, int eliteReserve,
            int[] shardSeats) {
        return connection.preparedQuery(DROP_SHARDS).execute(Tuple.of(fare.flightId(), fare.fareClass(), shardSeats.length))
                .chain(() -> connection.preparedQuery(UPDATE_FARE)
                        .execute(Tuple.of(fare.flightId(), fare.fareClass(), seats, eliteReserve, shardSeats.length)))
                .chain(updated -> putShards(connection, fare, shardSeats, updated.iterator().next().getLong("revision")));
    }

    /** One statement, so one snapshot: the figures are consistent with each other even under load. Null if unknown. */
    public Uni<AuditView> audit(SqlClient client, FareKey fare) {
        return client.preparedQuery(AUDIT).execute(Tuple.of(fare.flightId(), fare.fareClass())).map(rows -> {
            if (rows.size() == 0) {
                return null;
            }
            Row row = rows.iterator().next();
            List<Integer> shardSeats = Arrays.asList(row.getArrayOfIntegers("shard_seats"));
            int available = shardSeats.stream().mapToInt(Integer::intValue).sum();
            long confirmed = row.getLong("confirmed");
            int total = row.getInteger("seats_total");
            boolean negative = shardSeats.stream().anyMatch(s -> s < 0);
            return new AuditView(fare.flightId(), fare.fareClass(), total == available + confirmed && !negative, total, available,
                    confirmed, row.getInteger("elite_reserve"), shardSeats, negative);
        });
    }

    /** Writes every shard row under the fare's revision {@code revision}, so a waiting booking can tell it changed. */
    private Uni<Void> putShards(SqlConnection connection, FareKey fare, int[] shardSeats, long revision) {
        Integer[] seats = Arrays.stream(shardSeats).boxed().toArray(Integer[]::new);
        return connection.preparedQuery(PUT_SHARDS).execute(Tuple.of(fare.flightId(), fare.fareClass(), seats, revision)).replaceWithVoid();
    }

    private static FareState toState(FareKey fare, RowSet<Row> rows) {
        if (rows.size() == 0) {
            return null;
        }
        List<FareState.ShardSeats> shards = new ArrayList<>(rows.size());
        Row first = null;
        for (Row row : rows) {
            first = first == null ? row : first;
            shards.add(new FareState.ShardSeats(row.getInteger("shard"), row.getInteger("seats_available"), row.getLong("version")));
        }
        return new FareState(fare, first.getInteger("seats_total"), first.getInteger("elite_reserve"),
                first.getInteger("shards"), first.getLong("revision"), List.copyOf(shards));
    }
}
