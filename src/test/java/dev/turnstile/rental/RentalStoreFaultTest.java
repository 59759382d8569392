package dev.turnstile.rental;

import static dev.turnstile.identity.Tokens.asStaff;
import static dev.turnstile.rental.RentalHttp.unique;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import dev.turnstile.Management;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;

/**
 * A DynamoDB that stalls (the test JVM's own dynalite, paused with SIGSTOP): rent answers 503 STORE_UNAVAILABLE with
 * Retry-After within the test api-call-timeout (3 s), never 500; readiness goes DOWN, and UP again by itself once
 * dynalite runs; the client's retry with the same key rents exactly once.
 */
@QuarkusTest
class RentalStoreFaultTest {

    @Test
    void aStalledStoreIs503ThenTheSameKeyRentsOnce() throws Exception {
        String bikeId = unique("b");
        String customer = unique("c");
        String key = unique("k");
        BikeApiTest.create(bikeId, "harbour", 2);
        Management.given().get("/q/health/ready").then().statusCode(200);

        ProcessHandle dynalite = ProcessHandle.current().descendants()
                .filter(process -> process.info().commandLine().orElse("").contains("dynalite"))
                .findFirst().orElseThrow(() -> new AssertionError("the test JVM's dynalite is not its child"));
        Response stalled;
        signal("STOP", dynalite);
        try {
            Instant start = Instant.now();
            stalled = rent(bikeId, customer, key);
            assertTrue(Duration.between(start, Instant.now()).toSeconds() < 10, "answered within the call timeout");
            Management.given().get("/q/health/ready").then().statusCode(503);
        } finally {
            signal("CONT", dynalite);
        }
        stalled.then().statusCode(503).contentType("application/problem+json")
                .body("reason", is("STORE_UNAVAILABLE")).header("Retry-After", is("1"));

        Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
        while (Management.given().get("/q/health/ready").statusCode() != 200) {
            assertTrue(Instant.now().isBefore(deadline), "readiness comes back by itself");
            Thread.sleep(200);
        }
        Response retried = rent(bikeId, customer, key);
        while (retried.statusCode() == 409 && "IDEMPOTENCY_IN_PROGRESS".equals(retried.path("reason"))
                && Instant.now().isBefore(deadline)) {
            Thread.sleep(500);
            retried = rent(bikeId, customer, key);
        }
        retried.then().statusCode(200).body("rentedBy", is(customer));
        asStaff().get("/bikes/" + bikeId).then().body("ridesSinceService", is(3)).body("version", is(2));
    }

    private static Response rent(String bikeId, String customer, String key) {
        return asStaff().contentType(ContentType.JSON).header("Idempotency-Key", key).body(BikeApiTest.rentBody(customer))
                .post("/bikes/" + bikeId + "/rent");
    }

    private static void signal(String signal, ProcessHandle process) throws IOException, InterruptedException {
        assertEquals(0, new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start().waitFor());
    }
}
