package dev.turnstile.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

import org.eclipse.microprofile.jwt.Claims;
import org.jose4j.jwt.JwtClaims;
import org.junit.jupiter.api.Test;

import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.jwt.auth.principal.DefaultJWTCallerPrincipal;

/**
 * The caller read from smallrye-jwt's own principal. Its {@code getClaim} throws and catches an exception inside for
 * every name that is not a standard claim; under a booking load that was 3.6 % of the service's CPU, paid by every
 * caller for the elite claim only elite callers carry.
 */
class CallersTest {

    private final List<String> looked = new ArrayList<>();

    @Test
    void aTokenWithoutTheEliteClaimIsNeverAskedForIt() {
        Caller caller = callers(principal(Set.of(Roles.CUSTOMER), null)).current();

        assertEquals("alice", caller.subject());
        assertFalse(caller.elite());
        assertFalse(caller.staff());
        List<String> custom = looked.stream().filter(name -> !standard(name)).toList();
        assertEquals(List.of(), custom, "non-standard claim names looked up");
    }

    @Test
    void anEliteTokenIsStillReadAsElite() {
        assertTrue(callers(principal(Set.of(Roles.CUSTOMER), "elite")).current().elite());
        assertTrue(callers(principal(Set.of(Roles.STAFF), List.of("gold", "elite"))).current().elite());
        assertFalse(callers(principal(Set.of(Roles.CUSTOMER), "gold")).current().elite());
    }

    private static boolean standard(String name) {
        return Arrays.stream(Claims.values()).anyMatch(claim -> claim.name().equals(name));
    }

    private DefaultJWTCallerPrincipal principal(Set<String> roles, Object tier) {
        JwtClaims claims = new JwtClaims();
        claims.setSubject("alice");
        claims.setStringListClaim("groups", List.copyOf(roles));
        if (tier != null) {
            claims.setClaim("tier", tier);
        }
        return new DefaultJWTCallerPrincipal("JWT", claims) {
            @Override
            protected Claims getClaimType(String name) {
                looked.add(name);
                return super.getClaimType(name);
            }
        };
    }

    private static Callers callers(DefaultJWTCallerPrincipal principal) {
        QuarkusSecurityIdentity identity = QuarkusSecurityIdentity.builder().setPrincipal(principal)
                .addRoles(principal.getGroups()).build();
        return new Callers(identity, config());
    }

    /**
     * The elite settings' defaults; every other setting is left out, since reading the caller asks for none. A proxy,
     * not a class: a class implementing the constrained config interface would be a bean the Quarkus tests refuse.
     */
    private static IdentityConfig config() {
        IdentityConfig.Elite elite = proxy(IdentityConfig.Elite.class, name -> switch (name) {
            case "claim" -> "tier";
            case "value" -> "elite";
            default -> throw new UnsupportedOperationException(name);
        });
        return proxy(IdentityConfig.class, name -> {
            if (name.equals("elite")) {
                return elite;
            }
            throw new UnsupportedOperationException(name);
        });
    }

    private static <T> T proxy(Class<T> type, Function<String, Object> answers) {
        return type.cast(Proxy.newProxyInstance(CallersTest.class.getClassLoader(), new Class<?>[] { type },
                (proxy, method, args) -> answers.apply(method.getName())));
    }
}
