package dev.turnstile.identity;

import java.security.PrivateKey;
import java.security.PublicKey;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

import javax.crypto.SecretKey;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;

import org.eclipse.microprofile.jwt.JsonWebToken;

import dev.turnstile.json.AccountId;
import io.smallrye.jwt.auth.principal.DefaultJWTParser;
import io.smallrye.jwt.auth.principal.JWTAuthContextInfo;
import io.smallrye.jwt.auth.principal.JWTParser;
import io.smallrye.jwt.auth.principal.ParseException;

/**
 * The parser the bearer-token check uses: smallrye-jwt's, refusing a token whose subject is not an
 * {@link AccountId} (every caller can then be named in a body), and remembering each token it verified for
 * {@code turnstile.identity.verified-tokens.max-age} (never past the token's {@code exp}), so a client's next
 * requests with the same token skip the parse and the signature check. A token that fails is never remembered.
 *
 * <p>Written here because smallrye-jwt verifies every request's token afresh and has no such cache (quarkus-oidc
 * caches only introspection and UserInfo answers). That was most of what the service allocated: jose4j's JSON parser
 * takes a 16 K-char buffer per parse, two parses per token: 87 % of the bytes allocated under a GET /bikes/{id} load,
 * about 215 KB a request (docs/identity.md, "Verified tokens").
 */
@Alternative
@Priority(1)
@ApplicationScoped
public class VerifiedTokens implements JWTParser {

    private static final Pattern ACCOUNT_ID = Pattern.compile(AccountId.PATTERN);

    private final JWTParser verifier;
    private final long maxAgeMillis;
    private final int maxEntries;
    private final LongSupplier clock;
    private final Map<String, Remembered> remembered = new ConcurrentHashMap<>();

    @Inject
    VerifiedTokens(DefaultJWTParser verifier, IdentityConfig config) {
        this(verifier, config.verifiedTokens().maxAge().toMillis(), config.verifiedTokens().maxEntries(), System::currentTimeMillis);
    }

    VerifiedTokens(JWTParser verifier, long maxAgeMillis, int maxEntries, LongSupplier clock) {
        this.verifier = verifier;
        this.maxAgeMillis = maxAgeMillis;
        this.maxEntries = maxEntries;
        this.clock = clock;
    }

    private record Remembered(JsonWebToken token, long untilMillis) {
    }

    @Override
    public JsonWebToken parse(String token) throws ParseException {
        long now = clock.getAsLong();
        Remembered known = remembered.get(token);
        if (known != null) {
            if (now < known.untilMillis()) {
                return known.token();
            }
            remembered.remove(token, known);
        }
        JsonWebToken verified = verifier.parse(token);
        // Checked with the signature, so a refused subject is a 401 like any bad token, and is never remembered.
        if (!ACCOUNT_ID.matcher(verified.getSubject()).matches()) {
            throw new ParseException("The token's subject is not an account id (" + AccountId.PATTERN + ")");
        }
        long until = Math.min(now + maxAgeMillis, verified.getExpirationTime() * 1000);
        if (until > now && room(now)) {
            remembered.put(token, new Remembered(verified, until));
        }
        return verified;
    }

    /** {@code token} as it was verified, if it is remembered now; else null (and nothing is verified). */
    JsonWebToken remembered(String token) {
        Remembered known = remembered.get(token);
        return known != null && clock.getAsLong() < known.untilMillis() ? known.token() : null;
    }

    /** Whether one more fits, after forgetting the expired ones if the cache is full. */
    private boolean room(long now) {
        if (remembered.size() < maxEntries) {
            return true;
        }
        remembered.values().removeIf(entry -> entry.untilMillis() <= now);
        return remembered.size() < maxEntries;
    }

    // Everything else is the verifier's, unremembered: only parse(String) serves the bearer-token check.

    @Override
    public JsonWebToken parse(String token, JWTAuthContextInfo context) throws ParseException {
        return verifier.parse(token, context);
    }

    @Override
    public JsonWebToken verify(String token, PublicKey key) throws ParseException {
        return verifier.verify(token, key);
    }

    @Override
    public JsonWebToken verify(String token, SecretKey key) throws ParseException {
        return verifier.verify(token, key);
    }

    @Override
    public JsonWebToken verify(String token, String secret) throws ParseException {
        return verifier.verify(token, secret);
    }

    @Override
    public JsonWebToken decrypt(String token, PrivateKey key) throws ParseException {
        return verifier.decrypt(token, key);
    }

    @Override
    public JsonWebToken decrypt(String token, SecretKey key) throws ParseException {
        return verifier.decrypt(token, key);
    }

    @Override
    public JsonWebToken decrypt(String token, String secret) throws ParseException {
        return verifier.decrypt(token, secret);
    }

    @Override
    public JsonWebToken parseOnly(String token) throws ParseException {
        return verifier.parseOnly(token);
    }
}
