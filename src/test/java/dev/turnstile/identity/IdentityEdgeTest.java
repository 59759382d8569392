package dev.turnstile.identity;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.quarkus.arc.Arc;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.jwt.build.Jwt;
import io.smallrye.jwt.auth.principal.JWTParser;
import io.restassured.response.Response;
import io.restassured.response.ValidatableResponse;

/**
 * The identity floor on its own (through a test-only route): which tokens get in, what a caller is made of, and the
 * per-customer attempt limit. Every refusal is a 401 problem with {@code WWW-Authenticate: Bearer}.
 */
@QuarkusTest
class IdentityEdgeTest {

    private static final String PROBE = "/test-only/caller";

    @Test
    void aCustomerActsForThemselvesOnly() {
        Tokens.as(Tokens.customer("c-1")).get(PROBE + "?key=k1").then().statusCode(200)
                .body("subject", is("c-1")).body("staff", is(false)).body("elite", is(false))
                .body("actingFor", is("c-1")).body("scopedKey", is("3:c-1:k1"));
        Tokens.as(Tokens.customer("c-1")).get(PROBE + "?for=c-2").then().statusCode(403)
                .contentType("application/problem+json").body("reason", is("NOT_YOUR_ACCOUNT"));
    }

    /**
     * smallrye-jwt names the principal after {@code upn}, else {@code preferred_username}, else {@code sub}; only
     * {@code sub} is stable and never reassigned by the issuer (OpenID Connect Core 5.7), so it alone is the account.
     */
    @Test
    void theCallerIsTheSubjectAndATokenWithoutOneIsRefused() {
        Set<String> customer = Set.of(Roles.CUSTOMER);
        Tokens.as(Tokens.sign(Tokens.claims("8d0f-sub", customer).upn("alice@example.com").preferredUserName("alice")))
                .get(PROBE + "?for=8d0f-sub").then().statusCode(200).body("subject", is("8d0f-sub")).body("actingFor", is("8d0f-sub"));
        unauthenticated(Tokens.as(Tokens.sign(Jwt.issuer(Tokens.ISSUER).audience(Tokens.AUDIENCE).upn("alice@example.com")
                .groups(customer).expiresIn(Duration.ofHours(1)))).get(PROBE).then());
    }

    /** A subject no body could name (past OpenID Connect's 255 ASCII characters, or with a control character) is refused. */
    @Test
    void aSubjectThatIsNoAccountIdIsUnauthenticated() {
        Set<String> customer = Set.of(Roles.CUSTOMER);
        Tokens.as(Tokens.customer("auth0|" + "a".repeat(249))).get(PROBE).then().statusCode(200);
        unauthenticated(Tokens.as(Tokens.customer("a".repeat(256))).get(PROBE).then());
        unauthenticated(Tokens.as(Tokens.customer("tab\there")).get(PROBE).then());
        unauthenticated(Tokens.as(Tokens.customer("caf\u00e9")).get(PROBE).then());
        unauthenticated(Tokens.as(Tokens.sign(Tokens.claims("", customer))).get(PROBE).then());
    }

    @Test
    void staffActForWhomTheyNameAndEliteComesFromTheToken() {
        Tokens.asStaff().get(PROBE + "?for=c-2").then().statusCode(200).body("staff", is(true)).body("actingFor", is("c-2"));
        Tokens.as(Tokens.eliteCustomer("c-3")).get(PROBE).then().statusCode(200).body("elite", is(true));
    }

    @Test
    void theBearerCheckRemembersVerifiedTokens() {
        assertInstanceOf(VerifiedTokens.class, Arc.container().instance(JWTParser.class).get(),
                "the JWTParser the bearer-token check injects");
    }

    @Test
    void aCustomerOnAStaffRouteIsForbidden() {
        Tokens.asCustomer("c-4").get(PROBE + "/staff").then().statusCode(403)
                .contentType("application/problem+json").body("reason", is("FORBIDDEN"));
        Tokens.asStaff().get(PROBE + "/staff").then().statusCode(200);
    }

    @Test
    void noTokenOrABadOneIsUnauthenticated() {
        unauthenticated(given().get(PROBE).then());
        Set<String> customer = Set.of(Roles.CUSTOMER);
        unauthenticated(Tokens.as(Tokens.sign(Tokens.claims("c-5", customer).issuer("https://elsewhere"))).get(PROBE).then());
        unauthenticated(Tokens.as(Tokens.sign(Tokens.claims("c-5", customer).audience("someone-else"))).get(PROBE).then());
        unauthenticated(Tokens.as(Tokens.sign(Tokens.claims("c-5", customer).issuedAt(Instant.now().minusSeconds(7200))
                .expiresAt(Instant.now().minusSeconds(3600)))).get(PROBE).then());
        String good = Tokens.customer("c-5");
        String[] parts = good.split("\\.");
        String otherPayload = Base64.getUrlEncoder().withoutPadding().encodeToString(new String(
                Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8).replace("c-5", "c-6").getBytes(StandardCharsets.UTF_8));
        unauthenticated(Tokens.as(parts[0] + "." + otherPayload + "." + parts[2]).get(PROBE).then());
        String none = Base64.getUrlEncoder().withoutPadding().encodeToString("{\"alg\":\"none\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8));
        unauthenticated(Tokens.as(none + "." + parts[1] + ".").get(PROBE).then());
        unauthenticated(given().header("Authorization", "Bearer not-a-token").get(PROBE).then());
    }

    @Test
    void aCustomerIsLimitedPerSecondAndStaffAreNot() {
        String token = Tokens.customer("c-limit-" + UUID.randomUUID());
        List<Response> answers = IntStream.range(0, 60).mapToObj(n -> Tokens.as(token).get(PROBE + "/attempt/" + n)).toList();
        Response refused = answers.stream().filter(answer -> answer.statusCode() == 429).findFirst()
                .orElseThrow(() -> new AssertionError("60 attempts within a few seconds must meet the limit of 20 per second"));
        refused.then().contentType("application/problem+json").header("Retry-After", "1").body("reason", is("TOO_MANY_ATTEMPTS"));
        String staff = Tokens.staff("agent-" + UUID.randomUUID());
        long staffRefused = IntStream.range(0, 60).map(n -> Tokens.as(staff).get(PROBE + "/attempt/" + n).statusCode())
                .filter(status -> status == 429).count();
        assertEquals(0, staffRefused);
    }

    private static void unauthenticated(ValidatableResponse response) {
        response.statusCode(401).contentType("application/problem+json").header("WWW-Authenticate", "Bearer")
                .body("reason", is("UNAUTHENTICATED"));
    }
}
