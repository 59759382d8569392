package dev.turnstile.rental;

import static dev.turnstile.rental.RentalHttp.unique;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;

/** Workshop leases: exclusive until expiry (without any TTL sweeper: dynalite has none), released only by token. */
@QuarkusTest
class LeaseTest {

    private static Response lease(String bikeId, String holder, int ttlSeconds) {
        return given().contentType(ContentType.JSON)
                .body("{\"holder\":\"" + holder + "\",\"ttlSeconds\":" + ttlSeconds + "}")
                .post("/bikes/" + bikeId + "/lease");
    }

    @Test
    void aSecondHolderIsRefusedUntilTheLeaseExpiresThenSucceeds() throws InterruptedException {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 0);

        Response first = lease(bikeId, "workshop-a", 1);
        first.then().statusCode(201).body("holder", is("workshop-a"));
        Instant expiresAt = Instant.parse(first.path("expiresAt"));

        lease(bikeId, "workshop-b", 60).then().statusCode(409).contentType("application/problem+json")
                .body("reason", is("LEASED")).body("holder", is("workshop-a")).body("expiresAt", is(expiresAt.toString()));

        Instant deadline = Instant.now().plus(Duration.ofSeconds(5));
        Response second;
        do {
            Thread.sleep(200);
            second = lease(bikeId, "workshop-b", 60);
        } while (second.statusCode() == 409 && Instant.now().isBefore(deadline));

        second.then().statusCode(201).body("holder", is("workshop-b"));
        assertFalse(Instant.now().isBefore(expiresAt), "the lease was taken over only after it had expired");
        assertTrue(!second.path("token").equals(first.path("token")));
    }

    @Test
    void onlyTheHoldersTokenReleasesTheLease() {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 0);
        String token = lease(bikeId, "workshop-a", 600).then().statusCode(201).extract().path("token");

        given().header("Lease-Token", "not-" + token).delete("/bikes/" + bikeId + "/lease")
                .then().statusCode(409).body("reason", is("LEASE_NOT_HELD"));
        given().delete("/bikes/" + bikeId + "/lease").then().statusCode(400).body("detail", org.hamcrest.Matchers.containsString("leaseToken"));
        lease(bikeId, "workshop-b", 60).then().statusCode(409).body("holder", is("workshop-a"));

        given().header("Lease-Token", token).delete("/bikes/" + bikeId + "/lease").then().statusCode(204);
        lease(bikeId, "workshop-b", 60).then().statusCode(201).body("holder", is("workshop-b"));
        given().header("Lease-Token", token).delete("/bikes/" + bikeId + "/lease").then().statusCode(409);
    }

    @Test
    void unknownBikesCannotBeLeased() {
        assertEquals(404, lease(unique("missing"), "workshop-a", 60).statusCode());
    }
}
