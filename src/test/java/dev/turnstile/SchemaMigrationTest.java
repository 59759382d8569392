package dev.turnstile;

import static dev.turnstile.identity.Tokens.asCustomer;
import static dev.turnstile.identity.Tokens.asStaff;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;

/**
 * A database made before Flyway (by the former db/schema.sql, so tables and no flyway_schema_history) still starts:
 * Flyway records it as version 0, applies the idempotent V1 over it, and the service books on it. The resource builds
 * such a database (dropped and made afresh, V1's statements run by hand as psql used to) before the app starts.
 */
@QuarkusTest
@TestProfile(SchemaMigrationTest.PreFlywayDatabase.class)
class SchemaMigrationTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Inject
    Pool pool;

    @Test
    void aDatabaseFromTheOldSchemaFileIsBaselinedAndMigrated() {
        List<String> history = pool.query("SELECT version || ':' || type || ':' || success FROM flyway_schema_history "
                + "ORDER BY installed_rank").execute().await().atMost(TIMEOUT).stream()
                .map(row -> row.getString(0)).toList();
        assertEquals(List.of("0:BASELINE:true", "1:SQL:true", "2:SQL:true", "3:SQL:true", "4:SQL:true"), history);

        asStaff().contentType(ContentType.JSON).body("{\"seats\":2}").put("/flights/PREFLYWAY/fares/Y")
                .then().statusCode(201);
        asCustomer("p-1").contentType(ContentType.JSON).body("{\"passengerId\":\"p-1\"}").post("/flights/PREFLYWAY/fares/Y/bookings")
                .then().statusCode(201);
        Row fare = pool.query("SELECT count(*) FROM bookings WHERE flight_id = 'PREFLYWAY'").execute()
                .await().atMost(TIMEOUT).iterator().next();
        assertEquals(1L, fare.getLong(0));
    }

    public static final class PreFlywayDatabase implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(OldSchemaDatabase.class));
        }
    }

    /**
     * The database name is the test database's with {@code _preflyway} appended, so parallel worktrees stay apart. It
     * runs before the app's configuration exists, so it reads the environment variables that would move the test
     * database or give it credentials.
     */
    public static final class OldSchemaDatabase implements QuarkusTestResourceLifecycleManager {

        @Override
        public Map<String, String> start() {
            String reactive = System.getenv().getOrDefault("_TEST_QUARKUS_DATASOURCE_REACTIVE_URL",
                    "postgresql://127.0.0.1:5432/turnstile_test");
            String server = reactive.substring(0, reactive.lastIndexOf('/'));
            String database = reactive.substring(reactive.lastIndexOf('/') + 1) + "_preflyway";
            execute("jdbc:" + server + "/postgres", "DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
            execute("jdbc:" + server + "/postgres", "CREATE DATABASE " + database);
            execute("jdbc:" + server + "/" + database, v1());
            return Map.of("quarkus.datasource.reactive.url", server + "/" + database);
        }

        @Override
        public void stop() {
        }

        private static void execute(String url, String sql) {
            try (Connection connection = DriverManager.getConnection(url,
                    System.getenv().getOrDefault("QUARKUS_DATASOURCE_USERNAME", "postgres"), System.getenv("QUARKUS_DATASOURCE_PASSWORD"));
                    Statement statement = connection.createStatement()) {
                statement.execute(sql);
            } catch (SQLException e) {
                throw new IllegalStateException("Could not prepare the pre-Flyway database: " + e.getMessage(), e);
            }
        }

        private static String v1() {
            try (InputStream in = SchemaMigrationTest.class.getResourceAsStream("/db/migration/V1__schema.sql")) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
