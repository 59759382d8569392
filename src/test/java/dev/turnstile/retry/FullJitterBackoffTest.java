package dev.turnstile.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import org.junit.jupiter.api.Test;

class FullJitterBackoffTest {

    @Test
    void windowDoublesPerRetryUpToTheCap() {
        List<Long> ceilings = new ArrayList<>();
        FullJitterBackoff backoff = new FullJitterBackoff(100, bound -> {
            ceilings.add(bound);
            return bound;
        });
        backoff.init(10);

        for (int retry = 0; retry < 6; retry++) {
            backoff.nextDelayInMillis(new RuntimeException());
        }

        assertEquals(List.of(10L, 20L, 40L, 80L, 100L, 100L), ceilings);
    }

    @Test
    void realDelaysStayWithinZeroAndTheWindowAndUseAllOfIt() {
        long lowest = Long.MAX_VALUE;
        long highest = Long.MIN_VALUE;
        for (int call = 0; call < 5_000; call++) {
            FullJitterBackoff backoff = new FullJitterBackoff(1_000, bound -> ThreadLocalRandom.current().nextLong(bound + 1));
            backoff.init(40);
            backoff.nextDelayInMillis(null);
            long second = backoff.nextDelayInMillis(null);
            assertTrue(second >= 0 && second <= 80, "second retry waits within [0, 80] ms, was " + second);
            lowest = Math.min(lowest, second);
            highest = Math.max(highest, second);
        }
        assertTrue(lowest <= 4, "full jitter reaches down to about 0, lowest was " + lowest);
        assertTrue(highest >= 76, "full jitter reaches up to about the window, highest was " + highest);
    }

    @Test
    void hugeRetryCountsNeitherOverflowNorExceedTheCap() {
        assertEquals(500, FullJitterBackoff.ceiling(10, 500, 63));
        assertEquals(500, FullJitterBackoff.ceiling(Long.MAX_VALUE / 2, 500, 3));
        assertEquals(10, FullJitterBackoff.ceiling(10, 500, 1));
    }

    @Test
    void productionConstructorReadsTheCapFromConfiguration() {
        FullJitterBackoff backoff = new FullJitterBackoff();
        backoff.init(1_000_000);
        assertTrue(backoff.nextDelayInMillis(null) <= 1000, "default cap is 1000 ms");
    }
}
