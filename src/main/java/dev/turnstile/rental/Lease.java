package dev.turnstile.rental;

import java.time.Instant;

/** A workshop's exclusive hold on a bike until {@code expiresAt}; only the {@code token} releases it early. */
public record Lease(String bikeId, String holder, String token, Instant expiresAt) {
}
