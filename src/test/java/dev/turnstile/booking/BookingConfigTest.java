package dev.turnstile.booking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.turnstile.idempotency.IdempotencyConfig;
import dev.turnstile.identity.IdentityConfig;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

/**
 * The config mappings on their own, without starting Quarkus (its duration converter, as at startup): the defaults,
 * and a bad value fails naming its property.
 */
class BookingConfigTest {

    /** The identity settings have no defaults: a start needs them. */
    private static final Map<String, String> IDENTITY = Map.of(
            "turnstile.identity.issuer", "https://issuer.example",
            "turnstile.identity.audience", "turnstile",
            "turnstile.identity.public-key-location", "publicKey.pem");

    private static SmallRyeConfig config(Map<String, String> properties) {
        return new SmallRyeConfigBuilder()
                .withMapping(BookingConfig.class).withMapping(IdempotencyConfig.class).withMapping(IdentityConfig.class)
                .withConverter(Duration.class, 200, new DurationConverter())
                .withSources(new PropertiesConfigSource(properties, "test", 500))
                .withSources(new PropertiesConfigSource(IDENTITY, "identity", 100))
                .build();
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        SmallRyeConfig config = config(Map.of());
        BookingConfig booking = config.getConfigMapping(BookingConfig.class);
        assertEquals(Strategy.OPTIMISTIC, booking.defaultStrategy());
        assertEquals(EnumSet.allOf(Strategy.class), booking.allowedStrategies());
        assertEquals(1, booking.transactionsPerFare());
        assertEquals("2s", booking.lockTimeout());
        assertEquals(Duration.ofMillis(500), booking.ticketing().pollInterval());
        assertEquals(1000, booking.pool().maxWaitQueue());
        IdempotencyConfig idempotency = config.getConfigMapping(IdempotencyConfig.class);
        assertEquals(Duration.ofHours(24), idempotency.ttl());
        assertEquals(1000, idempotency.cleanup().batchSize());
    }

    @ParameterizedTest
    @CsvSource({
            "turnstile.booking.transactions-per-fare, -1",
            "turnstile.booking.ticketing.workers, 0",
            "turnstile.booking.lock-timeout, two seconds",
            "turnstile.booking.default-strategy, fastest",
            "turnstile.booking.pool.acquire-timeout, soon",
            // Vert.x reads -1 as "no bound", the gates and batch queues as "full": every queued booking was 503 BUSY
            "turnstile.booking.pool.max-wait-queue, -1",
            "turnstile.booking.pool.max-wait-queue, 0",
            // Mutiny refuses a zero timeout when a booking first queues at a gate: every gated booking was a 500
            "turnstile.booking.pool.acquire-timeout, 0s",
            "turnstile.idempotency.cleanup.batch-size, 0",
            "turnstile.idempotency.ttl, forever",
            // every stored answer had expired when it was written: a retry with its key was taken for a new request
            "turnstile.idempotency.ttl, 0s",
            "turnstile.idempotency.ttl, -1h",
            "turnstile.idempotency.ttl, 500ms",
            // the pool's connection timeout is whole milliseconds, and 0 there means no timeout at all
            "turnstile.booking.pool.acquire-timeout, PT0.0005S",
            "turnstile.booking.busy-retry-after-seconds, -1",
            "turnstile.booking.statement-timeout, 5 seconds",
            "turnstile.booking.batched.max-size, 0",
            "turnstile.identity.issuer, ' '",
            "turnstile.identity.elite.claim, ' '",
            "turnstile.identity.attempts-per-second, -1",
            "turnstile.identity.verified-tokens.max-entries, -1",
    })
    void anInvalidValueFailsNamingTheProperty(String property, String value) {
        RuntimeException failure = assertThrows(RuntimeException.class, () -> config(Map.of(property, value)));
        assertTrue(failure.getMessage().contains(property), failure.getMessage());
    }
}
