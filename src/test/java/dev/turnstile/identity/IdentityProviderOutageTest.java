package dev.turnstile.identity;

import static dev.turnstile.identity.Tokens.as;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * The key set comes from the identity provider's JWKS URL, as in production. When the provider fails while the app
 * refreshes its copy, the keys it has keep verifying tokens: before, every token that reached the verifier after
 * the copy expired was a 401 until the provider answered again, logging every customer out in an outage elsewhere.
 */
@QuarkusTest
@TestProfile(IdentityProviderOutageTest.KeySetUrl.class)
@WithTestResource(value = KeySetServer.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class IdentityProviderOutageTest {

    /** Its own app start: the key set URL and the verification memory off are this class's alone. */
    public static class KeySetUrl implements QuarkusTestProfile {
    }

    @AfterEach
    void providerBack() {
        KeySetServer.failing.set(false);
    }

    @Test
    void tokensStillVerifyWhileTheProviderFailsToServeItsKeys() throws Exception {
        as(Tokens.staff("outage-before")).get("/bikes/no-such-bike").then().statusCode(404)
                .body("reason", equalTo("BIKE_NOT_FOUND"));
        int fetchesBefore = KeySetServer.fetches.get();

        KeySetServer.failing.set(true);
        Thread.sleep(1_500); // past the key set's max-age: the next verification refreshes it

        as(Tokens.staff("outage-during")).get("/bikes/no-such-bike").then().statusCode(404)
                .body("reason", equalTo("BIKE_NOT_FOUND"));
        as(Tokens.customer("outage-customer")).get("/bikes/no-such-bike").then().statusCode(404);
        assertTrue(KeySetServer.fetches.get() > fetchesBefore, "the app asked the provider again, and it failed");
    }
}
