package dev.turnstile.booking;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

import dev.turnstile.booking.BookingRepository.Passenger;
import dev.turnstile.booking.InventoryRepository.Lock;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;

/**
 * Readiness stays DOWN until the pool's connections are open and each has prepared the statements of the booking
 * path: otherwise the first sale after a start pays for connecting (a PostgreSQL backend per connection) and for
 * parsing and planning every statement on every connection, and it sold out several times slower than the next.
 * Runs in the background after start (it delays readiness, not the start), on a fare that does not exist, so
 * nothing is written. A failure (PostgreSQL away) ends the warm-up: PostgreSQL's own readiness says DOWN then.
 * Behind a pooler (unnamed statements, no statement cache) nothing stays prepared: there it opens the connections
 * to the pooler and runs the path once.
 */
@Readiness
@ApplicationScoped
public class BookingWarmUp implements AsyncHealthCheck {

    private static final Logger LOG = Logger.getLogger(BookingWarmUp.class);
    private static final FareKey NO_FARE = new FareKey("-warm-up-", "-");
    private static final Passenger NOBODY = new Passenger("-warm-up-", false, null, null);

    private final BoundedTransactions transactions;
    private final InventoryRepository inventory;
    private final BookingRepository bookings;
    private final int connections;
    private volatile boolean warm;

    BookingWarmUp(BoundedTransactions transactions, InventoryRepository inventory, BookingRepository bookings,
            @ConfigProperty(name = "quarkus.datasource.reactive.max-size", defaultValue = "20") int connections) {
        this.transactions = transactions;
        this.inventory = inventory;
        this.bookings = bookings;
        this.connections = connections;
    }

    void warmUp(@Observes StartupEvent start) {
        long started = System.nanoTime();
        // all at once, so the pool opens every connection and each prepares its own statements
        List<Uni<Void>> each = new ArrayList<>(connections);
        for (int i = 0; i < connections; i++) {
            each.add(transactions.run(connection -> inventory.read(connection, NO_FARE, Lock.NONE)
                    .chain(() -> inventory.read(connection, NO_FARE, Lock.WAIT))
                    .chain(() -> inventory.seatsLeft(connection, NO_FARE, NOBODY.passengerId()))
                    .chain(() -> bookings.takeLockedSeat(connection, NO_FARE, 0, NOBODY))
                    .chain(() -> bookings.takeSeatAtVersion(connection, NO_FARE, 0, 0, 0, NOBODY))
                    .chain(() -> bookings.takeSeatAtomically(connection, NO_FARE, 0, NOBODY))
                    .chain(() -> bookings.findConfirmed(connection, NO_FARE.flightId(), NOBODY.passengerId()))
                    .replaceWithVoid()));
        }
        Uni.join().all(each).andCollectFailures().subscribe().with(
                done -> finish(started, null),
                failure -> finish(started, failure));
    }

    private void finish(long started, Throwable failure) {
        warm = true;
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        if (failure == null) {
            LOG.infof("Booking path warmed on %d connections in %d ms", connections, millis);
        } else {
            LOG.warnf("Booking warm-up ended after %d ms without warming every connection: %s", millis, failure.getMessage());
        }
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        return Uni.createFrom().item(HealthCheckResponse.named("booking warm-up").status(warm).build());
    }
}
