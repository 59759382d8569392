package dev.turnstile.rental;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** {@code turnstile.rental.idempotency.*}: how long keys are kept, and when an abandoned claim may be taken over. */
@ConfigMapping(prefix = "turnstile.rental.idempotency")
public interface RentalIdempotency {

    /** How long a key's answer is replayed (the record's TTL). */
    @WithDefault("24H")
    Duration ttl();

    /**
     * How long an IN_PROGRESS record blocks its key. Must exceed the longest a request can run (every DynamoDB call
     * within quarkus.dynamodb.api-call-timeout, a few attempts): after it, the owner is presumed dead.
     */
    @WithDefault("10S")
    Duration inProgressExpiry();
}
