package dev.turnstile.local;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * {@code turnstile.local-dynamodb.*}: the dynalite that dev and test start, and the tables they create in it.
 * {@link LocalDynamoDb} reads enabled, directory and node before this mapping exists (it adds a config source), so it
 * takes them by name with the same defaults; this interface is where they are declared and checked.
 */
@ConfigMapping(prefix = "turnstile.local-dynamodb")
public interface LocalDynamoDbConfig {

    /** Start dynalite and point quarkus.dynamodb.endpoint-override at it, unless an endpoint is set. */
    @WithDefault("false")
    boolean enabled();

    /** Create the rental tables that are missing at start. */
    @WithDefault("false")
    boolean createTables();

    /** Where package.json and local/dynalite.js are (the project root). */
    @WithDefault(".")
    String directory();

    /** The Node.js executable. */
    @WithDefault("node")
    String node();
}
