package dev.turnstile.identity;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.jwt.JsonWebToken;

import io.smallrye.jwt.auth.principal.DefaultJWTParser;
import io.smallrye.jwt.auth.principal.ParseException;

/**
 * Test only: {@link VerifiedTokens} as the app uses it, noting the thread that last parsed each token or looked it up
 * in memory. Selected by the test profiles that ask for it ({@code getEnabledAlternatives}), so every other test runs
 * the app's own bean.
 */
@Alternative
@Singleton
public class ThreadRecordingVerifiedTokens extends VerifiedTokens {

    private static final Map<String, String> LAST_THREAD = new ConcurrentHashMap<>();

    @Inject
    ThreadRecordingVerifiedTokens(DefaultJWTParser verifier, IdentityConfig config) {
        super(verifier, config);
    }

    static String lastThreadFor(String token) {
        return LAST_THREAD.get(token);
    }

    @Override
    public JsonWebToken parse(String token) throws ParseException {
        LAST_THREAD.put(token, Thread.currentThread().getName());
        return super.parse(token);
    }

    @Override
    JsonWebToken remembered(String token) {
        LAST_THREAD.put(token, Thread.currentThread().getName());
        return super.remembered(token);
    }
}
