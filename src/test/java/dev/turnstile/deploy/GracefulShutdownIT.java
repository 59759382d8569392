package dev.turnstile.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.turnstile.identity.Tokens;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * SIGTERM, as Kubernetes stops a pod: for its shutdown delay the packaged service says it is not ready and still
 * answers both wings, then it drains and exits by itself. Before, it stopped taking requests at once; and aws-crt's
 * own JVM shutdown hook tore the DynamoDB client's event loops down at the signal, so a rental call made while the
 * service still served hung (rental/AwsCrtLifetime). The drain of requests in flight under load is bench/faults/
 * booking.sh's s3. Starts the jar on this JVM with the prod profile against dynalite and the test database
 * ({@link PackagedAppBackends}).
 */
class GracefulShutdownIT {

    private static final int DELAY_SECONDS = 3;
    private static final int TIMEOUT_SECONDS = 20;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final String token = Tokens.staff("shutdown-it");

    @Test
    void aStoppingServiceSaysItIsNotReadyAndStillServesBothWings() throws Exception {
        assumeTrue(PackagedJar.packaged(), "the build packaged no jar");
        PackagedAppBackends backends = new PackagedAppBackends();
        Map<String, String> stores = backends.start();
        Process app = null;
        try {
            int api = PackagedJar.freePort();
            int management = PackagedJar.freePort();
            ProcessBuilder start = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Dquarkus.http.port=" + api, "-Dquarkus.management.port=" + management,
                    "-Dquarkus.dynamodb.endpoint-override=" + stores.get("quarkus.dynamodb.endpoint-override"),
                    "-jar", PackagedJar.RUNNER.toString())
                    .redirectErrorStream(true).redirectOutput(PackagedJar.TARGET.resolve("graceful-shutdown-it.log").toFile());
            start.environment().putAll(settings());
            app = start.start();
            PackagedJar.readiness(app, management, answer -> answer.statusCode() == 200, "target/graceful-shutdown-it.log");
            String bikeId = "shutdown-" + UUID.randomUUID();
            assertEquals(201, send(api, "POST", "/bikes", "{\"bikeId\":\"" + bikeId + "\",\"station\":\"harbour\"}").statusCode());

            app.destroy();
            long stopAsked = System.nanoTime();
            Thread.sleep(500);

            HttpResponse<String> bike = send(api, "GET", "/bikes/" + bikeId, null);
            assertEquals(200, bike.statusCode(), "DynamoDB still answers while the service serves: " + bike.body());
            assertEquals(bikeId, new JsonObject(bike.body()).getString("bikeId"));
            assertEquals(201, send(api, "PUT", "/flights/shutdown-" + UUID.randomUUID() + "/fares/Y", "{\"seats\":3}")
                    .statusCode(), "PostgreSQL still answers");
            HttpResponse<String> ready = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + management + "/q/health/ready")).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(503, ready.statusCode());
            Map<String, String> checks = checks(ready.body());
            assertEquals("DOWN", checks.get("Graceful Shutdown"), ready.body());
            assertEquals("UP", checks.get("DynamoDB"), ready.body());

            assertTrue(app.waitFor(DELAY_SECONDS + TIMEOUT_SECONDS + 5, TimeUnit.SECONDS), "the service exits by itself");
            long served = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopAsked);
            assertTrue(served >= DELAY_SECONDS * 1000 - 200, "it served through its delay, exited after " + served + " ms");
        } finally {
            if (app != null) {
                app.destroyForcibly();
            }
            backends.stop();
        }
    }

    private Map<String, String> settings() throws IOException {
        Map<String, String> settings = new HashMap<>(PackagedJar.devIdentity());
        String url = System.getenv("QUARKUS_DATASOURCE_REACTIVE_URL");
        settings.put("QUARKUS_DATASOURCE_REACTIVE_URL", url == null || url.isBlank() ? "postgresql://127.0.0.1:5432/turnstile_test" : url);
        settings.put("QUARKUS_DYNAMODB_AWS_CREDENTIALS_TYPE", "static");
        settings.put("QUARKUS_DYNAMODB_AWS_CREDENTIALS_STATIC_PROVIDER_ACCESS_KEY_ID", "local");
        settings.put("QUARKUS_DYNAMODB_AWS_CREDENTIALS_STATIC_PROVIDER_SECRET_ACCESS_KEY", "local");
        settings.put("AWS_REGION", "eu-west-1");
        settings.put("TURNSTILE_RENTAL_CREATE_MISSING_TABLES", "true");
        settings.put("QUARKUS_SHUTDOWN_DELAY", DELAY_SECONDS + "S");
        return settings;
    }

    private HttpResponse<String> send(int port, String method, String path, String json) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(2)).header("Authorization", "Bearer " + token);
        if (json != null) {
            request.header("Content-Type", "application/json");
        }
        request.method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static Map<String, String> checks(String health) {
        Map<String, String> checks = new HashMap<>();
        JsonArray all = new JsonObject(health).getJsonArray("checks");
        for (int i = 0; i < all.size(); i++) {
            checks.put(all.getJsonObject(i).getString("name"), all.getJsonObject(i).getString("status"));
        }
        return checks;
    }
}
