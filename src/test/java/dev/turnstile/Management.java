package dev.turnstile;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.eclipse.microprofile.config.ConfigProvider;

import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import io.vertx.core.json.JsonObject;

/**
 * Requests to /q/health, /q/metrics and /q/openapi: they answer on the management interface, not the API port. The
 * Lambda build has no management interface (pom.xml, -Plambda), so there they go where every other request goes,
 * through the mock event server.
 */
public final class Management {

    private static final Set<String> OPERATIONS = Set.of("get", "post", "put", "patch", "delete");

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

    /**
     * The API's routes as the OpenAPI document lists them: each path (test-only resources left out) with the HTTP
     * methods of its operations, upper case.
     */
    public static Map<String, Set<String>> documentedRoutes() {
        JsonObject paths = new JsonObject(given().accept(ContentType.JSON).get("/q/openapi?format=json").asString())
                .getJsonObject("paths");
        Map<String, Set<String>> routes = new LinkedHashMap<>();
        for (String path : paths.fieldNames()) {
            if (path.startsWith("/test-only")) {
                continue;
            }
            Set<String> methods = new TreeSet<>();
            paths.getJsonObject(path).fieldNames().stream().filter(OPERATIONS::contains)
                    .forEach(operation -> methods.add(operation.toUpperCase()));
            routes.put(path, methods);
        }
        return routes;
    }
}
