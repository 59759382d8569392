package dev.turnstile.deploy;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.is;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/**
 * Runs against the packaged artefact, not the test JVM: the native binary with {@code -Dnative} (failsafe), the jar
 * with {@code -DskipITs=false}. It is also the training run for the JDK 25 AOT cache
 * ({@code -Dquarkus.package.jar.aot.enabled=true}), so it touches both stores and the health, metrics and OpenAPI paths
 * a production start goes through. Uses the test profile (quarkus.test.integration-test-profile); the artefact carries
 * no dev/test launcher, so {@link PackagedAppBackends} starts dynalite and migrates the test database from the test side.
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
    void bothBackendsAreReadyInThePackagedApp() {
        given().when().get("/q/health/ready")
                .then().statusCode(200)
                .body("status", is("UP"))
                .body("checks.name", hasItems("DynamoDB", "Reactive PostgreSQL connections health check"));
    }

    @Test
    void livenessStartupMetricsAndOpenApiAnswer() {
        given().when().get("/q/health/live").then().statusCode(200).body("status", is("UP"));
        given().when().get("/q/health/started").then().statusCode(200).body("status", is("UP"));
        given().when().get("/q/metrics").then().statusCode(200).body(containsString("# HELP"));
        given().when().get("/q/openapi").then().statusCode(200).body(containsString("Turnstile API"));
    }
}
