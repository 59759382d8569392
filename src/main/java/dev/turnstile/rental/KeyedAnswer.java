package dev.turnstile.rental;

import dev.turnstile.idempotency.StoredResponse;

/** The answer to a keyed request, as stored under its key: the first time, or replayed ({@code replayed}). */
public record KeyedAnswer(StoredResponse answer, String tag, boolean replayed) {
}
