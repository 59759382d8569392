package dev.turnstile.booking;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

import org.eclipse.microprofile.config.ConfigProvider;

/** A plain JDBC connection of the test's own to the database the app under test uses: a second client, not the app's. */
final class TestDatabase {

    private TestDatabase() {
    }

    static Connection connect() throws SQLException {
        String reactive = ConfigProvider.getConfig().getValue("quarkus.datasource.reactive.url", String.class);
        String user = ConfigProvider.getConfig().getOptionalValue("quarkus.datasource.username", String.class).orElse("postgres");
        return DriverManager.getConnection("jdbc:" + reactive.replaceFirst("^vertx-reactive:", ""), user, null);
    }
}
