package dev.turnstile.observability;

import static dev.turnstile.identity.Tokens.asStaff;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import dev.turnstile.LambdaMode;
import dev.turnstile.Management;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The {@code uri} tag of {@code http_server_requests} names a route, never a path a client chose. Answers given before a
 * route is matched (OPTIONS, refused forwarded headers, a body too large, a method the route does not have) carried the
 * raw path, so a client could mint a meter per request until Micrometer's cap on uri values, after which routes first
 * hit later were never metered at all.
 */
@QuarkusTest
class RequestMetricsCardinalityTest {

    @Test
    void answersGivenBeforeARouteMatchedAreTaggedWithTheRouteNotThePath() {
        Assumptions.assumeFalse(LambdaMode.active(), "under -Plambda requests reach the app without the Vert.x HTTP server and its meters");
        String id = "m" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

        given().options("/bikes/" + id).then().statusCode(204);
        given().options("/bookings/" + UUID.randomUUID()).then().statusCode(204);
        given().options("/flights/" + id + "/fares/Y/bookings").then().statusCode(204);
        asStaff().header("X-Forwarded-Host", "a b").get("/bikes/" + id).then().statusCode(400);
        asStaff().header("X-Forwarded-Host", "a b").get("/elsewhere/" + id).then().statusCode(400);
        asStaff().contentType("application/json").body("{}").put("/bikes/" + id + "/rent").then().statusCode(405);
        asStaff().get("/nothing-here/" + id).then().statusCode(404);

        String metrics = Management.given().get("/q/metrics").then().statusCode(200).extract().asString();
        List<String> minted = metrics.lines().filter(line -> line.startsWith("http_server_requests"))
                .filter(line -> line.contains(id) || line.matches(".*uri=\"/bookings/[0-9a-f-]{36}\".*")).toList();
        assertEquals(List.of(), minted);
    }

    @Test
    void aMatchedRouteKeepsItsTemplate() {
        Assumptions.assumeFalse(LambdaMode.active(), "under -Plambda requests reach the app without the Vert.x HTTP server and its meters");
        asStaff().get("/bikes?station=nowhere-" + UUID.randomUUID()).then().statusCode(200);
        asStaff().get("/bikes/none-" + UUID.randomUUID()).then().statusCode(404);

        String metrics = Management.given().get("/q/metrics").then().statusCode(200).extract().asString();
        assertTrue(metrics.contains("method=\"GET\",outcome=\"SUCCESS\",status=\"200\",uri=\"/bikes\""), "GET /bikes keeps its route");
        assertTrue(metrics.contains("method=\"GET\",outcome=\"CLIENT_ERROR\",status=\"404\",uri=\"/bikes/{bikeId}\""),
                "a bike that is not there is counted under its route");
    }
}
