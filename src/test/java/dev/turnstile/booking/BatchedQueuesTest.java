package dev.turnstile.booking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;

class BatchedQueuesTest {

    private static final FareKey FARE = new FareKey("QUEUE", "Y");

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void closeVertx() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    private record Batches(Duration window, int maxSize) implements BookingConfig.Batched {
    }

    private static BookingConfig.Batched batches(int maxSize) {
        return new Batches(Duration.ZERO, maxSize);
    }

    /**
     * A booking waits for its batch no longer than the pool's acquire timeout, as at a fare's gate: the batch running
     * might take its lock or statement timeout, and each batch after it too, so the last of 1 000 queued waited a
     * minute or more. A booking that waited too long is answered (503 BUSY in BatchedTakes) and never run: its client
     * may have given up.
     */
    @Test
    void aBookingThatWaitedLongerThanTheLimitIsAnsweredAndNeverRun() throws Exception {
        CompletableFuture<Void> slow = new CompletableFuture<>();
        List<Integer> ran = new java.util.concurrent.CopyOnWriteArrayList<>();
        ConcurrentLinkedQueue<Integer> expired = new ConcurrentLinkedQueue<>();
        CountDownLatch lateOneRan = new CountDownLatch(1);
        BatchedQueues<Integer> queues = new BatchedQueues<>(vertx, batches(2), 100, Duration.ofMillis(100), expired::add,
                (fare, batch) -> {
                    ran.addAll(batch);
                    if (batch.contains(9)) {
                        lateOneRan.countDown();
                    }
                    return batch.contains(0) ? Uni.createFrom().completionStage(slow) : Uni.createFrom().voidItem();
                });
        assertTrue(queues.add(FARE, 0));
        for (int i = 1; i <= 5; i++) {
            assertTrue(queues.add(FARE, i));
        }
        Thread.sleep(300);
        assertTrue(queues.add(FARE, 9));

        slow.complete(null);

        assertTrue(lateOneRan.await(5, TimeUnit.SECONDS), "the booking within its limit ran: " + ran);
        assertEquals(List.of(0, 9), ran);
        assertEquals(List.of(1, 2, 3, 4, 5), List.copyOf(expired));
    }

    /**
     * Batches that end at once (a full pool wait queue or fare gate fails the batch on the calling thread) each
     * started the next from inside their own end: one stack frame chain per batch. With a small batch size a queue of
     * a few thousand overflowed the stack while the fare was marked running, and its bookings were never answered.
     */
    @Test
    void aLongQueueOfBatchesThatEndAtOnceIsRunToTheEndAndLeavesTheFareIdle() throws Exception {
        int queued = 5_000;
        CompletableFuture<Void> first = new CompletableFuture<>();
        AtomicInteger ran = new AtomicInteger();
        CountDownLatch allRan = new CountDownLatch(queued + 2);
        BatchedQueues<Integer> queues = new BatchedQueues<>(vertx, batches(1), queued, Duration.ofMinutes(1), expired -> {
        }, (fare, batch) -> {
            ran.addAndGet(batch.size());
            batch.forEach(booking -> allRan.countDown());
            return batch.equals(List.of(0)) ? Uni.createFrom().completionStage(first) : Uni.createFrom().voidItem();
        });
        assertTrue(queues.add(FARE, 0));
        for (int i = 1; i <= queued; i++) {
            assertTrue(queues.add(FARE, i));
        }

        first.complete(null);

        assertTrue(queues.add(FARE, -1), "the fare takes bookings again");
        assertTrue(allRan.await(5, TimeUnit.SECONDS), "every booking's batch ran: " + ran.get());
        assertEquals(queued + 2, ran.get());
    }
}
