package dev.turnstile.identity;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.time.Duration;
import java.util.Set;

import io.restassured.RestAssured;
import io.restassured.specification.RequestSpecification;
import io.smallrye.jwt.build.Jwt;
import io.smallrye.jwt.build.JwtClaimsBuilder;
import io.smallrye.jwt.util.KeyUtils;

/**
 * Tokens for tests, minted with smallrye-jwt's own builder and signed by the dev key pair that the test profile
 * trusts (local/dev-keys). Tests act as real callers: security is never turned off.
 */
public final class Tokens {

    public static final String ISSUER = "https://turnstile.local/dev";
    public static final String AUDIENCE = "turnstile";
    private static final PrivateKey KEY = devKey();

    private Tokens() {
    }

    public static String customer(String subject) {
        return sign(claims(subject, Set.of(Roles.CUSTOMER)));
    }

    public static String eliteCustomer(String subject) {
        return sign(claims(subject, Set.of(Roles.CUSTOMER)).claim("tier", "elite"));
    }

    public static String staff(String subject) {
        return sign(claims(subject, Set.of(Roles.STAFF)));
    }

    /** A token for {@code subject} with the given roles, to change before signing (expiry, issuer, audience...). */
    public static JwtClaimsBuilder claims(String subject, Set<String> roles) {
        return Jwt.issuer(ISSUER).audience(AUDIENCE).subject(subject).upn(subject).groups(roles)
                .expiresIn(Duration.ofHours(1));
    }

    public static String sign(JwtClaimsBuilder claims) {
        return claims.sign(KEY);
    }

    /** rest-assured's given(), carrying {@code token} as the bearer. */
    public static RequestSpecification as(String token) {
        return RestAssured.given().auth().oauth2(token);
    }

    public static RequestSpecification asCustomer(String subject) {
        return as(customer(subject));
    }

    public static RequestSpecification asStaff() {
        return as(staff("staff-test"));
    }

    private static PrivateKey devKey() {
        try {
            return KeyUtils.decodePrivateKey(Files.readString(Path.of("local/dev-keys/private.pem")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
