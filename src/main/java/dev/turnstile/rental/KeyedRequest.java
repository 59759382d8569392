package dev.turnstile.rental;

import dev.turnstile.idempotency.Idempotency;

/**
 * A rent, return or service that carried an {@code Idempotency-Key}: the record's id (the key in the caller's scope) and the
 * request's fingerprint, made of what the request asks for (the operation, the bike, and the values that decide the
 * outcome), never of how it was addressed or of the key itself.
 */
public record KeyedRequest(String id, String fingerprint) {

    /** {@code scopedKey}: the Idempotency-Key in the caller's own space (Caller#scope). */
    static KeyedRequest of(String scopedKey, String operation, String bikeId, String... deciding) {
        return new KeyedRequest(scopedKey,
                Idempotency.sha256Hex(operation + '\n' + bikeId + '\n' + String.join("\n", deciding)));
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
