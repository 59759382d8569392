package dev.turnstile.booking;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;

import jakarta.inject.Inject;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;

/**
 * Lets at most {@code turnstile.booking.transactions-per-fare} booking transactions of one fare reach PostgreSQL at
 * a time (per instance); the others wait here, in arrival order, holding no connection. Every booking of a fare
 * queues on the same row lock, and PostgreSQL spends more per booking the more backends wait on that lock: on the
 * 2-core bench machine a 20-connection pool sold about 600 seats/s on one fare (atomic), the same pool behind a gate
 * of 4 about 1 200/s and behind a gate of 1 about 1 550/s (docs/booking.md). The pool stays large for bookings on
 * other fares.
 *
 * <p>Written here because neither SmallRye Fault Tolerance's bulkhead nor Mutiny limits concurrency per key. A
 * waiter gives up after the pool's acquire timeout and is refused beyond the pool's wait-queue length, as it would be
 * waiting for a connection (503 in both cases).
 */
@ApplicationScoped
public class FareGates {

    private final int perFare;
    private final BookingConfig.Pool limits;
    private final long retryAfterSeconds;
    private final Map<FareKey, Gate> gates = new ConcurrentHashMap<>();

    @Inject
    FareGates(BookingConfig config) {
        this(config.transactionsPerFare(), config.pool(), config.busyRetryAfterSeconds());
    }

    FareGates(int perFare, BookingConfig.Pool limits, long retryAfterSeconds) {
        this.perFare = perFare;
        this.limits = limits;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** {@code work} once fewer than the limit of {@code fare}'s transactions are running; 0 turns the gate off. */
    public <T> Uni<T> through(FareKey fare, Supplier<Uni<T>> work) {
        return through(fare, true, work);
    }

    /**
     * {@code work} if fewer than the limit of {@code fare}'s transactions are running, else 503 BUSY at once: for
     * callers that chose never to wait (the {@code nowait} strategy), the gate is the first lock they would wait on.
     */
    public <T> Uni<T> ifOpen(FareKey fare, Supplier<Uni<T>> work) {
        return through(fare, false, work);
    }

    private <T> Uni<T> through(FareKey fare, boolean wait, Supplier<Uni<T>> work) {
        if (perFare <= 0) {
            return work.get();
        }
        return Uni.createFrom().deferred(() -> {
            Gate gate = gates.compute(fare, (key, existing) -> {
                Gate used = existing == null ? new Gate() : existing;
                used.users++;
                return used;
            });
            Waiter waiter = new Waiter();
            return Uni.createFrom().<Void>emitter(emitter -> gate.enter(waiter, wait, emitter))
                    .ifNoItem().after(limits.acquireTimeout())
                    .failWith(() -> BookingProblems.fareQueueFull(retryAfterSeconds))
                    .chain(ignored -> work.get())
                    .onTermination().invoke(() -> {
                        gate.leave(waiter);
                        gates.compute(fare, (key, used) -> --used.users == 0 ? null : used);
                    });
        });
    }

    /**
     * Lets every booking waiting at {@code fare}'s gate through at once: for a fare just seen sold out, whose bookings
     * are each answered from one unlocked read ({@link SoldOutFares}) and need not queue behind one another. Queued
     * one by one behind a sell-out, on a 2-core machine busy answering the later SOLD_OUTs, the last of 50 waiters
     * was answered 390 ms after it arrived; later bookings of the fare pass the gate anyway while it stays sold out.
     */
    public void open(FareKey fare) {
        Gate gate = gates.get(fare);
        if (gate != null) {
            gate.admitAll();
        }
    }

    /** Whether bookings of some fare are waiting at its gate right now: a sale is on that PostgreSQL cannot keep up with. */
    public boolean queueing() {
        for (Gate gate : gates.values()) {
            if (gate.users > perFare) {
                return true;
            }
        }
        return false;
    }

    private enum State { WAITING, ADMITTED, GONE }

    private static final class Waiter {
        State state = State.WAITING;
        UniEmitter<? super Void> emitter;
    }

    private final class Gate {
        // changed only inside gates.compute, under the map's lock for this fare; read without it by queueing()
        volatile int users;
        private int running;
        private final ArrayDeque<Waiter> waiting = new ArrayDeque<>();
        // admitted, not yet told: see leave()
        private final ArrayDeque<Waiter> handedOver = new ArrayDeque<>();
        private boolean handingOver;

        void enter(Waiter waiter, boolean wait, UniEmitter<? super Void> emitter) {
            RuntimeException refused;
            synchronized (this) {
                waiter.emitter = emitter;
                if (running < perFare) {
                    running++;
                    waiter.state = State.ADMITTED;
                    refused = null;
                } else if (!wait) {
                    waiter.state = State.GONE;
                    refused = BookingProblems.lockNotAvailable(retryAfterSeconds);
                } else if (waiting.size() >= limits.maxWaitQueue()) {
                    waiter.state = State.GONE;
                    refused = BookingProblems.fareQueueFull(retryAfterSeconds);
                } else {
                    waiting.add(waiter);
                    return;
                }
            }
            if (refused == null) {
                emitter.complete(null);
            } else {
                emitter.fail(refused);
            }
        }

        void admitAll() {
            List<Waiter> admitted;
            synchronized (this) {
                if (waiting.isEmpty()) {
                    return;
                }
                admitted = new ArrayList<>(waiting);
                waiting.clear();
                admitted.forEach(waiter -> waiter.state = State.ADMITTED);
                running += admitted.size();
            }
            admitted.forEach(waiter -> waiter.emitter.complete(null));
        }

        /**
         * The waiter is done (or gave up): its place goes to the longest waiting one, unless the gate is over its limit
         * ({@link #admitAll}). Telling that one runs its work on
         * this stack, and work that fails at once (a full pool wait queue) leaves again from inside it: told there,
         * each waiter of a long queue took a deeper stack, and a thousand overflowed it. So the one leave already
         * telling on this gate tells the next ones too, in a loop.
         */
        void leave(Waiter waiter) {
            synchronized (this) {
                State was = waiter.state;
                waiter.state = State.GONE;
                if (was == State.WAITING) {
                    waiting.remove(waiter);
                    return;
                }
                if (was != State.ADMITTED) {
                    return;
                }
                // over the limit only after admitAll: those places are given back, not handed on, else the gate
                // stays as wide as the sell-out made it for as long as bookings keep queueing
                Waiter next = running > perFare ? null : waiting.poll();
                if (next == null) {
                    running--;
                    return;
                }
                next.state = State.ADMITTED;
                handedOver.add(next);
                if (handingOver) {
                    return;
                }
                handingOver = true;
            }
            try {
                for (Waiter next = nextHandedOver(); next != null; next = nextHandedOver()) {
                    next.emitter.complete(null);
                }
            } catch (RuntimeException | Error unexpected) {
                // never leave the gate believing someone is still telling: the next leave tells those left
                synchronized (this) {
                    handingOver = false;
                }
                throw unexpected;
            }
        }

        /** The next admitted waiter to tell; none ends the telling, in the same step. */
        private synchronized Waiter nextHandedOver() {
            Waiter next = handedOver.poll();
            if (next == null) {
                handingOver = false;
            }
            return next;
        }
    }
}
