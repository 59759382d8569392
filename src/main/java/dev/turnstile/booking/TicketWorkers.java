package dev.turnstile.booking;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.mutiny.core.Vertx;

/**
 * Issues ticket numbers to confirmed bookings in the background. Each worker claims up to {@code batch-size} pending
 * bookings with FOR UPDATE SKIP LOCKED in one short statement, so workers (in this JVM or in other instances) never
 * wait for one another and never get the same booking. A worker that found a full batch goes again at once; one that
 * found less waits {@code poll-interval} on a Vert.x timer. No thread sleeps.
 */
@ApplicationScoped
public class TicketWorkers {

    private static final Logger LOG = Logger.getLogger(TicketWorkers.class);
    private static final long NO_TIMER = -1;

    private final Vertx vertx;
    private final BoundedTransactions transactions;
    private final BookingRepository bookings;
    private final boolean enabled;
    private final int batchSize;
    private final long pollMillis;
    private final AtomicLongArray timers;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Counter issued;
    private volatile boolean stopping;

    TicketWorkers(Vertx vertx, BoundedTransactions transactions, BookingRepository bookings, MeterRegistry registry,
            @ConfigProperty(name = "turnstile.booking.ticketing.enabled", defaultValue = "true") boolean enabled,
            @ConfigProperty(name = "turnstile.booking.ticketing.workers", defaultValue = "2") int workers,
            @ConfigProperty(name = "turnstile.booking.ticketing.batch-size", defaultValue = "50") int batchSize,
            @ConfigProperty(name = "turnstile.booking.ticketing.poll-interval", defaultValue = "500ms") Duration pollInterval) {
        this.vertx = vertx;
        this.transactions = transactions;
        this.bookings = bookings;
        this.enabled = enabled;
        this.batchSize = batchSize;
        this.pollMillis = Math.max(1, pollInterval.toMillis());
        this.timers = new AtomicLongArray(workers);
        this.issued = Counter.builder("turnstile.tickets.issued").description("Ticket numbers issued").register(registry);
    }

    void start(@Observes StartupEvent startup) {
        if (!enabled) {
            return;
        }
        for (int worker = 0; worker < timers.length(); worker++) {
            schedule(worker, 1 + worker);
        }
        LOG.infof("%d ticketing workers started (batch %d, poll %d ms)", timers.length(), batchSize, pollMillis);
    }

    /** Cancels the pending timers, then lets the claims already running commit (bounded), so nothing is cut off. */
    void stop(@Observes ShutdownEvent shutdown) {
        stopping = true;
        for (int worker = 0; worker < timers.length(); worker++) {
            long timer = timers.getAndSet(worker, NO_TIMER);
            if (timer != NO_TIMER) {
                vertx.cancelTimer(timer);
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        // The shutdown thread, not an event loop: waiting here blocks no request.
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    private void schedule(int worker, long delayMillis) {
        if (!stopping) {
            timers.set(worker, vertx.setTimer(delayMillis, fired -> claim(worker)));
        }
    }

    private void claim(int worker) {
        timers.set(worker, NO_TIMER);
        if (stopping) {
            return;
        }
        inFlight.incrementAndGet();
        transactions.run(connection -> bookings.issueTickets(connection, batchSize)).subscribe().with(count -> {
            inFlight.decrementAndGet();
            issued.increment(count);
            schedule(worker, count == batchSize ? 1 : pollMillis);
        }, failure -> {
            inFlight.decrementAndGet();
            LOG.warnf("Ticketing worker %d failed, retrying in %d ms: %s", worker, pollMillis, failure.getMessage());
            schedule(worker, pollMillis);
        });
    }
}
