package dev.turnstile.deploy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.flywaydb.core.Flyway;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * The backends of {@link PackagedAppIT}. The packaged artefact carries no dev/test launcher (dev.turnstile.local is
 * deleted before packaging, see the pom), so the test side starts dynalite and prepares the test database itself,
 * and hands the launched artefact the endpoint. The rental wing creates its tables (the test profile turns on
 * turnstile.rental.create-missing-tables).
 */
public class PackagedAppBackends implements QuarkusTestResourceLifecycleManager {

    private static final Pattern LISTENING = Pattern.compile("dynalite listening on port (\\d+)");
    private static final String URL = env("QUARKUS_DATASOURCE_REACTIVE_URL", "postgresql://127.0.0.1:5432/turnstile_test");
    private static final String USER = env("QUARKUS_DATASOURCE_USERNAME", "postgres");
    private static final String PASSWORD = env("QUARKUS_DATASOURCE_PASSWORD", "");

    private Process dynalite;

    @Override
    public Map<String, String> start() {
        prepareDatabase();
        return Map.of("quarkus.dynamodb.endpoint-override", "http://127.0.0.1:" + startDynalite());
    }

    @Override
    public void stop() {
        if (dynalite != null) {
            dynalite.destroy();
        }
    }

    private int startDynalite() {
        try {
            // local/dynalite.js exits when its stdin closes, so it dies with this JVM whatever happens to stop()
            dynalite = new ProcessBuilder("node", "local/dynalite.js").redirectError(ProcessBuilder.Redirect.INHERIT).start();
            BufferedReader output = new BufferedReader(new InputStreamReader(dynalite.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = output.readLine()) != null) {
                Matcher listening = LISTENING.matcher(line);
                if (listening.find()) {
                    return Integer.parseInt(listening.group(1));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("node local/dynalite.js did not start (Node.js 20+, npm ci)", e);
        }
        dynalite.destroyForcibly();
        throw new IllegalStateException("dynalite exited before listening (see its output above)");
    }

    private static void prepareDatabase() {
        String jdbc = "jdbc:" + URL.replaceFirst("^vertx-reactive:", "");
        String database = jdbc.substring(jdbc.lastIndexOf('/') + 1).replaceFirst("\\?.*", "");
        try (Connection maintenance = DriverManager.getConnection(jdbc.substring(0, jdbc.lastIndexOf('/') + 1) + "postgres", USER, PASSWORD);
                PreparedStatement exists = maintenance.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
            exists.setString(1, database);
            if (!exists.executeQuery().next()) {
                try (Statement create = maintenance.createStatement()) {
                    create.execute("CREATE DATABASE " + database);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL at " + jdbc + " is not usable: " + e.getMessage(), e);
        }
        // the same settings as application.properties gives Quarkus's Flyway
        Flyway.configure().dataSource(jdbc, USER, PASSWORD).locations("classpath:db/migration")
                .baselineOnMigrate(true).baselineVersion("0").load().migrate();
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
