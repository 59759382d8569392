package dev.turnstile.booking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

/**
 * A ticket claim must cost what its batch costs, not what the backlog costs: during a flash sale the workers hold back
 * while bookings queue at a gate, so tens of thousands of bookings can be pending when a claim runs, and a claim that
 * reads all of them each time held a connection and a core for seconds (seen in pg_stat_activity during a sale).
 */
@QuarkusTest
class TicketClaimCostTest {

    private static final int BACKLOG = 20_000;
    private static final int BATCH = 50;
    private static final Pattern ACTUAL_ROWS = Pattern.compile("\"Actual Rows\": (\\d+)");

    @Test
    void aClaimReadsAboutItsBatchWhateverTheBacklog() throws SQLException {
        String flight = "CLAIM-COST-" + UUID.randomUUID();
        try (Connection connection = TestDatabase.connect(); Statement statement = connection.createStatement()) {
            // Uncommitted, so the app's own workers never see the backlog; rolled back afterwards.
            connection.setAutoCommit(false);
            statement.executeUpdate("INSERT INTO bookings (flight_id, fare_class, passenger_id, shard, created_at) "
                    + "SELECT '" + flight + "', 'Y', 'p' || g, 0, now() + g * interval '1 microsecond' "
                    + "FROM generate_series(1, " + BACKLOG + ") g");
            String plan;
            try (ResultSet explained = statement.executeQuery("EXPLAIN (ANALYZE, FORMAT JSON) "
                    + BookingRepository.ISSUE_TICKETS.replace("$1", Integer.toString(BATCH)))) {
                explained.next();
                plan = explained.getString(1);
            }
            try (ResultSet left = statement.executeQuery(
                    "SELECT count(*) FROM bookings WHERE flight_id = '" + flight + "' AND ticket_status = 'PENDING'")) {
                left.next();
                assertEquals(BACKLOG - BATCH, left.getInt(1), "one batch issued");
            }
            connection.rollback();

            int mostRowsOfOneNode = 0;
            Matcher rows = ACTUAL_ROWS.matcher(plan);
            while (rows.find()) {
                mostRowsOfOneNode = Math.max(mostRowsOfOneNode, Integer.parseInt(rows.group(1)));
            }
            assertTrue(mostRowsOfOneNode <= 10 * BATCH, "a plan node read " + mostRowsOfOneNode + " rows: " + plan);
        }
    }
}
