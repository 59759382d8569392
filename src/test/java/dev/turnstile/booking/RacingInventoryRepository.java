package dev.turnstile.booking;

import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Singleton;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * The real repository, with one test-only ability: right after the next read of a fare a test names, something else
 * happens (another request, sent and answered) before the booking goes on to its write; the read and the write stay
 * the real ones. For races between a read and the write a strategy decides on it. And a counted read (the fare's
 * view) can be made to fail once, as a dropped connection would.
 */
@Alternative
@Priority(1)
@Singleton
public class RacingInventoryRepository extends InventoryRepository {

    private final Map<FareKey, Runnable> afterNextRead = new ConcurrentHashMap<>();

    /** {@code meanwhile} runs (on a worker thread, it may block) after the next read of {@code fare}. */
    void afterNextRead(FareKey fare, Runnable meanwhile) {
        afterNextRead.put(fare, meanwhile);
    }

    private final Set<FareKey> failNextCountedRead = ConcurrentHashMap.newKeySet();

    /** The next counted read of {@code fare} fails as a dropped connection does (a store fault, 503). */
    void failNextCountedRead(FareKey fare) {
        failNextCountedRead.add(fare);
    }

    @Override
    public Uni<CountedFare> readCounted(SqlClient client, FareKey fare) {
        return failNextCountedRead.remove(fare)
                ? Uni.createFrom().failure(new IOException("Connection reset (test)"))
                : super.readCounted(client, fare);
    }

    @Override
    public Uni<FareState> read(SqlClient client, FareKey fare, Lock lock) {
        return super.read(client, fare, lock).call(() -> {
            Runnable meanwhile = afterNextRead.remove(fare);
            return meanwhile == null ? Uni.createFrom().voidItem()
                    : Uni.createFrom().item(() -> {
                        meanwhile.run();
                        return null;
                    }).runSubscriptionOn(Infrastructure.getDefaultWorkerPool()).replaceWithVoid();
        });
    }
}
