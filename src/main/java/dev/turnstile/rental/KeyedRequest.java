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

    /** The key as the bike item knows it: short, and no customer id or key in clear. */
    String digest() {
        return Idempotency.sha256Hex(id).substring(0, 32);
    }

    /** What the bike item keeps of a write made under this key by the claim of {@code owner}. */
    String mark(String owner) {
        return digest() + ":" + owner;
    }

    static boolean markOf(String mark, String keyDigest) {
        return mark.startsWith(keyDigest + ":");
    }
}
