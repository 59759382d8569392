package dev.turnstile.idempotency;

/** An answer kept under an idempotency key: status and body exactly as first given; the body is null for 204. */
public record StoredResponse(int status, String body) {
}
