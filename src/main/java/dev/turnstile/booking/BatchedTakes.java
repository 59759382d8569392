package dev.turnstile.booking;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Consumer;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.turnstile.booking.BatchedBookingRepository.NewBooking;
import dev.turnstile.booking.BatchedPlan.AlreadyBooked;
import dev.turnstile.booking.BatchedPlan.Outcome;
import dev.turnstile.booking.BatchedPlan.Refused;
import dev.turnstile.booking.BatchedPlan.Take;
import dev.turnstile.booking.BookingAttempts.Budget;
import dev.turnstile.booking.BookingAttempts.Statements;
import dev.turnstile.booking.BookingProblems.RetryableConflict;
import dev.turnstile.booking.BookingRepository.Passenger;
import dev.turnstile.booking.BoundedTransactions.LastStatement;
import dev.turnstile.booking.InventoryRepository.Lock;
import dev.turnstile.idempotency.Idempotency;
import dev.turnstile.idempotency.IdempotencyKeys;
import dev.turnstile.idempotency.IdempotencyKeys.Claim;
import dev.turnstile.idempotency.Keyed;
import dev.turnstile.idempotency.StoredAnswer;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.SqlConnection;

/**
 * The {@code batched} strategy: the bookings of one fare that {@link BatchedQueues} collects are taken by one
 * transaction. It claims the idempotency keys of the batch (in key order, so that two batches never deadlock on
 * them), reads the fare's shard rows FOR UPDATE together with the passengers' existing bookings on the flight, decides
 * every booking in arrival order ({@link BatchedPlan}), then sends one statement taking all seats and inserting all
 * bookings, the answers kept under the keys, and COMMIT, back to back. Every booking hears its own answer only once
 * that COMMIT succeeded; if the transaction fails, every booking of the batch gets that failure (after the retries a
 * lost race is given, as for the other strategies).
 */
@ApplicationScoped
class BatchedTakes {

    private final BookingAttempts attempts;
    private final InventoryRepository inventory;
    private final BatchedBookingRepository batches;
    private final IdempotencyKeys keys;
    private final BookingMetrics metrics;
    private final ObjectMapper json;
    private final long retryAfterSeconds;
    private final BatchedQueues<Waiting> queues;

    BatchedTakes(BookingAttempts attempts, InventoryRepository inventory, BatchedBookingRepository batches,
            IdempotencyKeys keys, BookingMetrics metrics, ObjectMapper json, Vertx vertx, BookingConfig config) {
        this.attempts = attempts;
        this.inventory = inventory;
        this.batches = batches;
        this.keys = keys;
        this.metrics = metrics;
        this.json = json;
        this.retryAfterSeconds = config.busyRetryAfterSeconds();
        // as long as a booking may wait at a fare's gate or for a connection
        this.queues = new BatchedQueues<>(vertx, config.batched(), config.pool().maxWaitQueue(), config.pool().acquireTimeout(),
                waiting -> waiting.settle(Result.failed(BookingProblems.fareQueueFull(retryAfterSeconds))), this::run);
    }

    /** A booking without a key: its new booking's id, or the seat rules' rejection. */
    Uni<UUID> book(FareKey fare, Passenger passenger) {
        return join(fare, passenger).map(Answer::booked);
    }

    /** A booking under the passenger's idempotency key: the answer stored under it, fresh or replayed. */
    Uni<Keyed<StoredAnswer>> bookKeyed(FareKey fare, Passenger passenger) {
        return join(fare, passenger).map(Answer::keyed);
    }

    /** What one booking of a batch comes to: the id booked without a key, or the answer under its key. */
    private record Answer(UUID booked, Keyed<StoredAnswer> keyed) {
    }

    /** The answer, or the failure, of one booking of a batch. */
    private record Result(Answer answer, RuntimeException failure) {

        static Result of(Answer answer) {
            return new Result(answer, null);
        }

        static Result failed(RuntimeException failure) {
            return new Result(null, failure);
        }
    }

    /**
     * A booking waiting for its batch. Its answer is given on the context it arrived on (the request's own duplicated
     * context, on its event loop), not on the connection's event loop the batch ends on: the request's response, its
     * context-local state and everything chained after the answer stay where the request started.
     */
    private record Waiting(Passenger passenger, Context context, UniEmitter<? super Answer> emitter) {

        void settle(Result result) {
            Consumer<UniEmitter<? super Answer>> settle = result.failure() == null
                    ? emitter -> emitter.complete(result.answer())
                    : emitter -> emitter.fail(result.failure());
            if (context == null || context == Vertx.currentContext()) {
                settle.accept(emitter);
            } else {
                context.runOnContext(ignored -> settle.accept(emitter));
            }
        }
    }

    private Uni<Answer> join(FareKey fare, Passenger passenger) {
        return Uni.createFrom().emitter(emitter -> {
            if (!queues.add(fare, new Waiting(passenger, Vertx.currentContext(), emitter))) {
                emitter.fail(BookingProblems.fareQueueFull(retryAfterSeconds));
            }
        });
    }

    /** Runs one batch and answers every booking in it; never fails. */
    private Uni<Void> run(FareKey fare, List<Waiting> batch) {
        Budget budget = attempts.budget(Strategy.BATCHED);
        return budget.settle(attempts.inTransaction(Strategy.BATCHED, fare, budget, Statements.TOGETHER,
                (connection, last) -> attempt(connection, last, fare, batch)))
                .onFailure(RetryableConflict.class).transform(exhausted -> {
                    metrics.exhausted(Strategy.BATCHED);
                    return attempts.contention();
                })
                .onItemOrFailure().invoke((results, failure) -> {
                    for (int i = 0; i < batch.size(); i++) {
                        batch.get(i).settle(failure == null ? results.get(i) : Result.failed(asRuntime(failure)));
                    }
                })
                .replaceWithVoid().onFailure().recoverWithNull();
    }

    private Uni<List<Result>> attempt(SqlConnection connection, LastStatement last, FareKey fare, List<Waiting> batch) {
        // the first booking of the batch with a key speaks for it; later ones with the same key are its replays
        Map<String, Waiting> owners = new LinkedHashMap<>();
        for (Waiting waiting : batch) {
            if (waiting.passenger().idempotencyKey() != null) {
                owners.putIfAbsent(waiting.passenger().idempotencyKey(), waiting);
            }
        }
        return claim(connection, owners).chain(claims -> {
            List<Waiting> planned = batch.stream().filter(waiting -> {
                String key = waiting.passenger().idempotencyKey();
                return key == null || owners.get(key) == waiting && claims.get(key) == Claim.OWNED;
            }).toList();
            if (planned.isEmpty()) {
                return last.thenCommit(Uni.createFrom().item(answers(fare, batch, owners, claims, planned, null, Map.of())));
            }
            List<String> passengers = planned.stream().map(waiting -> waiting.passenger().passengerId()).distinct().toList();
            // pipelined: the holders are read in a snapshot taken once the shard rows are locked
            return Uni.combine().all().unis(inventory.read(connection, fare, Lock.WAIT),
                    batches.holders(connection, fare.flightId(), passengers)).asTuple().chain(read -> {
                        if (read.getItem1() == null) {
                            throw BookingProblems.fareNotFound(fare);
                        }
                        List<BatchedPlan.Request> requests = planned.stream()
                                .map(waiting -> new BatchedPlan.Request(waiting.passenger().passengerId(), waiting.passenger().elite()))
                                .toList();
                        BatchedPlan plan = BatchedPlan.of(read.getItem1(), requests, read.getItem2(), UUID::randomUUID);
                        return last.thenCommit(write(connection, fare, planned, plan))
                                .map(stored -> answers(fare, batch, owners, claims, planned, plan, stored));
                    });
        });
    }

    /** Claims every distinct key of the batch, in key order, pipelined. */
    private Uni<Map<String, Claim>> claim(SqlConnection connection, Map<String, Waiting> owners) {
        if (owners.isEmpty()) {
            return Uni.createFrom().item(Map.of());
        }
        List<String> sorted = owners.keySet().stream().sorted().toList();
        List<Uni<Claim>> claims = sorted.stream()
                .map(key -> keys.claim(connection, key, owners.get(key).passenger().requestHash())).toList();
        return Uni.combine().all().unis(claims).with(Claim.class, claimed -> {
            Map<String, Claim> byKey = new HashMap<>();
            for (int i = 0; i < sorted.size(); i++) {
                byKey.put(sorted.get(i), claimed.get(i));
            }
            return byKey;
        });
    }

    /** The seats and bookings in one statement, then the answer of each keyed booking; the answers by key. */
    private Uni<Map<String, StoredAnswer>> write(SqlConnection connection, FareKey fare, List<Waiting> planned, BatchedPlan plan) {
        List<NewBooking> taken = new ArrayList<>();
        List<String> storedKeys = new ArrayList<>();
        List<Uni<StoredAnswer>> stores = new ArrayList<>();
        for (int i = 0; i < planned.size(); i++) {
            Passenger passenger = planned.get(i).passenger();
            Outcome outcome = plan.outcomes().get(i);
            if (outcome instanceof Take take) {
                taken.add(new NewBooking(take.id(), passenger.passengerId(), passenger.elite(), take.shard(),
                        passenger.idempotencyKey(), passenger.requestHash()));
            }
            if (passenger.idempotencyKey() != null) {
                storedKeys.add(passenger.idempotencyKey());
                stores.add(outcome instanceof Take take
                        ? keys.done(connection, passenger.idempotencyKey(), toJson(BookingService.confirmed(fare, passenger, take.id())))
                        : keys.refused(connection, passenger.idempotencyKey(), toJson(rejection(outcome).toProblem())));
            }
        }
        List<Uni<?>> statements = new ArrayList<>();
        if (!taken.isEmpty()) {
            statements.add(batches.take(connection, fare, plan.shards(), plan.seatsTaken(), taken));
        }
        statements.addAll(stores);
        if (statements.isEmpty()) {
            return Uni.createFrom().item(Map.of());
        }
        int first = taken.isEmpty() ? 0 : 1;
        return Uni.combine().all().unis(statements).with(done -> {
            Map<String, StoredAnswer> stored = new HashMap<>();
            for (int i = 0; i < storedKeys.size(); i++) {
                stored.put(storedKeys.get(i), (StoredAnswer) done.get(first + i));
            }
            return stored;
        });
    }

    /** Each booking's answer, in batch order, once the batch has committed. */
    private List<Result> answers(FareKey fare, List<Waiting> batch, Map<String, Waiting> owners, Map<String, Claim> claims,
            List<Waiting> planned, BatchedPlan plan, Map<String, StoredAnswer> stored) {
        Map<Waiting, Outcome> outcomes = new IdentityHashMap<>();
        for (int i = 0; i < planned.size(); i++) {
            outcomes.put(planned.get(i), plan.outcomes().get(i));
        }
        List<Result> results = new ArrayList<>(batch.size());
        for (Waiting waiting : batch) {
            Passenger passenger = waiting.passenger();
            String key = passenger.idempotencyKey();
            Outcome outcome = outcomes.get(waiting);
            if (outcome instanceof Take) {
                metrics.booked(Strategy.BATCHED);
            }
            if (key == null) {
                results.add(outcome instanceof Take take ? Result.of(new Answer(take.id(), null)) : Result.failed(rejection(outcome)));
            } else if (outcome != null) {
                results.add(Result.of(new Answer(null, Keyed.fresh(stored.get(key)))));
            } else {
                results.add(replay(waiting, owners.get(key), claims.get(key), stored.get(key)));
            }
        }
        return results;
    }

    /**
     * A keyed booking that is not its key's owner in this batch: the answer kept under the key, if it asked the same as
     * the request that answer is for. When the key already held another request's answer, that request decides, not
     * the owner: the owner may be the different one, with a genuine retry behind it in the same batch.
     */
    private static Result replay(Waiting waiting, Waiting owner, Claim claim, StoredAnswer ownersAnswer) {
        if (claim instanceof Claim.Reused reused) {
            return waiting.passenger().requestHash().equals(reused.fingerprint())
                    ? Result.of(new Answer(null, Keyed.replay(reused.answer())))
                    : Result.failed(Idempotency.keyReused());
        }
        if (!Objects.equals(waiting.passenger().requestHash(), owner.passenger().requestHash())) {
            return Result.failed(Idempotency.keyReused());
        }
        if (claim instanceof Claim.Answered answered) {
            return Result.of(new Answer(null, Keyed.replay(answered.answer())));
        }
        return Result.of(new Answer(null, Keyed.replay(ownersAnswer)));
    }

    private static BookingProblems.Rejected rejection(Outcome outcome) {
        if (outcome instanceof AlreadyBooked already) {
            return BookingProblems.alreadyBooked(already.existing());
        }
        return BookingProblems.rejected(((Refused) outcome).decision());
    }

    private static RuntimeException asRuntime(Throwable failure) {
        return failure instanceof RuntimeException runtime ? runtime : new IllegalStateException(failure);
    }

    @SuppressWarnings("unchecked")
    private JsonObject toJson(Object value) {
        return new JsonObject(json.convertValue(value, Map.class));
    }
}
