package dev.turnstile.identity;

import java.util.Collection;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.JsonString;

import org.eclipse.microprofile.jwt.JsonWebToken;

import io.quarkus.security.identity.SecurityIdentity;

/** Reads the {@link Caller} of the current request from the identity Quarkus verified. */
@ApplicationScoped
public class Callers {

    private final SecurityIdentity identity;
    private final IdentityConfig config;

    Callers(SecurityIdentity identity, IdentityConfig config) {
        this.identity = identity;
        this.config = config;
    }

    /**
     * The account is the token's {@code sub}, not the principal's name: smallrye-jwt names the principal after
     * {@code upn}, else {@code preferred_username}, claims an issuer may change or give to another account; {@code sub}
     * is the one it never reassigns (OpenID Connect Core 5.7), and {@code smallrye.jwt.required.claims} makes every
     * token carry one. The bearer token is the only way in, so the principal is always a token.
     */
    public Caller current() {
        JsonWebToken token = (JsonWebToken) identity.getPrincipal();
        return new Caller(token.getSubject(), identity.hasRole(Roles.STAFF), holds(eliteClaim(token)));
    }

    /**
     * smallrye-jwt's {@code getClaim} looks every name up with {@code Claims.valueOf}, which throws, and so fills in a
     * stack trace, for a name that is not a standard claim, as the elite claim is: 3.6 % of the service's CPU under a
     * booking load (docs/identity.md, "Reading the elite claim"). Asking only a token that carries the claim leaves
     * that cost to elite callers.
     */
    private Object eliteClaim(JsonWebToken token) {
        String claim = config.elite().claim();
        return token.getClaimNames().contains(claim) ? token.getClaim(claim) : null;
    }

    private boolean holds(Object claim) {
        if (claim instanceof Collection<?> values) {
            return values.stream().anyMatch(this::holds);
        }
        String text = claim instanceof JsonString json ? json.getString() : claim == null ? null : claim.toString();
        return config.elite().value().equals(text);
    }
}
