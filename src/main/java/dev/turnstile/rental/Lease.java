package dev.turnstile.rental;

import java.time.Instant;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** A workshop's exclusive hold on a bike until {@code expiresAt}; only the {@code token} releases it early. */
@RegisterForReflection
public record Lease(String bikeId, String holder, String token, Instant expiresAt) {
}
