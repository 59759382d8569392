package dev.turnstile.booking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import io.quarkus.runtime.configuration.ConfigUtils;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;

/**
 * The {@code -Ppgbouncer} run (.ci/run) is only worth its minutes if its booking tests really went through PgBouncer
 * in transaction mode: a profile that did not take effect would repeat the direct run and pass. Skipped elsewhere.
 */
@QuarkusTest
class BehindPgBouncerTest {

    @Inject
    Pool pool;

    @ConfigProperty(name = "quarkus.datasource.reactive.url")
    String url;

    @ConfigProperty(name = "quarkus.datasource.reactive.postgresql.use-layer7-proxy", defaultValue = "false")
    boolean layer7Proxy;

    @Test
    void thisRunsBookingsGoThroughPgBouncer() {
        assumeTrue(ConfigUtils.getProfiles().contains("pgbouncer"), "only in the -Ppgbouncer run");
        assertTrue(url.contains(":6432/"), "PgBouncer's port (local/pgbouncer.sh): " + url);
        assertTrue(layer7Proxy, "the client is told it talks to a pooler");
        String database = pool.query("SELECT current_database()").execute().await().atMost(Duration.ofSeconds(10))
                .iterator().next().getString(0);
        assertEquals("turnstile_pgbouncer", database);
    }
}
