package dev.turnstile.booking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

/**
 * The UPDATE of a ticket claim must touch what its batch holds, not the backlog: during a flash sale the workers hold
 * back while bookings queue at a gate, so tens of thousands of bookings can be pending when a claim runs. With
 * statistics that do not know the backlog (autovacuum off, or not yet run) the claim written as {@code id IN (...)}
 * joined every pending booking. What is checked is the UPDATE's own side of the plan, not the batch's sub-select
 * (its InitPlan): how that finds the oldest 50 depends on the statistics (an ordered index scan once they know the
 * backlog; a sort of all pending rows on a database analyzed nearly empty, docs/ship.md "Keep autovacuum on").
 */
@QuarkusTest
class TicketClaimCostTest {

    private static final int BACKLOG = 20_000;
    private static final int BATCH = 50;

    @Test
    void theUpdateOfAClaimReadsAboutItsBatchWhateverTheBacklog() throws Exception {
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

            int mostRowsOfOneNode = mostRowsOutsideInitPlans(new ObjectMapper().readTree(plan).get(0).get("Plan"));
            assertTrue(mostRowsOfOneNode <= 10 * BATCH, "a plan node read " + mostRowsOfOneNode + " rows: " + plan);
        }
    }

    private static int mostRowsOutsideInitPlans(JsonNode node) {
        int most = node.path("Actual Rows").asInt();
        for (JsonNode child : node.path("Plans")) {
            if (!"InitPlan".equals(child.path("Parent Relationship").asText())) {
                most = Math.max(most, mostRowsOutsideInitPlans(child));
            }
        }
        return most;
    }
}
