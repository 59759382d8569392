package dev.turnstile.rental;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.turnstile.deploy.ApplicationProperties;
import io.smallrye.config.SmallRyeConfig;

/**
 * A keyed request without transactions claims its key with a lock that ends {@code in-progress-expiry} after the
 * moment it was decided, then writes the bike. The claim may take up to {@code api-call-timeout}, the write waits up
 * to {@link WritesInFlight#LONGEST_WAIT} for this instance's writes in flight and may take up to
 * {@code api-call-timeout} again; a lock that ends before that lets a client's retry take the key over while the
 * first write is still on its way, and that retry, meeting the rent it did not make, answers 409 NOT_AVAILABLE for a
 * rent that happened. The lock was 10 s against 10.25 s in prod and 4 s against 6.25 s in the tests.
 */
class ClaimLockTest {

    @ParameterizedTest
    @ValueSource(strings = { "prod", "prod,lambda", "dev", "test" })
    void theClaimOutlastsTheClaimThenTheWrite(String profiles) throws IOException {
        SmallRyeConfig config = ApplicationProperties.under(profiles.split(","));
        Duration call = ApplicationProperties.duration(config, "quarkus.dynamodb.api-call-timeout");
        Duration lock = ApplicationProperties.duration(config, "turnstile.rental.idempotency.in-progress-expiry");

        Duration longest = call.multipliedBy(2).plus(WritesInFlight.LONGEST_WAIT);
        assertTrue(lock.compareTo(longest) > 0, profiles + ": a claim of " + lock + " ends before claim + write (" + longest + ")");
    }
}
