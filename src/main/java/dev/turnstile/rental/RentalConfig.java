package dev.turnstile.rental;

import java.time.Duration;

import dev.turnstile.config.CheckedValues.AtLeastOneSecond;
import dev.turnstile.config.CheckedValues.Positive;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithConverter;
import io.smallrye.config.WithDefault;

/**
 * {@code turnstile.rental.*}; a value that does not convert or is out of range fails the start, naming the property. The table names
 * are {@link RentalTables} ({@code turnstile.rental.tables.*}), which deploy/ reads as well.
 */
@ConfigMapping(prefix = "turnstile.rental")
public interface RentalConfig {

    /**
     * Rides after which a returned bike goes to maintenance and cannot be rented before a service. At least 1: with 0
     * every bike, even one just serviced, would be due.
     */
    @WithDefault("30")
    @WithConverter(Positive.class)
    int ridesUntilService();

    /** Rent/return through TransactWriteItems ({@link RentalTransactions}). */
    @WithDefault("auto")
    Transactions transactions();

    Idempotency idempotency();

    /**
     * Create the rental tables that are missing at start ({@link MissingTables}). For ephemeral stores (dev, test, a
     * benchmark's dynalite); production leaves it off and gets its tables from deploy/.
     */
    @WithDefault("false")
    boolean createMissingTables();

    enum Transactions {
        /** Ask the endpoint once whether it has TransactWriteItems (real DynamoDB does, dynalite does not). */
        AUTO,
        ON,
        OFF
    }

    /** {@code turnstile.rental.idempotency.*}: how long keys are kept, and when an abandoned claim may be taken over. */
    interface Idempotency {

        /** How long a key's answer is replayed (the record's TTL). */
        @WithDefault("24H")
        @WithConverter(AtLeastOneSecond.class)
        Duration ttl();

        /**
         * How long an IN_PROGRESS record blocks its key: after it, the owner is presumed dead. Counted from the decision,
         * it must exceed the claim and the bike write after it (2 x quarkus.dynamodb.api-call-timeout, plus at most
         * 250 ms in {@link WritesInFlight}), else a retry could take the key over while the first write is on its way.
         */
        @WithDefault("12S")
        @WithConverter(AtLeastOneSecond.class)
        Duration inProgressExpiry();
    }
}
