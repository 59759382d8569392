package dev.turnstile.booking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import java.util.logging.Level;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import dev.turnstile.CapturedLogs;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.pgclient.PgException;

/**
 * The edges of the transactions {@link BoundedTransactions} runs by hand (BEGIN and COMMIT sent as statements): a
 * COMMIT that fails, and a work that throws instead of returning its Uni.
 */
@QuarkusTest
class BoundedTransactionsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Inject
    BoundedTransactions transactions;

    @ConfigProperty(name = "quarkus.datasource.reactive.max-size")
    int poolSize;

    /**
     * A deferred constraint fails at COMMIT, as a serialization failure of SERIALIZABLE can: the failure is the
     * COMMIT's own, and no ROLLBACK follows it (PostgreSQL has ended the transaction; the ROLLBACK sent after it drew a
     * "there is no transaction in progress" warning, logged by the client, and cost a round trip). The connection then
     * serves the next transaction.
     */
    @Test
    void aCommitThatFailsIsTheFailureAndIsNotFollowedByARollback() {
        try (CapturedLogs warnings = CapturedLogs.of("", record -> record.getLevel().intValue() >= Level.WARNING.intValue()
                && String.valueOf(record.getMessage()).contains("no transaction in progress"))) {
            for (int i = 0; i < 3; i++) {
                Throwable failure = assertThrows(Throwable.class, () -> transactions.runSerializable(connection -> connection
                        .query("CREATE TEMP TABLE commit_fails (x int UNIQUE DEFERRABLE INITIALLY DEFERRED) ON COMMIT DROP").execute()
                        .chain(() -> connection.query("INSERT INTO commit_fails VALUES (1), (1)").execute()))
                        .await().atMost(TIMEOUT));
                assertEquals("23505", assertInstanceOf(PgException.class, failure).getSqlState(), failure.toString());
            }
            assertEquals(1, transactions.run(connection -> connection.query("SELECT 1").execute())
                    .await().atMost(TIMEOUT).iterator().next().getInteger(0));
            assertEquals(List.of(), warnings.messages());
        }
    }

    /** A work that throws while it is being made fails its transaction and gives its connection back, every time. */
    @Test
    void aWorkThatThrowsGivesItsConnectionBack() {
        for (int i = 0; i < poolSize + 5; i++) {
            Throwable failure = assertThrows(Throwable.class, () -> transactions.run(connection -> {
                throw new IllegalStateException("the work could not be made");
            }).await().atMost(TIMEOUT));
            assertEquals("the work could not be made", failure.getMessage());
        }
        assertEquals(1, transactions.run(connection -> connection.query("SELECT 1").execute())
                .await().atMost(TIMEOUT).iterator().next().getInteger(0));
    }
}
