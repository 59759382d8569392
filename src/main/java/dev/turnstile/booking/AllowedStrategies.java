package dev.turnstile.booking;

import java.util.EnumSet;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.runtime.Startup;

/**
 * The strategies a request may name ({@code turnstile.booking.allowed-strategies}). A bean of its own because the
 * REST layer builds {@link StrategyParam} at static init, before runtime configuration exists; created at startup,
 * so that a default strategy outside the allowed set stops the start.
 */
@Startup
@ApplicationScoped
class AllowedStrategies {

    private final Set<Strategy> allowed;

    AllowedStrategies(BookingConfig config) {
        if (!config.allowedStrategies().contains(config.defaultStrategy())) {
            // A request naming no strategy would be refused for a choice it did not make.
            throw new IllegalStateException("turnstile.booking.default-strategy=" + config.defaultStrategy().label()
                    + " is not in turnstile.booking.allowed-strategies " + Strategy.labels(config.allowedStrategies()));
        }
        this.allowed = EnumSet.copyOf(config.allowedStrategies());
    }

    Set<Strategy> set() {
        return allowed;
    }
}
