package dev.turnstile.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.turnstile.Management;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

/**
 * Every route of the API, as the OpenAPI document lists them (so a new route is covered without touching this test),
 * refuses a request without a token and with each kind of bad token: 401 problem+json with
 * {@code WWW-Authenticate: Bearer}. A refused write changes nothing: the bike and the fare it names are still missing.
 */
@QuarkusTest
class EveryRouteNeedsAGoodTokenTest {

    @Test
    void noRouteLetsABadTokenIn() {
        Map<String, String> badTokens = badTokens();
        List<String> routes = routes();
        assertTrue(routes.size() >= 16, "the OpenAPI document lists every route of both wings: " + routes);
        for (String route : routes) {
            String method = route.substring(0, route.indexOf(' '));
            String path = route.substring(route.indexOf(' ') + 1).replace("{bikeId}", "never-created-bike")
                    .replace("{flightId}", "never-created-flight").replace("{fareClass}", "Y")
                    .replace("{bookingId}", "00000000-0000-4000-8000-000000000000");
            for (Map.Entry<String, String> bad : badTokens.entrySet()) {
                RequestSpecification request = bad.getValue().isEmpty() ? RestAssured.given() : Tokens.as(bad.getValue());
                Response answer = request.contentType(ContentType.JSON).body("{}").queryParam("station", "harbour")
                        .request(method, path);
                assertEquals(401, answer.statusCode(), route + " with " + bad.getKey());
                assertEquals("Bearer", answer.header("WWW-Authenticate"), route + " with " + bad.getKey());
                assertTrue(answer.contentType().startsWith("application/problem+json"), route + " with " + bad.getKey());
            }
        }
        Tokens.asStaff().get("/bikes/never-created-bike").then().statusCode(404);
        Tokens.asStaff().get("/flights/never-created-flight/fares/Y").then().statusCode(404);
    }

    private static List<String> routes() {
        List<String> routes = new ArrayList<>();
        Management.documentedRoutes().forEach((path, methods) -> methods.forEach(method -> routes.add(method + " " + path)));
        assertFalse(routes.isEmpty());
        return routes;
    }

    private static Map<String, String> badTokens() {
        Set<String> roles = Set.of(Roles.CUSTOMER, Roles.STAFF);
        String good = Tokens.sign(Tokens.claims("intruder", roles));
        String[] parts = good.split("\\.");
        String tamperedPayload = encode(new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)
                .replace("intruder", "somebody"));
        Map<String, String> bad = new LinkedHashMap<>();
        bad.put("no token", "");
        bad.put("another issuer", Tokens.sign(Tokens.claims("intruder", roles).issuer("https://elsewhere.example")));
        bad.put("another audience", Tokens.sign(Tokens.claims("intruder", roles).audience("another-service")));
        bad.put("an expired token", Tokens.sign(Tokens.claims("intruder", roles).issuedAt(Instant.now().minusSeconds(7200))
                .expiresAt(Instant.now().minusSeconds(3600))));
        bad.put("a tampered payload", parts[0] + "." + tamperedPayload + "." + parts[2]);
        bad.put("alg none", encode("{\"alg\":\"none\",\"typ\":\"JWT\"}") + "." + parts[1] + ".");
        return bad;
    }

    private static String encode(String json) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }
}
