package dev.turnstile.rental;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

/**
 * A lease lasts at least as long as asked. Found by LeaseTest failing in CI: a one-second lease taken at x.9 s ended at
 * x+1 s, so the second holder got in after a tenth of a second.
 */
class LeaseExpiryTest {

    @Test
    void aLeaseTakenLateInASecondStillLastsItsWholeTtl() {
        Instant now = Instant.ofEpochSecond(1_000, 950_000_000);
        Instant expiry = Lease.expiry(now, 1);
        assertFalse(expiry.isBefore(now.plus(Duration.ofSeconds(1))), "expires " + expiry + " for a lease taken at " + now);
        assertEquals(Instant.ofEpochSecond(1_002), expiry);
    }

    @Test
    void aLeaseTakenOnTheSecondEndsExactlyAfterItsTtl() {
        assertEquals(Instant.ofEpochSecond(1_060), Lease.expiry(Instant.ofEpochSecond(1_000), 60));
    }
}
