package dev.turnstile.booking;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.mutiny.core.Vertx;

/**
 * Deletes expired idempotency keys now and then (they are already ignored when expired: a claim takes them over),
 * and frees the key on the bookings made under them, so that a client may use the key again.
 */
@ApplicationScoped
public class ExpiredKeyCleaner {

    private static final Logger LOG = Logger.getLogger(ExpiredKeyCleaner.class);

    private final Vertx vertx;
    private final BoundedTransactions transactions;
    private final BookingRepository bookings;
    private final boolean enabled;
    private final long intervalMillis;
    private long timer = -1;

    ExpiredKeyCleaner(Vertx vertx, BoundedTransactions transactions, BookingRepository bookings,
            @ConfigProperty(name = "turnstile.idempotency.cleanup.enabled", defaultValue = "true") boolean enabled,
            @ConfigProperty(name = "turnstile.idempotency.cleanup.interval", defaultValue = "10m") Duration interval) {
        this.vertx = vertx;
        this.transactions = transactions;
        this.bookings = bookings;
        this.enabled = enabled;
        this.intervalMillis = Math.max(1, interval.toMillis());
    }

    void start(@Observes StartupEvent startup) {
        if (enabled) {
            timer = vertx.setPeriodic(intervalMillis, fired -> transactions.run(bookings::forgetExpiredKeys).subscribe().with(
                    count -> LOG.debugf("Forgot %d expired idempotency keys", count),
                    failure -> LOG.warnf("Cleaning expired idempotency keys failed: %s", failure.getMessage())));
        }
    }

    void stop(@Observes ShutdownEvent shutdown) {
        if (timer != -1) {
            vertx.cancelTimer(timer);
        }
    }
}
