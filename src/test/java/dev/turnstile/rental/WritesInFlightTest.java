package dev.turnstile.rental;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.smallrye.mutiny.Uni;

/**
 * The rule on its own, with writes the test answers by hand: only a write that expects a version another write
 * already moved on from is skipped. The service's use of it on a real dynalite is in {@code BikeContentionTest}.
 */
class WritesInFlightTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    private final WritesInFlight writes = new WritesInFlight();
    private final AtomicInteger sent = new AtomicInteger();

    private static Bike atVersion(long version) {
        return new Bike("b-1", "harbour", BikeStatus.AVAILABLE, 3, null, null, null, version, "g1", null, null, null,
                List.of());
    }

    private Uni<Bike> write(Bike next, CompletableFuture<Bike> answer) {
        return writes.write(next, () -> {
            sent.incrementAndGet();
            return Uni.createFrom().completionStage(answer);
        });
    }

    @Test
    void aWriteThatExpectsTheVersionAnotherWriteMovedOnFromFailsUnsent() {
        CompletableFuture<Bike> first = new CompletableFuture<>();
        CompletableFuture<Bike> firstAnswer = write(atVersion(4), first).subscribeAsCompletionStage();
        CompletableFuture<Bike> second = write(atVersion(4), new CompletableFuture<>()).subscribeAsCompletionStage();
        assertEquals(1, sent.get(), "the second write waits for the first");

        Bike stored = atVersion(5);
        first.complete(stored);
        assertSame(stored, firstAnswer.join());
        VersionConflict conflict = assertThrowsConflict(second);
        assertSame(stored, conflict.current().orElseThrow(), "the bike the winner stored");
        assertEquals(1, sent.get(), "the write that could not win was not sent");
    }

    @Test
    void aWriteWaitingBehindOneThatFailedIsSent() {
        CompletableFuture<Bike> first = new CompletableFuture<>();
        CompletableFuture<Bike> firstAnswer = write(atVersion(4), first).subscribeAsCompletionStage();
        CompletableFuture<Bike> secondSent = CompletableFuture.completedFuture(atVersion(5));
        CompletableFuture<Bike> second = write(atVersion(4), secondSent).subscribeAsCompletionStage();

        first.completeExceptionally(new IllegalStateException("leased"));
        assertTrue(firstAnswer.isCompletedExceptionally());
        assertEquals(5, second.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join().version());
        assertEquals(2, sent.get());
    }

    @Test
    void writesExpectingOtherVersionsAreSentAtOnce() {
        write(atVersion(4), new CompletableFuture<>()).subscribeAsCompletionStage();
        write(atVersion(7), new CompletableFuture<>()).subscribeAsCompletionStage();
        assertEquals(2, sent.get());
    }

    @Test
    void aWriteWhoseCallerWentAwayLetsTheNextOneGo() {
        write(atVersion(4), new CompletableFuture<>()).subscribeAsCompletionStage().cancel(false);
        CompletableFuture<Bike> second = write(atVersion(4), CompletableFuture.completedFuture(atVersion(5)))
                .subscribeAsCompletionStage();
        assertEquals(5, second.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join().version());
    }

    @Test
    void everyWriteWaitingBehindOneThatFailedIsSentAtOnceNotOneAfterAnother() throws Exception {
        CompletableFuture<Bike> first = new CompletableFuture<>();
        write(atVersion(4), first).subscribeAsCompletionStage();
        for (int waiter = 0; waiter < 3; waiter++) {
            write(atVersion(4), new CompletableFuture<>()).subscribeAsCompletionStage();
        }
        first.completeExceptionally(new IllegalStateException("the store failed"));
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (sent.get() < 4 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(4, sent.get(), "the three waiters sent while none of them has answered");
    }

    @Test
    void aWriteBehindOneThatLostToANewerVersionFailsUnsent() {
        CompletableFuture<Bike> first = new CompletableFuture<>();
        write(atVersion(4), first).subscribeAsCompletionStage();
        CompletableFuture<Bike> second = write(atVersion(4), new CompletableFuture<>()).subscribeAsCompletionStage();
        first.completeExceptionally(new VersionConflict("b-1", atVersion(6)));
        assertEquals(6, assertThrowsConflict(second).current().orElseThrow().version());
        assertEquals(1, sent.get());
    }

    @Test
    void aWriteBehindOneThatALeaseRefusedAtTheSameVersionIsSent() {
        CompletableFuture<Bike> first = new CompletableFuture<>();
        write(atVersion(4), first).subscribeAsCompletionStage();
        CompletableFuture<Bike> second = write(atVersion(4), CompletableFuture.completedFuture(atVersion(5)))
                .subscribeAsCompletionStage();
        first.completeExceptionally(new VersionConflict("b-1", atVersion(4)));
        assertEquals(5, second.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join().version());
        assertEquals(2, sent.get());
    }

    @Test
    void aWriteBehindAStalledOneIsSentAfterTheLongestWait() {
        write(atVersion(4), new CompletableFuture<>()).subscribeAsCompletionStage();
        long started = System.nanoTime();
        CompletableFuture<Bike> second = write(atVersion(4), CompletableFuture.completedFuture(atVersion(5)))
                .subscribeAsCompletionStage();
        assertEquals(5, second.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join().version());
        long waited = Duration.ofNanos(System.nanoTime() - started).toMillis();
        assertTrue(waited >= WritesInFlight.LONGEST_WAIT.toMillis() && waited < 2_000, "waited " + waited + " ms");
    }

    private static VersionConflict assertThrowsConflict(CompletableFuture<Bike> answer) {
        try {
            answer.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof VersionConflict conflict) {
                return conflict;
            }
            throw e;
        }
        throw new AssertionError("expected a version conflict");
    }
}
