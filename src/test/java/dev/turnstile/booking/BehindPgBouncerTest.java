package dev.turnstile.booking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
    void thisRunsBookingsGoThroughPgBouncer() throws IOException, InterruptedException {
        assumeTrue(ConfigUtils.getProfiles().contains("pgbouncer"), "only in the -Ppgbouncer run");
        assertTrue(url.contains(":6432/"), "PgBouncer's port (local/pgbouncer.sh): " + url);
        assertTrue(layer7Proxy, "the client is told it talks to a pooler");
        String database = pool.query("SELECT current_database()").execute().await().atMost(Duration.ofSeconds(10))
                .iterator().next().getString(0);
        assertEquals("turnstile_pgbouncer", database);
        // the same database is also reachable directly: PgBouncer's own list of its clients is the proof
        assertTrue(pgBouncerClientsOf(database) > 0, "PgBouncer lists the app's connections among its clients");
    }

    /**
     * PgBouncer's admin console (local/pgbouncer.sh makes the user a stats user), through psql: the JDBC driver's
     * start-up statements need admin rights there.
     */
    private static long pgBouncerClientsOf(String database) throws IOException, InterruptedException {
        Process psql = new ProcessBuilder("psql", "-h", "127.0.0.1", "-p", "6432", "-U", "postgres", "-At", "-c", "SHOW CLIENTS",
                "pgbouncer").redirectErrorStream(true).start();
        String out = new String(psql.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, psql.waitFor(), out);
        // type|user|database|state|...
        return out.lines().filter(line -> line.split("\\|", -1).length > 2 && database.equals(line.split("\\|", -1)[2])).count();
    }
}
