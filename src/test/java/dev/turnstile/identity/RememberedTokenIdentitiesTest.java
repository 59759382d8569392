package dev.turnstile.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.reflect.Proxy;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.eclipse.microprofile.jwt.JsonWebToken;
import org.junit.jupiter.api.Test;

import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.TokenAuthenticationRequest;
import io.quarkus.smallrye.jwt.runtime.auth.JsonWebTokenCredential;
import io.quarkus.smallrye.jwt.runtime.auth.SmallRyeJwtConfig;
import io.smallrye.jwt.auth.principal.JWTParser;

/** The provider on its own: which tokens it answers, on the calling thread, and which it hands on. */
class RememberedTokenIdentitiesTest {

    private static final long MAX_AGE = 60_000;
    private final AtomicLong now = new AtomicLong(1_000_000_000_000L);
    private final AtomicInteger verifications = new AtomicInteger();
    private final AtomicInteger blockingCalls = new AtomicInteger();

    private final JWTParser verifier = (JWTParser) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] { JWTParser.class }, (proxy, method, args) -> {
                verifications.incrementAndGet();
                return token();
            });
    private final AuthenticationRequestContext context = new AuthenticationRequestContext() {
        @Override
        public io.smallrye.mutiny.Uni<SecurityIdentity> runBlocking(java.util.function.Supplier<SecurityIdentity> work) {
            blockingCalls.incrementAndGet();
            return io.smallrye.mutiny.Uni.createFrom().item(work);
        }
    };
    private final SmallRyeJwtConfig config = new SmallRyeJwtConfig() {
        @Override
        public Optional<Boolean> blockingAuthentication() {
            return Optional.empty();
        }

        @Override
        public boolean silent() {
            return false;
        }

        @Override
        public int priority() {
            return 0;
        }
    };

    private static JsonWebToken token() {
        return (JsonWebToken) Proxy.newProxyInstance(RememberedTokenIdentitiesTest.class.getClassLoader(),
                new Class<?>[] { JsonWebToken.class }, (proxy, method, args) -> switch (method.getName()) {
                    case "getName", "getSubject" -> "rider-1";
                    case "getGroups" -> Set.of(Roles.CUSTOMER);
                    case "getExpirationTime" -> Long.MAX_VALUE / 2000;
                    default -> null;
                });
    }

    private static TokenAuthenticationRequest request(String token) {
        return new TokenAuthenticationRequest(new JsonWebTokenCredential(token));
    }

    @Test
    void aRememberedTokenIsAnsweredOnTheCallingThreadWithItsRoles() throws Exception {
        VerifiedTokens tokens = new VerifiedTokens(verifier, MAX_AGE, 10, now::get);
        tokens.parse("t");
        SecurityIdentity identity = new RememberedTokenIdentities(tokens, config).authenticate(request("t"), context)
                .await().indefinitely();
        assertEquals("rider-1", identity.getPrincipal().getName());
        assertEquals(Set.of(Roles.CUSTOMER), identity.getRoles());
        assertEquals(1, verifications.get(), "answered from memory");
        assertEquals(0, blockingCalls.get(), "no worker");
    }

    @Test
    void aTokenNotRememberedIsHandedOn() {
        VerifiedTokens tokens = new VerifiedTokens(verifier, MAX_AGE, 10, now::get);
        assertNull(new RememberedTokenIdentities(tokens, config).authenticate(request("new"), context).await().indefinitely());
        assertEquals(0, verifications.get(), "smallrye-jwt's own provider verifies it, on its worker");
    }

    @Test
    void aTokenForgottenBetweenTheLookAndTheParseIsHandedOnNotVerifiedHere() throws Exception {
        // the clock moves past max-age on every reading after the token was remembered: remembered at the first
        // look, forgotten at the parse
        AtomicInteger readings = new AtomicInteger();
        VerifiedTokens tokens = new VerifiedTokens(verifier, MAX_AGE, 10,
                () -> now.get() + (readings.getAndIncrement() >= 2 ? MAX_AGE : 0));
        tokens.parse("t");
        assertNull(new RememberedTokenIdentities(tokens, config).authenticate(request("t"), context).await().indefinitely());
        assertEquals(1, verifications.get(), "not verified on the calling thread");
        assertEquals(0, blockingCalls.get());
    }
}
