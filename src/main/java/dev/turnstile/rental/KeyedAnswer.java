package dev.turnstile.rental;

import dev.turnstile.idempotency.Keyed;

/**
 * A keyed rent, return or service: what it came to ({@code Fresh} with the bike's JSON as answered now, or
 * {@code Replay} of the answer stored under the key) and the bike's entity tag in that answer, which the body alone
 * cannot give (it does not show the generation).
 */
public record KeyedAnswer(Keyed<String> outcome, String tag) {
}
