package dev.turnstile.identity;

import java.time.Duration;

import dev.turnstile.config.CheckedValues.NonNegative;
import dev.turnstile.config.CheckedValues.NotBlank;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithConverter;
import io.smallrye.config.WithDefault;

/**
 * {@code turnstile.identity.*}. The three token settings have no default outside dev and test: a production start
 * without them fails, naming the property, instead of accepting tokens from any issuer.
 */
@ConfigMapping(prefix = "turnstile.identity")
public interface IdentityConfig {

    /** The {@code iss} every token must carry (mp.jwt.verify.issuer follows it). */
    @WithConverter(NotBlank.class)
    String issuer();

    /** The {@code aud} every token must carry (mp.jwt.verify.audiences follows it). */
    @WithConverter(NotBlank.class)
    String audience();

    /** The public key (PEM or JWK file, or a JWKS URL such as Cognito's) that verifies the signature. */
    @WithConverter(NotBlank.class)
    String publicKeyLocation();

    Elite elite();

    TokenMemory verifiedTokens();

    /**
     * Booking and renting attempts one customer may make per second on one instance; more are answered 429 with
     * Retry-After. Staff are not limited. 0 turns the limit off.
     */
    @WithDefault("20")
    @WithConverter(NonNegative.class)
    int attemptsPerSecond();

    /** How long and how many verified tokens {@link VerifiedTokens} remembers. */
    interface TokenMemory {

        /**
         * The longest a verification is reused (never past the token's {@code exp}): also how long a token keeps
         * passing after its signing key was withdrawn. 0 verifies every request's token.
         */
        @WithDefault("60s")
        Duration maxAge();

        /** The most tokens remembered at once; a new token beyond them is verified on every request until room frees. */
        @WithDefault("1000")
        @WithConverter(NonNegative.class)
        int maxEntries();
    }

    /** Elite status is read from one claim: a string claim that must equal the value, or a list that holds it. */
    interface Elite {

        @WithDefault("tier")
        @WithConverter(NotBlank.class)
        String claim();

        @WithDefault("elite")
        @WithConverter(NotBlank.class)
        String value();
    }
}
