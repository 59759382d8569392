package dev.turnstile.booking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

import dev.turnstile.problem.ProblemException;
import io.vertx.core.impl.NoStackTraceThrowable;
import io.vertx.pgclient.PgException;

/**
 * The messages vertx-sql-client 4.5.27 really writes. "Connection is not active now" carries the connection's status
 * after it: a request caught by a PostgreSQL stop answered 500 in 2 of 7 runs of bench/faults/booking.sh because the
 * message was compared whole. The race itself cannot be produced on demand, so its exact message is tested here.
 */
class PostgresFaultsTest {

    @Test
    void aConnectionClosedUnderARequestIsStoreUnavailable() {
        ProblemException problem = PostgresFaults.translate(
                new NoStackTraceThrowable("Connection is not active now, current status: CLOSED"), 1);
        assertEquals(503, problem.status());
        assertEquals("STORE_UNAVAILABLE", problem.reason());
    }

    /**
     * A failover can leave the pool on a server that now refuses writes (25006, Aurora's old writer until DNS moves on,
     * a standby promoted late), and a server out of disk or memory (class 53) refuses every write for a while: both
     * are the store being unable right now, retried with the same key, not a bug of the request. Made here from the
     * SQL states PostgreSQL sends; a read-only or full server is not produced on this machine's shared PostgreSQL.
     */
    @Test
    void aServerThatCannotTakeWritesNowIsStoreUnavailable() {
        for (String state : new String[] { "25006", "53000", "53100", "53200" }) {
            ProblemException problem = PostgresFaults.translate(new PgException("refused", "ERROR", state, null), 1);
            assertEquals(503, problem == null ? 500 : problem.status(), state);
        }
        assertNull(PostgresFaults.translate(new PgException("syntax", "ERROR", "42601", null), 1));
    }

    @Test
    void anUnrelatedFailureIsNotAStoreFault() {
        assertNull(PostgresFaults.translate(new NoStackTraceThrowable("Connection is not active, says the test"), 1));
        assertNull(PostgresFaults.translate(new IllegalStateException("Connection is not active now"), 1));
    }
}
