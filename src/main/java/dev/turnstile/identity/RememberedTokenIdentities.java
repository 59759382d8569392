package dev.turnstile.identity;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.TokenAuthenticationRequest;
import io.quarkus.smallrye.jwt.runtime.auth.JsonWebTokenCredential;
import io.quarkus.smallrye.jwt.runtime.auth.MpJwtValidator;
import io.quarkus.smallrye.jwt.runtime.auth.SmallRyeJwtConfig;
import io.smallrye.mutiny.Uni;

/**
 * Makes the caller's identity from a bearer token that {@link VerifiedTokens} remembers on the thread that asks, the
 * request's event loop, and leaves every other token to smallrye-jwt's own provider.
 *
 * <p>Written here because, with the key set at a JWKS URL as in production, smallrye-jwt's provider
 * ({@link MpJwtValidator}) runs every verification on a worker thread, since one may have to fetch the key set with a
 * blocking HTTP client. A remembered token needs neither the key set nor a signature check, yet paid that hop on every
 * request: GET /bikes/{id} answered about a quarter fewer requests per second than with the key in a file
 * (docs/identity.md, "The key set"). A token not remembered still goes to smallrye-jwt's provider and its worker, so
 * fetching the key set never holds an event loop.
 */
@ApplicationScoped
class RememberedTokenIdentities implements IdentityProvider<TokenAuthenticationRequest> {

    private final VerifiedTokens tokens;
    /**
     * smallrye-jwt's provider told of no remote key location, so it works on the calling thread (unless
     * {@code quarkus.smallrye-jwt.blocking-authentication} asks for a worker explicitly); it parses with
     * {@link VerifiedTokens}, which answers a remembered token from memory.
     */
    private final MpJwtValidator onCallingThread;

    RememberedTokenIdentities(VerifiedTokens tokens, SmallRyeJwtConfig config) {
        this.tokens = tokens;
        this.onCallingThread = new MpJwtValidator(tokens, config, null, null);
    }

    @Override
    public Class<TokenAuthenticationRequest> getRequestType() {
        return TokenAuthenticationRequest.class;
    }

    /** Asked before smallrye-jwt's provider, which has the default priority. */
    @Override
    public int priority() {
        return IdentityProvider.super.priority() + 1;
    }

    /**
     * A token that stops being remembered between the question and the parse (its time ran out in between) is verified
     * on the calling thread: with the key set's copy in hand, as nearly always, that is a signature check, no fetch.
     */
    @Override
    public Uni<SecurityIdentity> authenticate(TokenAuthenticationRequest request, AuthenticationRequestContext context) {
        return request.getToken() instanceof JsonWebTokenCredential && tokens.remembers(request.getToken().getToken())
                ? onCallingThread.authenticate(request, context)
                : Uni.createFrom().nullItem();
    }
}
