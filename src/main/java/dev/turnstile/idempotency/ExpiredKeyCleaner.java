package dev.turnstile.idempotency;

import jakarta.enterprise.context.ApplicationScoped;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;

/**
 * Deletes expired idempotency keys now and then (they are already ignored when expired: a claim takes them over),
 * and frees the key on the rows made under them ({@link KeyHolder}), so that a client may use the key again.
 * <p>
 * A sweep deletes {@code batch-size} keys per statement, so a backlog of millions never runs into
 * statement_timeout nor holds millions of row locks, and goes on while batches come back full. An interval of
 * {@code off} disables it (on Lambda: a frozen instance would sweep only while a request is in flight).
 */
@ApplicationScoped
public class ExpiredKeyCleaner {

    private final KeyHolder holder;
    private final IdempotencyKeys keys;
    private final int batchSize;
    private final Counter batches;
    private final Counter forgotten;

    ExpiredKeyCleaner(KeyHolder holder, IdempotencyKeys keys, MeterRegistry registry, IdempotencyConfig config) {
        this.holder = holder;
        this.keys = keys;
        this.batchSize = config.cleanup().batchSize();
        this.batches = Counter.builder("turnstile.idempotency.cleanup.batches")
                .description("Statements run by the expired-idempotency-key sweeper, each deleting at most batch-size keys")
                .register(registry);
        this.forgotten = Counter.builder("turnstile.idempotency.keys.forgotten")
                .description("Expired idempotency keys deleted").register(registry);
    }

    /**
     * The first sweep waits {@code first-delay} (30 s by default) rather than run as the app starts, where its
     * transaction would compete with the readiness check and the first requests for the pool's first connections.
     * A batch that comes back short ends the sweep: the backlog is gone, or the rest is locked by a concurrent sweep
     * (another instance) or a claim taking a key over, and the next interval picks up what is left.
     */
    @Scheduled(identity = "expired-idempotency-keys", every = "${turnstile.idempotency.cleanup.interval}",
            delayed = "${turnstile.idempotency.cleanup.first-delay}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> sweep() {
        return Multi.createBy().repeating()
                .uni(() -> holder.inTransaction(connection -> keys.forgetExpired(connection, batchSize)).invoke(count -> {
                    batches.increment();
                    forgotten.increment(count);
                }))
                .whilst(count -> count == batchSize).onItem().ignoreAsUni();
    }
}
