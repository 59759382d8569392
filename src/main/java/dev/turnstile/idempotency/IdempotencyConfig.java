package dev.turnstile.idempotency;

import java.time.Duration;

import dev.turnstile.config.CheckedValues.AtLeastOneSecond;
import dev.turnstile.config.CheckedValues.Positive;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithConverter;
import io.smallrye.config.WithDefault;

/** {@code turnstile.idempotency.*}: the PostgreSQL key store. Values are checked at startup, naming the property. */
@ConfigMapping(prefix = "turnstile.idempotency")
public interface IdempotencyConfig {

    /** How long an answer is replayed under its key. */
    @WithDefault("24H")
    @WithConverter(AtLeastOneSecond.class)
    Duration ttl();

    Cleanup cleanup();

    /** {@code turnstile.idempotency.cleanup.*} ({@link ExpiredKeyCleaner}). */
    interface Cleanup {

        /** A Quarkus {@code @Scheduled} interval ({@code 10m}, {@code 1h}), or {@code off}. */
        @WithDefault("10m")
        String interval();

        /** How long after the start the first sweep waits (a {@code @Scheduled} delay: {@code 30s}, {@code 5m}). */
        @WithDefault("30s")
        String firstDelay();

        /** Keys deleted per statement. */
        @WithDefault("1000")
        @WithConverter(Positive.class)
        int batchSize();
    }
}
