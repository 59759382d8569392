package dev.turnstile.local;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.PgConnection;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgException;

/**
 * Dev and test only: creates the configured database when it is missing and applies {@code db/schema.sql}.
 * Production applies the schema as a separate step (see the README): a Lambda cold start must not migrate.
 */
@ApplicationScoped
public class LocalPostgres {

    private static final Logger LOG = Logger.getLogger(LocalPostgres.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String DUPLICATE_DATABASE = "42P04";

    private final Vertx vertx;
    private final Pool pool;
    private final boolean prepare;
    private final String url;
    private final String username;
    private final Optional<String> password;

    LocalPostgres(Vertx vertx, Pool pool,
            @ConfigProperty(name = "turnstile.local-postgres.prepare", defaultValue = "false") boolean prepare,
            @ConfigProperty(name = "quarkus.datasource.reactive.url") String url,
            @ConfigProperty(name = "quarkus.datasource.username", defaultValue = "postgres") String username,
            @ConfigProperty(name = "quarkus.datasource.password") Optional<String> password) {
        this.vertx = vertx;
        this.pool = pool;
        this.prepare = prepare;
        this.url = url;
        this.username = username;
        this.password = password;
    }

    void prepare(@Observes @Priority(1) StartupEvent startup) {
        if (!prepare) {
            return;
        }
        PgConnectOptions target = PgConnectOptions.fromUri(url.replaceFirst("^vertx-reactive:", ""))
                .setUser(username);
        password.ifPresent(target::setPassword);
        ensureDatabase(target);
        pool.query(schema()).execute().await().atMost(TIMEOUT);
        LOG.infof("PostgreSQL schema applied to %s", target.getDatabase());
    }

    private void ensureDatabase(PgConnectOptions target) {
        // a one-off connection: layer-7 mode (no named statements) costs nothing here and works behind PgBouncer
        PgConnectOptions maintenance = new PgConnectOptions(target).setDatabase("postgres").setUseLayer7Proxy(true);
        PgConnection connection;
        try {
            connection = PgConnection.connect(vertx, maintenance).await().atMost(TIMEOUT);
        } catch (RuntimeException e) {
            throw new LocalBackendUnavailable("PostgreSQL does not answer at " + target.getHost() + ":" + target.getPort()
                    + " (" + rootMessage(e) + "): start it (on Debian: pg_ctlcluster 15 main start) "
                    + "or set QUARKUS_DATASOURCE_REACTIVE_URL, QUARKUS_DATASOURCE_USERNAME and QUARKUS_DATASOURCE_PASSWORD.");
        }
        try {
            boolean exists = connection.preparedQuery("SELECT 1 FROM pg_database WHERE datname = $1")
                    .execute(Tuple.of(target.getDatabase())).await().atMost(TIMEOUT).size() > 0;
            if (!exists) {
                createDatabase(connection, target.getDatabase());
            }
        } finally {
            connection.closeAndAwait();
        }
    }

    private static void createDatabase(PgConnection connection, String database) {
        if (!database.matches("[a-z_][a-z0-9_]*")) {
            throw new LocalBackendUnavailable("Database name '" + database + "' is not a plain identifier: create it by hand.");
        }
        try {
            connection.query("CREATE DATABASE " + database).execute().await().atMost(TIMEOUT);
            LOG.infof("Created PostgreSQL database %s", database);
        } catch (PgException e) {
            if (!DUPLICATE_DATABASE.equals(e.getSqlState())) {
                throw e;
            }
        }
    }

    private static String schema() {
        try (InputStream in = LocalPostgres.class.getResourceAsStream("/db/schema.sql")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }
}
