package dev.turnstile.retry;

import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import java.util.function.LongUnaryOperator;

import org.eclipse.microprofile.config.ConfigProvider;

import io.smallrye.faulttolerance.api.CustomBackoffStrategy;

/**
 * "Full jitter" (AWS Architecture Blog, "Exponential Backoff and Jitter"): before retry n, wait a uniformly random
 * time in [0, min(cap, base * 2^(n-1))]. SmallRye's own jitter is uniform around a fixed delay, which keeps
 * colliding writers in lock-step; spreading them over the whole window is what makes the next attempt likely to win.
 *
 * <p>The base is the {@code @Retry(delay)} of the annotated method; the cap is {@code turnstile.retry.max-delay-ms}.
 * SmallRye creates one instance per guarded invocation, so the attempt count is per call.
 */
public final class FullJitterBackoff implements CustomBackoffStrategy {

    private final LongSupplier cap;
    private final LongUnaryOperator uniformUpTo;
    private long base;
    private int retries;

    /**
     * The cap is looked up only when a retry happens: SmallRye creates an instance for every guarded call, and a
     * config lookup per call showed up in the rental benchmark's CPU profile although most calls never retry.
     */
    public FullJitterBackoff() {
        this(() -> ConfigProvider.getConfig().getOptionalValue("turnstile.retry.max-delay-ms", Long.class).orElse(1000L),
                bound -> ThreadLocalRandom.current().nextLong(bound + 1));
    }

    /** @param uniformUpTo returns a value in [0, bound], both ends included */
    FullJitterBackoff(long cap, LongUnaryOperator uniformUpTo) {
        this(() -> cap, uniformUpTo);
    }

    private FullJitterBackoff(LongSupplier cap, LongUnaryOperator uniformUpTo) {
        this.cap = cap;
        this.uniformUpTo = uniformUpTo;
    }

    @Override
    public void init(long initialDelayInMillis) {
        this.base = initialDelayInMillis;
    }

    @Override
    public long nextDelayInMillis(Throwable cause) {
        retries++;
        return uniformUpTo.applyAsLong(ceiling(base, cap.getAsLong(), retries));
    }

    /** The largest wait before retry number {@code retry} (1-based): base * 2^(retry-1), capped, overflow-safe. */
    static long ceiling(long base, long cap, int retry) {
        int shift = Math.min(retry - 1, 62);
        long doubled = base << shift;
        return (doubled >> shift) != base || doubled < 0 ? cap : Math.min(cap, doubled);
    }
}
