package dev.turnstile.rental;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;

/** {@code turnstile.rental.*} as the mapping reads it: the defaults, and a value that does not convert fails naming its property. */
class RentalConfigTest {

    private static RentalConfig read(Map<String, String> properties) {
        return new SmallRyeConfigBuilder()
                .withSources(new PropertiesConfigSource(properties, "test", 100))
                // Quarkus' own Duration syntax (24H, 10S), as the application reads it
                .withConverter(Duration.class, 100, new DurationConverter())
                .withMapping(RentalConfig.class)
                .build()
                .getConfigMapping(RentalConfig.class);
    }

    @Test
    void theDefaultsAreTheDocumentedOnes() {
        RentalConfig config = read(Map.of());

        assertEquals(30, config.ridesUntilService());
        assertEquals(RentalConfig.Transactions.AUTO, config.transactions());
        assertEquals(Duration.ofHours(24), config.idempotency().ttl());
        assertEquals(Duration.ofSeconds(12), config.idempotency().inProgressExpiry());
    }

    @Test
    void thePropertiesKeepTheirNames() {
        RentalConfig config = read(Map.of(
                "turnstile.rental.rides-until-service", "12",
                "turnstile.rental.transactions", "off",
                "turnstile.rental.idempotency.ttl", "1H",
                "turnstile.rental.idempotency.in-progress-expiry", "4S"));

        assertEquals(12, config.ridesUntilService());
        assertEquals(RentalConfig.Transactions.OFF, config.transactions());
        assertEquals(Duration.ofHours(1), config.idempotency().ttl());
        assertEquals(Duration.ofSeconds(4), config.idempotency().inProgressExpiry());
    }

    @Test
    void anUnknownTransactionsModeFailsNamingTheProperty() {
        RuntimeException failure = assertThrows(RuntimeException.class,
                () -> read(Map.of("turnstile.rental.transactions", "sometimes")));

        assertTrue(String.valueOf(failure.getMessage()).contains("turnstile.rental.transactions"), failure.getMessage());
    }

    @ParameterizedTest
    @CsvSource({
            // every bike, a serviced one too, was due: nothing could be rented
            "turnstile.rental.rides-until-service, 0",
            "turnstile.rental.rides-until-service, -5",
            // a key's record had expired when it was written: a retry with the key was taken for a new request
            "turnstile.rental.idempotency.ttl, 0S",
            // expiresAt is whole epoch seconds
            "turnstile.rental.idempotency.ttl, 500ms",
            // a claim was free to take over at once, while its owner was still writing
            "turnstile.rental.idempotency.in-progress-expiry, 0S",
            "turnstile.rental.idempotency.in-progress-expiry, -3S",
            "turnstile.rental.idempotency.in-progress-expiry, PT0.5S",
    })
    void aValueOutOfRangeFailsNamingTheProperty(String property, String value) {
        RuntimeException failure = assertThrows(RuntimeException.class, () -> read(Map.of(property, value)));

        assertTrue(String.valueOf(failure.getMessage()).contains(property), failure.getMessage());
    }

    @Test
    void aRideLimitThatIsNotANumberFailsNamingTheProperty() {
        RuntimeException failure = assertThrows(RuntimeException.class,
                () -> read(Map.of("turnstile.rental.rides-until-service", "thirty")));

        assertTrue(String.valueOf(failure.getMessage()).contains("turnstile.rental.rides-until-service"), failure.getMessage());
    }
}
