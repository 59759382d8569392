package dev.turnstile.rental;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import dev.turnstile.retry.FullJitterBackoff;

/**
 * The backoff the rental retries use: before retry n the wait is uniform in [0, min(cap, base * 2^(n-1))]
 * (cap 1000 ms by default). Sampled, because the real strategy draws from ThreadLocalRandom.
 */
class FullJitterBackoffBoundsTest {

    private static final int SAMPLES = 4000;

    @Test
    void everyWaitLiesInTheDoublingWindowAndSpreadsOverIt() {
        long base = 10;
        for (int retry = 1; retry <= 9; retry++) {
            long ceiling = Math.min(1000, base << (retry - 1));
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            for (int sample = 0; sample < SAMPLES; sample++) {
                FullJitterBackoff backoff = new FullJitterBackoff();
                backoff.init(base);
                long wait = 0;
                for (int n = 1; n <= retry; n++) {
                    wait = backoff.nextDelayInMillis(new VersionConflict("b-1", null));
                }
                min = Math.min(min, wait);
                max = Math.max(max, wait);
            }
            assertTrue(min >= 0, "retry " + retry + ": no negative wait, saw " + min);
            assertTrue(max <= ceiling, "retry " + retry + ": at most " + ceiling + " ms, saw " + max);
            assertTrue(min <= ceiling / 10, "retry " + retry + ": full jitter reaches near 0, lowest was " + min);
            assertTrue(max >= ceiling * 9 / 10, "retry " + retry + ": full jitter reaches near " + ceiling + ", highest was " + max);
        }
    }
}
