package dev.turnstile.rental;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import io.vertx.core.Vertx;

/**
 * The sharing rule on its own, with store calls the test answers by hand: a caller is only ever answered by a read
 * sent after it asked. The service's use of it on a real dynalite is {@code HotBikeReadsTest}.
 */
class CoalescedReadsTest {

    private final CoalescedReads<String> reads = new CoalescedReads<>();
    private final BlockingQueue<CompletableFuture<String>> sent = new LinkedBlockingQueue<>();

    private CompletionStage<String> read(String key) {
        return reads.read(key, () -> {
            CompletableFuture<String> call = new CompletableFuture<>();
            sent.add(call);
            return call;
        });
    }

    private CompletableFuture<String> nextSend() throws InterruptedException {
        CompletableFuture<String> call = sent.poll(5, TimeUnit.SECONDS);
        assertNotNull(call, "a read was sent");
        return call;
    }

    @Test
    void callersWhoAskWhileAReadIsInFlightShareTheNextReadNotThatOne() throws Exception {
        CompletableFuture<String> first = read("bike").toCompletableFuture();
        CompletableFuture<String> inFlight = nextSend();
        CompletableFuture<String> second = read("bike").toCompletableFuture();
        CompletableFuture<String> third = read("bike").toCompletableFuture();
        assertTrue(sent.isEmpty(), "nobody else sent a read while one was in flight");

        inFlight.complete("version 1");
        assertEquals("version 1", first.get(5, TimeUnit.SECONDS));
        assertFalse(second.isDone(), "sent before the second caller asked: not its answer");

        nextSend().complete("version 2");
        assertEquals("version 2", second.get(5, TimeUnit.SECONDS));
        assertEquals("version 2", third.get(5, TimeUnit.SECONDS));
        assertTrue(sent.isEmpty(), "one read for both waiting callers");
    }

    @Test
    void whenEveryoneIsAnsweredTheNextCallerReadsAtOnce() throws Exception {
        CompletableFuture<String> first = read("bike").toCompletableFuture();
        nextSend().complete("version 1");
        assertEquals("version 1", first.get(5, TimeUnit.SECONDS));

        CompletableFuture<String> later = read("bike").toCompletableFuture();
        nextSend().complete("version 2");
        assertEquals("version 2", later.get(5, TimeUnit.SECONDS));
    }

    @Test
    void readsOfOtherKeysAreNotShared() throws Exception {
        read("bike-1");
        read("bike-2");
        nextSend();
        nextSend();
    }

    @Test
    void aCallerThatGoesAwayDoesNotCancelTheReadOthersWaitFor() throws Exception {
        CompletableFuture<String> first = read("bike").toCompletableFuture();
        CompletableFuture<String> inFlight = nextSend();
        CompletableFuture<String> other = read("bike").toCompletableFuture();
        first.cancel(false);
        read("bike").toCompletableFuture().cancel(false);

        inFlight.complete("version 1");
        nextSend().complete("version 2");
        assertEquals("version 2", other.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aFailedReadFailsThoseWaitingForTheNextOneTooWithinOneDeadline() throws Exception {
        CompletableFuture<String> first = read("bike").toCompletableFuture();
        CompletableFuture<String> inFlight = nextSend();
        CompletableFuture<String> second = read("bike").toCompletableFuture();

        inFlight.completeExceptionally(new IllegalStateException("timed out"));
        assertTrue(first.isCompletedExceptionally());
        assertTrue(second.isCompletedExceptionally(), "no second deadline for the waiting caller");
        assertTrue(sent.isEmpty(), "nothing sent for it");

        CompletableFuture<String> later = read("bike").toCompletableFuture();
        nextSend().complete("version 1");
        assertEquals("version 1", later.get(5, TimeUnit.SECONDS));
    }

    /** In prod the store call completes on an aws-crt I/O thread, which must not send the next call (StoreCalls). */
    @Test
    void theNextReadIsSentFromTheWaitingCallersEventLoopNotFromTheThreadThatAnsweredTheLastOne() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            BlockingQueue<Thread> senders = new LinkedBlockingQueue<>();
            BlockingQueue<CompletableFuture<String>> calls = new LinkedBlockingQueue<>();
            Supplier<CompletionStage<String>> recording = () -> {
                senders.add(Thread.currentThread());
                CompletableFuture<String> call = new CompletableFuture<>();
                calls.add(call);
                return call;
            };
            reads.read("bike", recording);
            senders.take();
            CompletableFuture<String> inFlight = calls.take();
            CompletableFuture<Thread> eventLoop = new CompletableFuture<>();
            vertx.getOrCreateContext().runOnContext(ignored -> {
                reads.read("bike", recording);
                eventLoop.complete(Thread.currentThread());
            });
            eventLoop.get(5, TimeUnit.SECONDS);

            Thread storeThread = new Thread(() -> inFlight.complete("version 1"), "store-io");
            storeThread.start();
            storeThread.join();
            assertSame(eventLoop.get(), senders.poll(5, TimeUnit.SECONDS));
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aReadThatCannotEvenBeSentFailsItsCallers() {
        CompletableFuture<String> failed = reads.read("bike", () -> {
            throw new IllegalStateException("client closed");
        }).toCompletableFuture();
        assertTrue(failed.isCompletedExceptionally());
    }
}
