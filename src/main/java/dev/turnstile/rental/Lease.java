package dev.turnstile.rental;

import java.time.Instant;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** A workshop's exclusive hold on a bike until {@code expiresAt}; only the {@code token} releases it early. */
@RegisterForReflection
public record Lease(String bikeId, String holder, String token, Instant expiresAt) {

    /**
     * When a lease taken at {@code now} for {@code ttlSeconds} ends. The item keeps whole seconds, so the end is
     * rounded up: a lease never lasts less than asked (truncating gave a one-second lease taken late in a second
     * only milliseconds).
     */
    public static Instant expiry(Instant now, int ttlSeconds) {
        return Instant.ofEpochSecond(now.getEpochSecond() + ttlSeconds + (now.getNano() > 0 ? 1 : 0));
    }
}
