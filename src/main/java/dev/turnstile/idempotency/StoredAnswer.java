package dev.turnstile.idempotency;

/**
 * An answer as kept under an idempotency key, in terms of the operation rather than of HTTP: it was done
 * ({@code body} is the value as JSON, or null when there is none) or refused ({@code body} is the problem document,
 * which carries its own status). The resource that replays it knows which status "done" means for its operation.
 */
public record StoredAnswer(boolean refused, String body) {
}
