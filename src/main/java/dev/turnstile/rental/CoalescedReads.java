package dev.turnstile.rental;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * Concurrent consistent reads of one item share a store call, without ever answering a caller with a read sent
 * before the caller asked: per key at most one read is in flight, and everyone who asks meanwhile waits for the next
 * read, sent once the one in flight has answered. So each caller sees every write acknowledged before it asked, as
 * with a read of its own.
 *
 * <p>Why: on a hot bike every rent but one loses, and each loser used to read the item again (its answer
 * NOT_AVAILABLE, or a retry after a lost write). Those reads queued in the store ahead of the winner's return and
 * the next rent, and the bike changed hands at the pace of the store's read queue (docs/rental.md, "Hot bikes"). A
 * cache would answer from a read sent before the request came; SmallRye and Mutiny have no combinator for "share the
 * next call, not the current one" ({@code Uni.memoize} shares the current one).
 *
 * <p>Each caller gets its own copy of the shared answer: a caller that cancels (its client went away) cancels its
 * copy, never the read the others wait for. When a read fails, those waiting for the next one fail with it (a
 * failing store answers them within one call deadline, not two); a failure is never a claim about the bike.
 */
final class CoalescedReads<T> {

    /** The read that callers who ask now will share: sent when the one in flight (if any) has answered. */
    private static final class Key<T> {
        CompletableFuture<T> next;
        Executor sender;
    }

    private final Map<String, Key<T>> keys = new ConcurrentHashMap<>();

    /** The answer of a read of {@code key} sent after this call; {@code read} sends one (the same for every caller). */
    CompletionStage<T> read(String key, Supplier<? extends CompletionStage<T>> read) {
        Joined<T> joined = new Joined<>();
        keys.compute(key, (k, state) -> {
            if (state == null) {
                // nothing in flight: this caller's read goes now; later callers gather for the next one
                joined.round = new CompletableFuture<>();
                joined.sendNow = true;
                return new Key<>();
            }
            if (state.next == null) {
                state.next = new CompletableFuture<>();
                state.sender = callersSender();
            }
            joined.round = state.next;
            return state;
        });
        if (joined.sendNow) {
            send(key, joined.round, read);
        }
        return joined.round.copy();
    }

    /** What a caller joined, as decided inside the map's atomic update. */
    private static final class Joined<T> {
        CompletableFuture<T> round;
        boolean sendNow;
    }

    private void send(String key, CompletableFuture<T> round, Supplier<? extends CompletionStage<T>> read) {
        CompletionStage<T> sent;
        try {
            sent = read.get();
        } catch (Throwable failure) {
            sent = CompletableFuture.failedFuture(failure);
        }
        sent.whenComplete((item, failure) -> {
            if (failure != null) {
                round.completeExceptionally(failure);
                failNextOf(key, failure);
            } else {
                round.complete(item);
                sendNextOf(key, read);
            }
        });
    }

    /**
     * Runs on the thread that completed the store call (an aws-crt I/O thread in prod, which must not make the next
     * call itself: StoreCalls): the next read is sent from the context of the first caller who waits for it.
     */
    private void sendNextOf(String key, Supplier<? extends CompletionStage<T>> read) {
        Key<T> waiting = new Key<>();
        keys.computeIfPresent(key, (k, state) -> {
            if (state.next == null) {
                return null;
            }
            waiting.next = state.next;
            waiting.sender = state.sender;
            return new Key<>();
        });
        if (waiting.next == null) {
            return;
        }
        try {
            waiting.sender.execute(() -> send(key, waiting.next, read));
        } catch (Throwable failure) {
            // the caller's context or the worker pool refused (shutting down): nothing is in flight for the key now
            waiting.next.completeExceptionally(failure);
            failNextOf(key, failure);
        }
    }

    /**
     * Those who wait for the next read get the failure of the one in flight instead of a read of their own: a store
     * that is failing answers them within one call's deadline, not two.
     */
    private void failNextOf(String key, Throwable failure) {
        Key<T> waiting = new Key<>();
        keys.computeIfPresent(key, (k, state) -> {
            waiting.next = state.next;
            return null;
        });
        if (waiting.next != null) {
            waiting.next.completeExceptionally(failure);
        }
    }

    private static Executor callersSender() {
        Context caller = Vertx.currentContext();
        return caller != null ? task -> caller.runOnContext(ignored -> task.run()) : Infrastructure.getDefaultWorkerPool();
    }
}
