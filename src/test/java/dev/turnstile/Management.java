package dev.turnstile;

import java.net.URI;

import org.eclipse.microprofile.config.ConfigProvider;

import io.restassured.RestAssured;
import io.restassured.specification.RequestSpecification;

/**
 * Requests to /q/health, /q/metrics and /q/openapi: they answer on the management interface, not the API port. The
 * Lambda build has no management interface (pom.xml, -Plambda), so there they go where every other request goes,
 * through the mock event server.
 */
public final class Management {

    private Management() {
    }

    public static RequestSpecification given() {
        var config = ConfigProvider.getConfig();
        if (!config.getOptionalValue("quarkus.management.enabled", Boolean.class).orElse(false)) {
            return RestAssured.given();
        }
        // The URL ends in the management root path (/q); the callers name the whole path.
        URI management = URI.create(config.getValue("test.management.url", String.class));
        return RestAssured.given().baseUri(management.getScheme() + "://" + management.getHost()).port(management.getPort());
    }
}
