package dev.turnstile.booking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.turnstile.problem.ProblemException;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.pgclient.PgException;

/**
 * A serialization failure or a deadlock in a transaction that is not retried (a cancel, a fare reset, a read) went
 * out as the internal RetryableConflict: a 500, which tells a client not to retry what a retry would settle. On
 * PostgreSQL's default READ COMMITTED these are rare there; under a database default of REPEATABLE READ or
 * SERIALIZABLE, or on CockroachDB, a cancel during a sale meets them. They cannot be produced on demand here, so the
 * transaction fails with the server's own error, and the answer is checked.
 */
@QuarkusTest
class UnretriedConflictTest {

    @Inject
    BookingAttempts attempts;

    @ParameterizedTest
    @ValueSource(strings = { "40001", "40P01" })
    void aConflictInATransactionThatIsNotRetriedIsContentionToRetry(String sqlState) {
        PgException conflict = new PgException("conflict", "ERROR", sqlState, null);

        Throwable once = attempts.once(connection -> Uni.createFrom().failure(conflict))
                .onItemOrFailure().transform((item, failure) -> failure).await().atMost(Duration.ofSeconds(10));
        Throwable read = attempts.read(connection -> Uni.createFrom().failure(conflict))
                .onItemOrFailure().transform((item, failure) -> failure).await().atMost(Duration.ofSeconds(10));

        for (Throwable failure : new Throwable[] { once, read }) {
            ProblemException problem = assertInstanceOf(ProblemException.class, failure);
            assertEquals(409, problem.status());
            assertEquals("CONTENTION", problem.reason());
            assertTrue(problem.retryAfterSeconds() > 0, "with Retry-After");
        }
    }
}
