package dev.turnstile.retry;

import jakarta.enterprise.context.ApplicationScoped;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Tracer;

/** Starts the {@link RaceAttempts} of one call, under the span current where the call begins. */
@ApplicationScoped
public class RaceTracing {

    private final Tracer tracer;

    RaceTracing(Tracer tracer) {
        this.tracer = tracer;
    }

    /**
     * @param wing the span is named {@code <wing>.attempt}
     * @param lostRace the failure that means "another writer won, try again"
     */
    public RaceAttempts begin(String wing, Attributes attributes, Class<? extends Throwable> lostRace) {
        return new RaceAttempts(tracer, wing, attributes, lostRace);
    }
}
