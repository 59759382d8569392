package dev.turnstile.booking;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

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
 * found less waits {@code poll-interval} on a Vert.x timer. No thread sleeps. While bookings queue at a fare's gate
 * ({@link FareGates#queueing}) a worker waits {@code poll-interval} after a full batch too: ticket numbers may come a
 * little later, seats may not, and back-to-back claims took CPU and the bookings table from the sale (one
 * flash-sustained run sold 15-25 % more with the workers off). The backlog is issued at full speed once the queue is gone.
 *
 * <p>Not a {@code @Scheduled} job: each worker claims back to back while batches come back full and waits only when
 * idle, on its own, and shutdown lets running claims commit; a fixed-rate trigger would idle a backlog between ticks.
 */
@ApplicationScoped
public class TicketWorkers {

    private static final Logger LOG = Logger.getLogger(TicketWorkers.class);
    private static final long NO_TIMER = -1;

    private final Vertx vertx;
    private final BoundedTransactions transactions;
    private final BookingRepository bookings;
    private final FareGates gates;
    private final boolean enabled;
    private final int batchSize;
    private final long pollMillis;
    private final AtomicLongArray timers;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Counter issued;
    private volatile boolean stopping;

    TicketWorkers(Vertx vertx, BoundedTransactions transactions, BookingRepository bookings, FareGates gates,
            MeterRegistry registry, BookingConfig config) {
        this.vertx = vertx;
        this.transactions = transactions;
        this.bookings = bookings;
        this.gates = gates;
        this.enabled = config.ticketing().enabled();
        this.batchSize = config.ticketing().batchSize();
        this.pollMillis = Math.max(1, config.ticketing().pollInterval().toMillis());
        this.timers = new AtomicLongArray(config.ticketing().workers());
        this.issued = Counter.builder("turnstile.tickets.issued").description("Ticket numbers issued").register(registry);
    }

    void start(@Observes StartupEvent startup) {
        if (!enabled) {
            return;
        }
        // The first claims wait one poll interval: at start the pool's first connections go to the readiness check
        // and the first requests, and a ticket issued half a second later is not late (claims pick up any backlog).
        for (int worker = 0; worker < timers.length(); worker++) {
            schedule(worker, pollMillis + worker);
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
        transactions.runInBackground(connection -> bookings.issueTickets(connection, batchSize)).subscribe().with(count -> {
            inFlight.decrementAndGet();
            issued.increment(count);
            schedule(worker, count == batchSize && !gates.queueing() ? 1 : pollMillis);
        }, failure -> {
            inFlight.decrementAndGet();
            LOG.warnf("Ticketing worker %d failed, retrying in %d ms: %s", worker, pollMillis, failure.getMessage());
            schedule(worker, pollMillis);
        });
    }
}
