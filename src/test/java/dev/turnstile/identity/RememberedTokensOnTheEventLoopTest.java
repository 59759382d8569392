package dev.turnstile.identity;

import static dev.turnstile.identity.Tokens.as;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;
import static org.hamcrest.MatcherAssert.assertThat;

import java.util.Set;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * With the key set at a JWKS URL, as in production, a token seen for the first time is verified on a worker thread
 * (the key set may have to be fetched, with a blocking client), and a token the app remembers is made into an identity
 * on the request's event loop. Before, every request took the worker hop: with the key set at a URL smallrye-jwt
 * verifies on a worker, whether or not there is anything to fetch.
 */
@QuarkusTest
@TestProfile(RememberedTokensOnTheEventLoopTest.KeySetUrl.class)
@WithTestResource(value = KeySetServer.class, scope = TestResourceScope.RESTRICTED_TO_CLASS,
        initArgs = @ResourceArg(name = "verified-tokens.max-age", value = "60s"))
class RememberedTokensOnTheEventLoopTest {

    /** Its own app start: the key set URL and the thread-noting parser are this class's alone. */
    public static class KeySetUrl implements QuarkusTestProfile {
        @Override
        public Set<Class<?>> getEnabledAlternatives() {
            return Set.of(ThreadRecordingVerifiedTokens.class);
        }
    }

    @Test
    void aRememberedTokenIsNotSentToAWorker() {
        String token = Tokens.customer("loop-rider");

        as(token).get("/bikes/no-such-bike").then().statusCode(404).body("reason", equalTo("BIKE_NOT_FOUND"));
        assertThat("verified for the first time", ThreadRecordingVerifiedTokens.lastThreadFor(token), startsWith("executor-thread"));

        as(token).get("/bikes/no-such-bike").then().statusCode(404).body("reason", equalTo("BIKE_NOT_FOUND"));
        assertThat("remembered", ThreadRecordingVerifiedTokens.lastThreadFor(token), startsWith("vert.x-eventloop-thread"));
    }
}
