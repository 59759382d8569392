package dev.turnstile.deploy;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.turnstile.LambdaMode;
import dev.turnstile.identity.Tokens;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;

/**
 * Behind the HTTP API's JWT authorizer (deploy/lambda/template.yaml) every event carries the authorizer's claims in
 * its request context. Turnstile must not take them for an identity: it verifies the bearer token itself (defence in
 * depth, docs/identity.md). Only in the Lambda build ({@code -Plambda}), where events are posted raw to the mock
 * event server.
 */
@QuarkusTest
class LambdaIdentityTest {

    @BeforeEach
    void onlyInTheLambdaBuild() {
        Assumptions.assumeTrue(LambdaMode.active(), "the Lambda build only");
    }

    @Test
    void authorizerClaimsWithoutATokenAreNoIdentity() {
        JsonPath answer = invoke("/test-only/caller", Map.of());
        assertEquals(401, answer.getInt("statusCode"), answer.prettify());
    }

    @Test
    void theVerifiedTokenDecidesTheRoleNotTheAuthorizerClaims() {
        String customer = Tokens.customer("c-lambda-1");
        JsonPath answer = invoke("/test-only/caller/staff", Map.of("authorization", "Bearer " + customer));
        assertEquals(403, answer.getInt("statusCode"), answer.prettify());

        JsonPath caller = invoke("/test-only/caller", Map.of("authorization", "Bearer " + customer));
        assertEquals(200, caller.getInt("statusCode"), caller.prettify());
        assertEquals("c-lambda-1", new JsonPath(caller.getString("body")).getString("subject"));
    }

    /** An HTTP API (payload 2.0) event as API Gateway sends it after its JWT authorizer admitted a staff member. */
    private static JsonPath invoke(String path, Map<String, String> headers) {
        Map<String, Object> claims = Map.of("sub", "someone-else", "groups", "[staff]", "cognito:groups", "[staff]",
                "scope", "openid");
        Map<String, Object> event = Map.of(
                "version", "2.0",
                "routeKey", "$default",
                "rawPath", path,
                "rawQueryString", "",
                "headers", headers,
                "isBase64Encoded", false,
                "requestContext", Map.of(
                        "http", Map.of("method", "GET", "path", path, "protocol", "HTTP/1.1", "sourceIp", "127.0.0.1"),
                        "authorizer", Map.of("jwt", Map.of("claims", claims, "scopes", List.of()))));
        return given().contentType(ContentType.JSON).body(event).post("/_lambda_")
                .then().statusCode(200).extract().jsonPath();
    }
}
