package dev.turnstile.rental;

import dev.turnstile.idempotency.Idempotency;

/**
 * A rent, return or service that carried an {@code Idempotency-Key}: the record's id (caller scope and key) and the
 * request's fingerprint (see {@link Idempotency#fingerprint}).
 */
public record KeyedRequest(String id, String fingerprint) {

    public static KeyedRequest of(String scope, String key, String fingerprint) {
        return new KeyedRequest(scope + "|" + key, fingerprint);
    }

    /** What the bike item remembers of an applied key: short, and no customer id or key in clear. */
    String digest() {
        return Idempotency.sha256Hex(id).substring(0, 32);
    }
}
