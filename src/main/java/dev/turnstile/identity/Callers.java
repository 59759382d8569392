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

    public Caller current() {
        boolean elite = identity.getPrincipal() instanceof JsonWebToken token && holds(eliteClaim(token));
        return new Caller(identity.getPrincipal().getName(), identity.hasRole(Roles.STAFF), elite);
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
