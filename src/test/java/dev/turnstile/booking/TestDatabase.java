package dev.turnstile.booking;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;

import org.eclipse.microprofile.config.ConfigProvider;

/** A plain JDBC connection of the test's own to the database the app under test uses: a second client, not the app's. */
final class TestDatabase {

    private TestDatabase() {
    }

    static Connection connect() throws SQLException {
        String reactive = ConfigProvider.getConfig().getValue("quarkus.datasource.reactive.url", String.class);
        String user = ConfigProvider.getConfig().getOptionalValue("quarkus.datasource.username", String.class).orElse("postgres");
        String password = ConfigProvider.getConfig().getOptionalValue("quarkus.datasource.password", String.class).orElse(null);
        return DriverManager.getConnection("jdbc:" + reactive.replaceFirst("^vertx-reactive:", ""), user, password);
    }

    /** Whether {@code count} statements of this database come to wait for a lock on inventory rows in time. */
    static boolean awaitLockWaits(int count, Duration patience) throws SQLException, InterruptedException {
        Instant deadline = Instant.now().plus(patience);
        try (Connection watcher = connect(); Statement statement = watcher.createStatement()) {
            while (Instant.now().isBefore(deadline)) {
                try (ResultSet waiting = statement.executeQuery("SELECT count(*) FROM pg_stat_activity "
                        + "WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%flight_inventory%'")) {
                    waiting.next();
                    if (waiting.getInt(1) >= count) {
                        return true;
                    }
                }
                Thread.sleep(20);
            }
        }
        return false;
    }
}
