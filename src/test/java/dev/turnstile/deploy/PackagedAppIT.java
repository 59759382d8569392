package dev.turnstile.deploy;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.restassured.specification.RequestSpecification;

/**
 * Runs against the packaged artefact, not the test JVM: the native binary with {@code -Dnative} (failsafe), the jar
 * with {@code -DskipITs=false}. It is also the training run for the JDK 25 AOT cache
 * ({@code -Dquarkus.package.jar.aot.enabled=true}), so it touches both stores and the health, metrics and OpenAPI paths
 * a production start goes through (on the management port). Uses the test profile (quarkus.test.integration-test-profile);
 * the artefact carries no dev/test launcher, so {@link PackagedAppBackends} starts dynalite and migrates the test
 * database from the test side.
 */
@QuarkusIntegrationTest
@WithTestResource(PackagedAppBackends.class)
class PackagedAppIT {

    @Test
    void theArtefactStartsNoLauncherOfItsOwn() throws IOException {
        // the test profile asks for dynalite and database preparation: only a launcher left in the artefact would act
        String log = Files.readString(Path.of("target/quarkus.log"));
        assertFalse(log.contains("Local DynamoDB (dynalite"), "the packaged app started dynalite itself");
        assertFalse(log.contains("migrations applied"), "the packaged app migrated the database itself");
    }

    @Test
    void bothBackendsAreReadyInThePackagedApp() throws IOException {
        management().when().get("/q/health/ready")
                .then().statusCode(200)
                .body("status", is("UP"))
                .body("checks.name", hasItems("DynamoDB", "Reactive PostgreSQL connections health check"));
    }

    @Test
    void livenessStartupMetricsAndOpenApiAnswer() throws IOException {
        management().when().get("/q/health/live").then().statusCode(200).body("status", is("UP"));
        management().when().get("/q/health/started").then().statusCode(200).body("status", is("UP"));
        management().when().get("/q/metrics").then().statusCode(200).body(containsString("# HELP"));
        management().when().get("/q/openapi").then().statusCode(200).body(containsString("Turnstile API"));
        given().when().get("/q/health/ready").then().statusCode(404);
    }

    /**
     * The artefact's management interface. It took a free port (%test.quarkus.management.port=0), which only its log
     * names; the launcher reads the API port the same way.
     */
    private static RequestSpecification management() throws IOException {
        Matcher listening = Pattern.compile("Management interface listening on https?://[^\\s:]+:(\\d+)")
                .matcher(Files.readString(Path.of("target/quarkus.log")));
        assertTrue(listening.find(), "the artefact logs its management port in target/quarkus.log");
        return given().port(Integer.parseInt(listening.group(1)));
    }
}
