package dev.turnstile.identity;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.jwt.JsonWebToken;

import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.TokenAuthenticationRequest;
import io.quarkus.smallrye.jwt.runtime.auth.MpJwtValidator;
import io.quarkus.smallrye.jwt.runtime.auth.SmallRyeJwtConfig;
import io.smallrye.jwt.auth.principal.DefaultJWTParser;
import io.smallrye.jwt.auth.principal.ParseException;
import io.smallrye.mutiny.Uni;

/**
 * Makes the caller's identity from a bearer token that {@link VerifiedTokens} remembers on the thread that asks, the
 * request's event loop, and leaves every other token to smallrye-jwt's own provider.
 *
 * <p>Written here because, with the key set at a JWKS URL as in production, smallrye-jwt's provider
 * ({@link MpJwtValidator}) runs every verification on a worker thread, since one may have to fetch the key set with a
 * blocking HTTP client. A remembered token needs neither the key set nor a signature check, yet paid that hop on every
 * request: GET /bikes/{id} answered about a quarter fewer requests per second than with the key in a file
 * (docs/identity.md, "The key set"). A token not remembered goes to smallrye-jwt's provider and its worker, so
 * fetching the key set never holds an event loop. The identity itself is built by smallrye-jwt's provider class in
 * both cases (its roles, principal and attributes); on a Quarkus upgrade, check that its constructor still decides
 * blocking or not from the key locations it is given.
 */
@ApplicationScoped
class RememberedTokenIdentities implements IdentityProvider<TokenAuthenticationRequest> {

    /** Thrown inside the provider below and turned into "not mine" here: never seen outside, so never a trace. */
    private static final ParseException NOT_REMEMBERED = new ParseException("no longer remembered") {
        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    };

    private final VerifiedTokens tokens;
    /**
     * smallrye-jwt's provider told of no remote key location, so it works on the calling thread (unless
     * {@code quarkus.smallrye-jwt.blocking-authentication} asks for a worker explicitly), with a parser that answers
     * from memory only: a token that stopped being remembered since {@link #authenticate} looked is not verified
     * here, on the event loop, but handed on.
     */
    private final MpJwtValidator fromMemory;

    RememberedTokenIdentities(VerifiedTokens tokens, SmallRyeJwtConfig config) {
        this.tokens = tokens;
        this.fromMemory = new MpJwtValidator(new DefaultJWTParser() {
            @Override
            public JsonWebToken parse(String token) throws ParseException {
                JsonWebToken remembered = tokens.remembered(token);
                if (remembered == null) {
                    throw NOT_REMEMBERED;
                }
                return remembered;
            }
        }, config, null, null);
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

    @Override
    public Uni<SecurityIdentity> authenticate(TokenAuthenticationRequest request, AuthenticationRequestContext context) {
        if (tokens.remembered(request.getToken().getToken()) == null) {
            return Uni.createFrom().nullItem();
        }
        return fromMemory.authenticate(request, context)
                .onFailure(failure -> failure.getCause() == NOT_REMEMBERED).recoverWithNull();
    }
}
