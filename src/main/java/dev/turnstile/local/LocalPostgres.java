package dev.turnstile.local;

import java.time.Duration;
import java.util.Optional;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.flywaydb.core.Flyway;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.PgConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgException;

/**
 * Dev and test only: creates the configured database when it is missing, then migrates it with Flyway
 * ({@code db/migration}). Flyway cannot create a database, which is why the migration starts here rather than through
 * {@code quarkus.flyway.migrate-at-start} (that would run before this observer). Production migrates as a separate
 * step (docs/ship.md): a Lambda cold start must not migrate.
 */
@ApplicationScoped
public class LocalPostgres {

    private static final Logger LOG = Logger.getLogger(LocalPostgres.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String DUPLICATE_DATABASE = "42P04";

    private final Vertx vertx;
    /** Looked up only when preparing: in production the JDBC datasource, and so Flyway, is inactive. */
    private final Instance<Flyway> flyway;
    private final LocalPostgresConfig config;
    private final String url;
    private final String username;
    private final Optional<String> password;

    LocalPostgres(Vertx vertx, Instance<Flyway> flyway, LocalPostgresConfig config,
            @ConfigProperty(name = "quarkus.datasource.reactive.url") String url,
            @ConfigProperty(name = "quarkus.datasource.username", defaultValue = "postgres") String username,
            @ConfigProperty(name = "quarkus.datasource.password") Optional<String> password) {
        this.vertx = vertx;
        this.flyway = flyway;
        this.config = config;
        this.url = url;
        this.username = username;
        this.password = password;
    }

    void prepare(@Observes @Priority(1) StartupEvent startup) {
        if (!config.prepare()) {
            return;
        }
        PgConnectOptions target = PgConnectOptions.fromUri(url.replaceFirst("^vertx-reactive:", ""))
                .setUser(username);
        password.ifPresent(target::setPassword);
        ensureDatabase(target);
        int applied = flyway.get().migrate().migrationsExecuted;
        LOG.infof("PostgreSQL database %s migrated (%d migrations applied)", target.getDatabase(), applied);
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

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }
}
