package dev.turnstile.rental;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.faulttolerance.Retry;

import dev.turnstile.retry.FullJitterBackoff;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.smallrye.faulttolerance.api.CustomBackoff;
import io.smallrye.mutiny.Uni;

/**
 * Rent, return and service as read -> decide -> conditional write. A lost race ({@link VersionConflict}) is retried
 * with full-jitter backoff, and every attempt reads again, so the loser of a race gets the business answer
 * ({@code NOT_AVAILABLE}) rather than "conflict". Business rejections and other failures are never retried, and
 * neither are human edits (note, delete): those answer 412 and let the person look again.
 *
 * <p>Created at startup so that its counters are at /q/metrics (at 0) before the first rental.
 */
@ApplicationScoped
@Startup
public class RentalService {

    private final BikeRepository bikes;
    private final RentalRules rules;
    private final RentalTransactions transactions;
    private final Counter conflicts;
    private final Counter retries;
    private final Counter exhausted;

    RentalService(BikeRepository bikes, RentalRules rules, RentalTransactions transactions, MeterRegistry registry) {
        this.bikes = bikes;
        this.rules = rules;
        this.transactions = transactions;
        this.conflicts = Counter.builder("turnstile.rental.version.conflicts")
                .description("Conditional bike writes that found another version than the one read")
                .register(registry);
        this.retries = Counter.builder("turnstile.rental.retries")
                .description("Read-decide-write attempts repeated after a version conflict")
                .register(registry);
        this.exhausted = Counter.builder("turnstile.rental.retries.exhausted")
                .description("Rent/return/service calls answered 409 VERSION_CONFLICT because every attempt lost a race")
                .register(registry);
    }

    public Uni<Bike> create(Bike bike) {
        return bikes.create(bike);
    }

    public Uni<Bike> get(String bikeId) {
        return bikes.get(bikeId);
    }

    public Uni<List<Bike>> atStation(String station, Optional<BikeStatus> status) {
        return bikes.listByStation(station).map(found -> found.stream()
                .filter(bike -> status.map(wanted -> wanted == bike.status()).orElse(true))
                .toList());
    }

    public Uni<Bike> rent(String bikeId, String customerId, Optional<String> idempotencyKey) {
        return withRetries(bikeId, read -> {
            Bike next = rules.rent(read, customerId, Instant.now());
            return transactions.enabled().flatMap(on -> on
                    ? transactions.rent(read, next, idempotencyKey)
                    : bikes.save(next));
        });
    }

    /**
     * The condition-only path: one UpdateItem whose condition is the rule, no read first. When the condition fails,
     * the current bike (from the failure) says which rule it was; it does not touch the customer's record.
     */
    public Uni<Bike> rentByCondition(String bikeId, String customerId) {
        Instant now = Instant.now();
        return bikes.rentByCondition(bikeId, customerId, now, rules.ridesUntilService())
                .onFailure(VersionConflict.class).transform(failure -> {
                    VersionConflict conflict = (VersionConflict) failure;
                    conflict.current().ifPresent(current -> rules.rent(current, customerId, now));
                    conflicts.increment();
                    return conflict;
                });
    }

    public Uni<Bike> giveBack(String bikeId, String customerId, String station, Optional<String> idempotencyKey) {
        return withRetries(bikeId, read -> {
            Bike next = rules.giveBack(read, customerId, station);
            return transactions.enabled().flatMap(on -> on
                    ? transactions.giveBack(read, next, Instant.now(), idempotencyKey)
                    : bikes.save(next));
        });
    }

    public Uni<Bike> service(String bikeId) {
        return withRetries(bikeId, read -> bikes.save(rules.service(read)));
    }

    /** A person's edit of the version they saw: a conflict is theirs to resolve (412), never retried here. */
    public Uni<Bike> annotate(Bike seen, String note) {
        return bikes.save(rules.annotate(seen, note))
                .onFailure(VersionConflict.class).transform(this::staleFor);
    }

    public Uni<Void> delete(Bike seen) {
        return bikes.delete(seen.bikeId(), seen.version())
                .onFailure(VersionConflict.class).transform(this::staleFor);
    }

    private Throwable staleFor(Throwable failure) {
        conflicts.increment();
        VersionConflict conflict = (VersionConflict) failure;
        return conflict.current().<Throwable>map(StaleVersion::new).orElse(conflict);
    }

    private Uni<Bike> withRetries(String bikeId, Function<Bike, Uni<Bike>> decideAndWrite) {
        AtomicInteger attempts = new AtomicInteger();
        return readDecideWrite(bikeId, decideAndWrite, attempts)
                .onFailure(VersionConflict.class).invoke(() -> exhausted.increment());
    }

    /**
     * One attempt. SmallRye Fault Tolerance calls this method again for each retry (ArC intercepts the
     * self-invocation), so the read is repeated and the rule is decided on the fresh state. Configurable as
     * {@code dev.turnstile.rental.RentalService/readDecideWrite/Retry/maxRetries} (and {@code .../delay}).
     */
    @Retry(retryOn = VersionConflict.class, maxRetries = 2, delay = 10, jitter = 0)
    @CustomBackoff(FullJitterBackoff.class)
    Uni<Bike> readDecideWrite(String bikeId, Function<Bike, Uni<Bike>> decideAndWrite, AtomicInteger attempts) {
        if (attempts.incrementAndGet() > 1) {
            retries.increment();
        }
        return bikes.get(bikeId)
                .flatMap(read -> decideAndWrite.apply(read))
                .onFailure(VersionConflict.class).invoke(() -> conflicts.increment());
    }
}
