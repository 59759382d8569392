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
        boolean elite = identity.getPrincipal() instanceof JsonWebToken token && holds(token.getClaim(config.elite().claim()));
        return new Caller(identity.getPrincipal().getName(), identity.hasRole(Roles.STAFF), elite);
    }

    private boolean holds(Object claim) {
        if (claim instanceof Collection<?> values) {
            return values.stream().anyMatch(this::holds);
        }
        String text = claim instanceof JsonString json ? json.getString() : claim == null ? null : claim.toString();
        return config.elite().value().equals(text);
    }
}
