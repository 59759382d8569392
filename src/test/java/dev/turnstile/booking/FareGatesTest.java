package dev.turnstile.booking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.turnstile.problem.ProblemException;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.Cancellable;

/** The per-fare gate on its own: a limit, arrival order, a bounded queue, a bounded wait, and no lost places. */
class FareGatesTest {

    private static final FareKey FARE = new FareKey("F", "Y");

    private record Pool(int maxWaitQueue, Duration acquireTimeout) implements BookingConfig.Pool {
    }

    private static FareGates gates(int perFare, int maxWaitQueue, Duration acquireTimeout) {
        return new FareGates(perFare, new Pool(maxWaitQueue, acquireTimeout), 1);
    }

    @Test
    void atMostTheLimitRunsAtOnceAndWaitersGoInArrivalOrder() throws Exception {
        FareGates gates = gates(2, 100, Duration.ofSeconds(5));
        List<CompletableFuture<Void>> works = new ArrayList<>();
        List<Integer> started = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Integer>> answers = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            int n = i;
            CompletableFuture<Void> work = new CompletableFuture<>();
            works.add(work);
            answers.add(gates.through(FARE, () -> {
                started.add(n);
                return Uni.createFrom().completionStage(work).replaceWith(n);
            }).subscribeAsCompletionStage());
        }
        assertEquals(List.of(0, 1), started);
        works.get(1).complete(null);
        assertEquals(List.of(0, 1, 2), started);
        works.get(0).complete(null);
        works.get(2).complete(null);
        assertEquals(List.of(0, 1, 2, 3, 4), started);
        gates.through(new FareKey("OTHER", "Y"), () -> Uni.createFrom().item(9)).await().atMost(Duration.ofSeconds(1));
        works.forEach(work -> work.complete(null));
        for (int i = 0; i < 6; i++) {
            assertEquals(i, answers.get(i).get(1, TimeUnit.SECONDS));
        }
        assertEquals(List.of(0, 1, 2, 3, 4, 5), started);
    }

    /**
     * Waiters whose work fails at once (the pool's wait queue full: Vert.x fails the acquire on the calling thread)
     * each handed the gate to the next from inside the previous one's hand-over: one stack frame chain per waiter.
     * A queue of a thousand overflowed the stack, the rest were never answered and the gate's place was never given
     * back: the fare answered BUSY to every booking until a restart.
     */
    @Test
    void aLongQueueOfWorkThatFailsAtOnceIsAnsweredAndLeavesTheGateOpen() throws Exception {
        int queued = 5_000;
        FareGates gates = gates(1, queued, Duration.ofSeconds(30));
        CompletableFuture<Void> first = new CompletableFuture<>();
        CompletableFuture<Object> holder = gates.through(FARE, () -> Uni.createFrom().completionStage(first))
                .map(Object.class::cast).subscribeAsCompletionStage();
        List<CompletableFuture<Object>> failing = new ArrayList<>();
        for (int i = 0; i < queued; i++) {
            failing.add(gates.through(FARE, () -> Uni.createFrom().failure(new IllegalStateException("pool busy")))
                    .map(Object.class::cast).subscribeAsCompletionStage());
        }

        first.complete(null);

        holder.get(1, TimeUnit.SECONDS);
        for (CompletableFuture<Object> answer : failing) {
            Throwable failure = answer.handle((item, thrown) -> thrown).get(5, TimeUnit.SECONDS);
            assertInstanceOf(IllegalStateException.class, failure);
        }
        assertEquals(7, gates.through(FARE, () -> Uni.createFrom().item(7)).await().atMost(Duration.ofSeconds(1)),
                "the gate's place came back");
    }

    @Test
    void aCallerThatNeverWaitsIsRefusedAtOnceWhileTheGateIsFull() throws Exception {
        FareGates gates = gates(1, 100, Duration.ofSeconds(5));
        CompletableFuture<Void> first = new CompletableFuture<>();
        CompletableFuture<Object> running = gates.through(FARE, () -> Uni.createFrom().completionStage(first))
                .map(Object.class::cast).subscribeAsCompletionStage();
        AtomicInteger ran = new AtomicInteger();

        Throwable refused = gates.ifOpen(FARE, () -> Uni.createFrom().item(ran.incrementAndGet())).subscribeAsCompletionStage()
                .handle((item, failure) -> failure).get(1, TimeUnit.SECONDS);
        assertEquals(503, ((ProblemException) refused).status());
        assertEquals("BUSY", ((ProblemException) refused).reason());
        assertEquals(0, ran.get());

        first.complete(null);
        running.get(1, TimeUnit.SECONDS);
        assertEquals(1, gates.ifOpen(FARE, () -> Uni.createFrom().item(ran.incrementAndGet())).await().atMost(Duration.ofSeconds(1)));
    }

    @Test
    void aFullQueueAndALongWaitAre503AndAFailedOrCancelledCallerGivesItsPlaceOn() throws Exception {
        FareGates gates = gates(1, 1, Duration.ofMillis(300));
        CompletableFuture<Void> first = new CompletableFuture<>();
        CompletableFuture<Object> running = gates.through(FARE, () -> Uni.createFrom().completionStage(first))
                .map(Object.class::cast).subscribeAsCompletionStage();
        CompletableFuture<Integer> waiting = gates.through(FARE, () -> Uni.createFrom().item(2)).subscribeAsCompletionStage();

        Throwable full = gates.through(FARE, () -> Uni.createFrom().item(3)).subscribeAsCompletionStage()
                .handle((item, failure) -> failure).get(1, TimeUnit.SECONDS);
        assertEquals(503, ((ProblemException) full).status());
        Throwable timedOut = waiting.handle((item, failure) -> failure).get(2, TimeUnit.SECONDS);
        assertInstanceOf(ProblemException.class, timedOut);
        assertEquals(503, ((ProblemException) timedOut).status());

        AtomicInteger ran = new AtomicInteger();
        Cancellable cancelled = gates.through(FARE, () -> Uni.createFrom().item(ran.incrementAndGet()))
                .subscribe().with(item -> { });
        cancelled.cancel();
        first.completeExceptionally(new IllegalStateException("the first booking failed"));
        assertTrue(running.isCompletedExceptionally());
        assertEquals(0, ran.get(), "a cancelled waiter never runs");
        assertEquals(4, gates.through(FARE, () -> Uni.createFrom().item(4)).await().atMost(Duration.ofSeconds(1)),
                "every place came back: the failed and the cancelled");
    }

    @Test
    void theWaitersOfAFareSeenSoldOutGoThroughAtOnceAndTheLimitHoldsAfterwards() throws Exception {
        FareGates gates = gates(1, 100, Duration.ofSeconds(5));
        SoldOutFares soldOut = new SoldOutFares(null, gates);
        CompletableFuture<Void> first = new CompletableFuture<>();
        CompletableFuture<Integer> running = gates.through(FARE, () -> Uni.createFrom().completionStage(first).replaceWith(0))
                .subscribeAsCompletionStage();
        List<Integer> started = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Integer>> waiters = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            int n = i;
            waiters.add(gates.through(FARE, () -> {
                started.add(n);
                return Uni.createFrom().item(n);
            }).subscribeAsCompletionStage());
        }
        assertEquals(List.of(), started);

        soldOut.seen(FARE, 0);

        assertEquals(List.of(1, 2, 3, 4, 5), started, "every waiter went through while the first still ran");
        for (int i = 0; i < 5; i++) {
            assertEquals(i + 1, waiters.get(i).get(1, TimeUnit.SECONDS));
        }
        first.complete(null);
        assertEquals(0, running.get(1, TimeUnit.SECONDS));
        CompletableFuture<Void> holder = new CompletableFuture<>();
        gates.through(FARE, () -> Uni.createFrom().completionStage(holder)).subscribeAsCompletionStage();
        AtomicInteger ran = new AtomicInteger();
        CompletableFuture<Integer> queued = gates.through(FARE, () -> Uni.createFrom().item(ran.incrementAndGet()))
                .subscribeAsCompletionStage();
        assertEquals(0, ran.get(), "one at a time again once the released waiters are done");
        holder.complete(null);
        assertEquals(1, queued.get(1, TimeUnit.SECONDS));
    }

    /**
     * The waiters let through at a sell-out count as running until they leave; while bookings kept queueing, each of
     * them handed its place on, so the gate stayed that much wider than its limit (a seat came back meanwhile: a
     * cancel or a reset, and those bookings went on their strategy's way all at once).
     */
    @Test
    void theWaitersLetThroughAtASellOutDoNotWidenTheGateForTheBookingsQueuedAfterThem() throws Exception {
        FareGates gates = gates(1, 100, Duration.ofSeconds(5));
        SoldOutFares soldOut = new SoldOutFares(null, gates);
        AtomicInteger running = new AtomicInteger();
        List<Integer> runningAtStart = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> works = new ArrayList<>();
        List<CompletableFuture<Void>> answers = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            CompletableFuture<Void> work = new CompletableFuture<>();
            works.add(work);
            answers.add(gates.through(FARE, () -> {
                runningAtStart.add(running.incrementAndGet());
                return Uni.createFrom().completionStage(work).invoke(running::decrementAndGet);
            }).subscribeAsCompletionStage());
            if (i == 5) {
                soldOut.seen(FARE, 0);
                soldOut.seen(FARE, 1);
                assertEquals(List.of(1, 2, 3, 4, 5, 6), runningAtStart, "the holder and the five waiters it let through");
            }
        }

        for (CompletableFuture<Void> work : works) {
            work.complete(null);
        }

        for (CompletableFuture<Void> answer : answers) {
            answer.get(1, TimeUnit.SECONDS);
        }
        assertEquals(List.of(1, 1, 1, 1, 1, 1, 1, 1, 1, 1), runningAtStart.subList(6, 16),
                "the ten queued after the sell-out (a seat came back meanwhile) went one at a time");
    }
}
