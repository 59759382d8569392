package dev.turnstile.booking;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Consumer;

import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;

/**
 * Collects the bookings of each fare into batches ({@code turnstile.booking.batched.*}). The first booking of an idle
 * fare opens a window; the batch leaves when the window closes or it is full. At most one batch per fare runs at a
 * time (per instance): bookings that arrive meanwhile wait for it, and leave together as soon as it ends, without a
 * window of their own, since they have waited already. Under load the batch size thus follows the arrival rate, the
 * way a group commit does, and an idle fare costs a booking at most the window. A booking that has waited longer than
 * {@code maxWait} when its batch would leave is handed to {@code expired} instead and never runs: behind batches that
 * each take a lock timeout, the last of a full queue would otherwise wait many of them, and its client may be gone.
 *
 * <p>Bookings arrive on any event loop; each fare's state is changed only inside {@link ConcurrentHashMap#compute},
 * under the map's lock for that fare, and batches are started outside it.
 */
final class BatchedQueues<T> {

    private final Vertx vertx;
    private final long windowMillis;
    private final int maxSize;
    private final int maxWaiting;
    private final long maxWaitNanos;
    private final Consumer<T> expired;
    private final BiFunction<FareKey, List<T>, Uni<Void>> runner;
    private final Map<FareKey, Queue<T>> queues = new ConcurrentHashMap<>();

    /**
     * {@code runner} takes one batch and ends (never fails) once every booking in it has its answer; {@code maxWaiting}
     * bounds the bookings of one fare waiting for their batch, {@code maxWait} how long one waits before it is given
     * to {@code expired} (called outside the fare's lock, and only for bookings that never run).
     */
    BatchedQueues(Vertx vertx, BookingConfig.Batched config, int maxWaiting, Duration maxWait, Consumer<T> expired,
            BiFunction<FareKey, List<T>, Uni<Void>> runner) {
        this.vertx = vertx;
        this.windowMillis = config.window().toMillis();
        this.maxSize = config.maxSize();
        this.maxWaiting = maxWaiting;
        this.maxWaitNanos = maxWait.toNanos();
        this.expired = expired;
        this.runner = runner;
    }

    /** Adds a booking to its fare's next batch; false (and nothing added) when too many wait already. */
    boolean add(FareKey fare, T booking) {
        List<List<T>> start = new ArrayList<>(1);
        List<T> late = new ArrayList<>(0);
        boolean[] added = { false };
        queues.compute(fare, (key, existing) -> {
            Queue<T> queue = existing == null ? new Queue<>() : existing;
            if (queue.waiting.size() >= maxWaiting) {
                return existing;
            }
            added[0] = true;
            queue.waiting.add(new Queued<>(booking, System.nanoTime()));
            if (queue.running) {
                return queue;
            }
            if (queue.waiting.size() >= maxSize || windowMillis <= 0) {
                start.add(queue.next(maxSize, maxWaitNanos, late));
            } else if (!queue.windowOpen) {
                queue.windowOpen = true;
                vertx.setTimer(windowMillis, id -> windowClosed(fare));
            }
            return queue;
        });
        late.forEach(expired);
        start.stream().filter(batch -> !batch.isEmpty()).forEach(batch -> run(fare, batch));
        return added[0];
    }

    private void windowClosed(FareKey fare) {
        List<List<T>> start = new ArrayList<>(1);
        List<T> late = new ArrayList<>(0);
        queues.compute(fare, (key, queue) -> {
            if (queue == null) {
                return null;
            }
            queue.windowOpen = false;
            if (!queue.running && !queue.waiting.isEmpty()) {
                start.add(queue.next(maxSize, maxWaitNanos, late));
            }
            return queue.idle() ? null : queue;
        });
        late.forEach(expired);
        start.stream().filter(batch -> !batch.isEmpty()).forEach(batch -> run(fare, batch));
    }

    private void run(FareKey fare, List<T> batch) {
        runner.apply(fare, batch).subscribe().with(done -> ended(fare), failure -> ended(fare));
    }

    /**
     * The next batch starts on a fresh stack: a batch can end on the stack that started it (a full pool wait queue
     * fails it at once), and starting the next one there would nest one chain of frames per batch.
     */
    private void ended(FareKey fare) {
        List<List<T>> start = new ArrayList<>(1);
        List<T> late = new ArrayList<>(0);
        queues.compute(fare, (key, queue) -> {
            queue.running = false;
            if (!queue.waiting.isEmpty()) {
                start.add(queue.next(maxSize, maxWaitNanos, late));
            }
            return queue.idle() ? null : queue;
        });
        late.forEach(expired);
        start.stream().filter(batch -> !batch.isEmpty()).forEach(batch -> vertx.runOnContext(ignored -> run(fare, batch)));
    }

    private record Queued<T>(T booking, long queuedAt) {
    }

    private static final class Queue<T> {
        final List<Queued<T>> waiting = new ArrayList<>();
        boolean running;
        boolean windowOpen;

        /**
         * The oldest bookings, up to {@code size}, as the batch that runs now (running only if there is one); those
         * that waited longer than {@code maxWaitNanos} go to {@code late}. Bookings queue in arrival order, so the
         * late ones are the head.
         */
        List<T> next(int size, long maxWaitNanos, List<T> late) {
            long now = System.nanoTime();
            int stale = 0;
            while (stale < waiting.size() && now - waiting.get(stale).queuedAt() > maxWaitNanos) {
                late.add(waiting.get(stale++).booking());
            }
            waiting.subList(0, stale).clear();
            List<Queued<T>> head = waiting.subList(0, Math.min(size, waiting.size()));
            List<T> batch = head.stream().map(Queued::booking).toList();
            head.clear();
            running = !batch.isEmpty();
            return batch;
        }

        boolean idle() {
            return !running && !windowOpen && waiting.isEmpty();
        }
    }
}
