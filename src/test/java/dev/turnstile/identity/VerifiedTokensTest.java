package dev.turnstile.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.eclipse.microprofile.jwt.JsonWebToken;
import org.junit.jupiter.api.Test;

import io.smallrye.jwt.auth.principal.JWTParser;
import io.smallrye.jwt.auth.principal.ParseException;

/** The remembered verifications on their own, on a clock the test moves: how long, how many, and never a failure. */
class VerifiedTokensTest {

    private static final long MAX_AGE = 60_000;
    private final AtomicLong now = new AtomicLong(1_000_000_000_000L);
    private final AtomicInteger verifications = new AtomicInteger();

    /** A verifier that accepts tokens named "good-<exp in epoch seconds>" and refuses everything else. */
    private final JWTParser verifier = (JWTParser) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] { JWTParser.class }, (proxy, method, args) -> {
                if (!method.getName().equals("parse") || args.length != 1) {
                    throw new UnsupportedOperationException(method.getName());
                }
                verifications.incrementAndGet();
                String token = (String) args[0];
                if (!token.startsWith("good-")) {
                    throw new ParseException("refused");
                }
                return token(Long.parseLong(token.substring(5)));
            });

    private VerifiedTokens tokens(int maxEntries) {
        return new VerifiedTokens(verifier, MAX_AGE, maxEntries, now::get);
    }

    private String goodFor(long seconds) {
        return "good-" + (now.get() / 1000 + seconds);
    }

    @Test
    void aVerifiedTokenIsReusedForTheMaxAgeThenVerifiedAgain() throws Exception {
        VerifiedTokens tokens = tokens(10);
        String token = goodFor(3600);
        JsonWebToken first = tokens.parse(token);
        now.addAndGet(MAX_AGE - 1);
        assertSame(first, tokens.parse(token));
        assertEquals(1, verifications.get());
        now.addAndGet(1);
        tokens.parse(token);
        assertEquals(2, verifications.get(), "verified again once max-age had passed");
    }

    @Test
    void aTokenIsNeverReusedPastItsExpiry() throws Exception {
        VerifiedTokens tokens = tokens(10);
        String token = goodFor(10);
        tokens.parse(token);
        now.addAndGet(9_999);
        tokens.parse(token);
        assertEquals(1, verifications.get());
        now.addAndGet(1);
        tokens.parse(token);
        assertEquals(2, verifications.get(), "at its exp the token goes back to the verifier, which decides");
    }

    @Test
    void remembersOnlyAVerifiedTokenAndOnlyUntilItsTimeIsUp() throws Exception {
        VerifiedTokens tokens = tokens(10);
        String token = goodFor(3600);
        assertNull(tokens.remembered(token), "not yet verified");
        JsonWebToken verified = tokens.parse(token);
        assertSame(verified, tokens.remembered(token));
        assertThrows(ParseException.class, () -> tokens.parse("forged"));
        assertNull(tokens.remembered("forged"));
        now.addAndGet(MAX_AGE);
        assertNull(tokens.remembered(token), "past max-age its next parse verifies it again, so it is not remembered");
        assertEquals(2, verifications.get(), "remembered() never verifies");
    }

    @Test
    void aRefusedTokenIsRefusedEveryTime() {
        VerifiedTokens tokens = tokens(10);
        assertThrows(ParseException.class, () -> tokens.parse("forged"));
        assertThrows(ParseException.class, () -> tokens.parse("forged"));
        assertEquals(2, verifications.get());
    }

    @Test
    void beyondMaxEntriesANewTokenIsVerifiedEveryTimeUntilAnEntryExpires() throws Exception {
        VerifiedTokens tokens = tokens(2);
        String c = goodFor(7200);
        tokens.parse(goodFor(3600));
        now.addAndGet(1000);
        tokens.parse(goodFor(3601));
        now.addAndGet(1000);
        tokens.parse(c);
        tokens.parse(c);
        assertEquals(4, verifications.get(), "c found no room");
        now.addAndGet(MAX_AGE - 2000);
        tokens.parse(c);
        tokens.parse(c);
        assertEquals(5, verifications.get(), "a's entry had expired, so c took its place");
    }

    @Test
    void zeroMaxEntriesVerifiesEveryRequest() throws Exception {
        VerifiedTokens tokens = tokens(0);
        String token = goodFor(3600);
        tokens.parse(token);
        tokens.parse(token);
        assertEquals(2, verifications.get());
    }

    private static JsonWebToken token(long expirationTime) {
        return (JsonWebToken) Proxy.newProxyInstance(VerifiedTokensTest.class.getClassLoader(), new Class<?>[] { JsonWebToken.class },
                (proxy, method, args) -> switch (method.getName()) {
                    case "getExpirationTime" -> expirationTime;
                    case "getSubject" -> "c-1";
                    default -> null;
                });
    }
}
