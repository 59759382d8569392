package dev.turnstile.rental;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.smallrye.mutiny.Uni;

/**
 * A conditional bike write that expects the version another write of this process already expects waits for that
 * one: if it succeeded, the stored version has moved on and this write would fail its condition, so it fails as
 * {@link VersionConflict} (with the bike the other one stored) without being sent; if it failed, this one is sent.
 * The store still decides every write that is sent; this only skips the ones that cannot win.
 *
 * <p>Why: renters who share a read of an available bike ({@link CoalescedReads}) all decide to rent it at once, and
 * each losing write cost the store a write and a read, queued ahead of the winner's return.
 */
final class WritesInFlight {

    private record Write(long expected, CompletableFuture<Optional<Bike>> outcome) {
    }

    private final Map<String, Write> byBike = new ConcurrentHashMap<>();

    /** {@code send} writes {@code next} on the condition that the stored version is {@code next.version()}. */
    Uni<Bike> write(Bike next, Supplier<Uni<Bike>> send) {
        return Uni.createFrom().deferred(() -> {
            Write mine = new Write(next.version(), new CompletableFuture<>());
            Write[] ahead = new Write[1];
            boolean[] registered = new boolean[1];
            byBike.compute(next.bikeId(), (id, current) -> {
                if (current == null) {
                    registered[0] = true;
                    return mine;
                }
                if (current.expected() == next.version()) {
                    ahead[0] = current;
                }
                return current;
            });
            if (ahead[0] != null) {
                // a copy: a caller that goes away must not cancel the outcome others wait for
                return StoreCalls.call(() -> ahead[0].outcome().copy()).flatMap(winner -> winner.isPresent()
                        ? Uni.createFrom().<Bike>failure(new VersionConflict(next.bikeId(), winner.get()))
                        : write(next, send));
            }
            if (!registered[0]) {
                return send.get();
            }
            return send.get().onTermination().invoke((stored, failure, cancelled) -> {
                byBike.remove(next.bikeId(), mine);
                mine.outcome().complete(stored != null ? Optional.of(stored) : Optional.empty());
            });
        });
    }
}
