package dev.turnstile.rental;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.smallrye.mutiny.Uni;

/**
 * A conditional bike write that expects the version another write of this process already expects waits for that
 * one: if it moved the stored version on (it succeeded, or it lost to a write that did), this write would fail its
 * condition, so it fails as {@link VersionConflict} with the bike as that one left it, without being sent. Otherwise
 * (a lease refused it, the store failed, its caller went away, or it took longer than {@link #LONGEST_WAIT}) this one
 * is sent, together with every other write that waited. The store still decides every write that is sent; this only
 * skips the ones that cannot win.
 *
 * <p>Why: renters who share a read of an available bike ({@link CoalescedReads}) all decide to rent it at once, and
 * each losing write cost the store a write and a read, queued ahead of the winner's return.
 *
 * <p>The wait is bounded so that a write still leaves within the deadlines the service is built on (a keyed write is
 * sent only while its claim holds, docs/rental.md, "Idempotency").
 */
final class WritesInFlight {

    /** Far above a healthy store's write (milliseconds), far below the DynamoDB call deadlines (seconds). */
    static final Duration LONGEST_WAIT = Duration.ofMillis(250);

    /** {@code movedOnTo}: the bike the write left the stored version at, when it is no longer the one expected. */
    private record Write(long expected, CompletableFuture<Optional<Bike>> movedOnTo) {
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
                // a copy: a caller that goes away must not cancel what the others wait for
                CompletableFuture<Optional<Bike>> outcome = ahead[0].movedOnTo().copy()
                        .completeOnTimeout(Optional.empty(), LONGEST_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                return StoreCalls.call(() -> outcome).flatMap(movedOn -> movedOn.isPresent()
                        ? Uni.createFrom().<Bike>failure(new VersionConflict(next.bikeId(), movedOn.get()))
                        : Uni.createFrom().deferred(send::get));
            }
            Uni<Bike> sent = Uni.createFrom().deferred(send::get);
            if (!registered[0]) {
                return sent;
            }
            return sent.onTermination().invoke((stored, failure, cancelled) -> {
                byBike.remove(next.bikeId(), mine);
                mine.movedOnTo().complete(stored != null ? Optional.of(stored) : movedOnBy(failure, next.version()));
            });
        });
    }

    private static Optional<Bike> movedOnBy(Throwable failure, long expected) {
        return failure instanceof VersionConflict conflict
                ? conflict.current().filter(current -> current.version() != expected)
                : Optional.empty();
    }
}
