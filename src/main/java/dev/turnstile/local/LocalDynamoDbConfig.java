package dev.turnstile.local;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * {@code turnstile.local-dynamodb.*}: the dynalite that dev and test start.
 * {@link LocalDynamoDb} reads enabled, directory and node before this mapping exists (it adds a config source), so it
 * takes them by name with the same defaults; this interface is where they are declared and checked.
 */
@ConfigMapping(prefix = "turnstile.local-dynamodb")
public interface LocalDynamoDbConfig {

    /** Start dynalite and point quarkus.dynamodb.endpoint-override at it, unless an endpoint is set. */
    @WithDefault("false")
    boolean enabled();

    /** Where package.json and local/dynalite.js are (the project root). */
    @WithDefault(".")
    String directory();

    /** The Node.js executable. */
    @WithDefault("node")
    String node();
}
