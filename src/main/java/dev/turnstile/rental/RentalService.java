package dev.turnstile.rental;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.faulttolerance.Retry;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.turnstile.idempotency.Idempotency;
import dev.turnstile.idempotency.Keyed;
import dev.turnstile.idempotency.StoredAnswer;
import dev.turnstile.problem.ProblemException;
import dev.turnstile.problem.StoreUnavailable;
import dev.turnstile.rental.IdempotencyRecords.IdempotencyRecord;
import dev.turnstile.retry.FullJitterBackoff;
import dev.turnstile.retry.RaceAttempts;
import dev.turnstile.retry.RaceTracing;
import io.opentelemetry.api.common.Attributes;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.smallrye.faulttolerance.api.CustomBackoff;
import io.smallrye.mutiny.Uni;

/**
 * Rent, return and service as read -> decide -> conditional write. A lost race ({@link VersionConflict}) is retried
 * with full-jitter backoff, and every attempt reads again, so the loser of a race gets the business answer
 * ({@code NOT_AVAILABLE}) rather than "conflict". Business rejections and other failures are never retried, and
 * neither are human edits (note, delete): those answer 412 and let the person look again.
 *
 * <p>With an Idempotency-Key the same steps run inside the key's record (docs/rental.md, "Idempotency"): without
 * transactions, claim (the record IN_PROGRESS with the answer about to be made true) -> bike write that also
 * remembers the key in the item -> complete. The bike item is the proof of what happened, so a crash between any
 * two steps is recovered on the retry. With transactions, the record is one more item of the transaction.
 *
 * <p>Retries are counted by SmallRye Fault Tolerance ({@code ft.retry.*} for {@code readDecideWrite}); this class counts
 * only what those cannot see: every conditional write that lost a race, retried or not (docs/rental.md, "Metrics").
 * Created at startup so that the counter is at /q/metrics (at 0) before the first rental.
 */
@ApplicationScoped
@Startup
public class RentalService {

    private static final Logger LOG = Logger.getLogger(RentalService.class);

    /** An operation's decision on the bike that was read; throws the business refusal. */
    private interface Decision {
        Bike decide(Bike read, Instant now);
    }

    /** How an operation writes its decision as one conditional item write. */
    private interface Write {
        Uni<Bike> save(Bike next, Instant now);
    }

    /** How an operation writes its decision when transactions are on (null: the plain conditional write). */
    private interface Transacted {
        Uni<Bike> write(Bike read, Bike next, Instant now, Optional<IdempotencyRecord> record);
    }

    private final BikeRepository bikes;
    private final RentalRules rules;
    private final RentalTransactions transactions;
    private final IdempotencyRecords records;
    private final ObjectMapper json;
    private final Counter conflicts;
    private final RaceTracing races;

    RentalService(BikeRepository bikes, RentalRules rules, RentalTransactions transactions, IdempotencyRecords records,
            ObjectMapper json, MeterRegistry registry, RaceTracing races) {
        this.bikes = bikes;
        this.rules = rules;
        this.transactions = transactions;
        this.records = records;
        this.json = json;
        this.races = races;
        this.conflicts = Counter.builder("turnstile.rental.version.conflicts")
                .description("Conditional bike writes that found another version than the one read")
                .register(registry);
    }

    public Uni<Bike> create(Bike bike) {
        return bikes.create(bike).map(created -> {
            if (!created) {
                throw RentalProblems.bikeExists(bike.bikeId());
            }
            return bike;
        }).onFailure().transform(RentalProblems::answer);
    }

    public Uni<Bike> get(String bikeId) {
        return bikes.get(bikeId).onFailure(BikeNotFound.class).transform(RentalProblems::answer);
    }

    public Uni<BikeRepository.BikePage> atStation(String station, Optional<BikeStatus> status, int limit,
            Optional<String> afterBikeId) {
        return bikes.page(station, status, limit, afterBikeId);
    }

    /**
     * {@code seen} is the client's precondition on the bike it acted on (If-Match), given the tag of each bike read:
     * a bike changed since is 412 with the bike as it is now, decided before the rules and never retried. A keyed
     * request that already happened replays its answer without asking it again: that write changed the tag.
     */
    public Uni<Bike> rent(String bikeId, String customerId, String leaseToken, Predicate<String> seen) {
        return plain(bikeId, rentDecision(customerId, leaseToken, seen), this::rentTransacted, respecting(leaseToken));
    }

    public Uni<KeyedAnswer> rent(String bikeId, String customerId, String leaseToken, Predicate<String> seen,
            String scopedKey) {
        return keyed(bikeId, KeyedRequest.of(scopedKey, "rent", bikeId, customerId),
                rentDecision(customerId, leaseToken, seen), this::rentTransacted, respecting(leaseToken));
    }

    private Decision rentDecision(String customerId, String leaseToken, Predicate<String> seen) {
        return onlyIf(seen, (read, now) -> rules.rent(read, customerId, leaseToken, now));
    }

    private static Decision onlyIf(Predicate<String> seen, Decision decision) {
        return (read, now) -> {
            if (!seen.test(read.tag())) {
                throw RentalProblems.staleVersion(read);
            }
            return decision.decide(read, now);
        };
    }

    /** A write that no live lease but the one {@code leaseToken} opens may let through. */
    private Write respecting(String leaseToken) {
        return (next, now) -> bikes.save(next, leaseToken, now);
    }

    /**
     * A return is never refused for a lease: a workshop may lease a bike while it is out, and the rider must still be
     * able to hand it back. The lease stays and holds from then on.
     */
    private Uni<Bike> returnWrite(Bike next, Instant now) {
        return bikes.saveWhateverTheLease(next);
    }

    private Uni<Bike> rentTransacted(Bike read, Bike next, Instant now, Optional<IdempotencyRecord> record) {
        return transactions.rent(read, next, now, record);
    }

    /**
     * The condition-only path: one UpdateItem whose condition is the rule, no read first. When the condition fails,
     * the current bike (from the failure) says which rule it was; it does not touch the customer's record.
     */
    public Uni<Bike> rentByCondition(String bikeId, String customerId, String leaseToken) {
        Instant now = Instant.now();
        return bikes.rentByCondition(bikeId, customerId, leaseToken, now, rules.ridesUntilService())
                .onFailure(VersionConflict.class).transform(failure -> {
                    VersionConflict conflict = (VersionConflict) failure;
                    conflict.current().ifPresent(current -> rules.rent(current, customerId, leaseToken, now));
                    conflicts.increment();
                    return RentalProblems.versionConflict(conflict);
                })
                .onFailure(BikeNotFound.class).transform(RentalProblems::answer);
    }

    public Uni<Bike> giveBack(String bikeId, String customerId, String station, Predicate<String> seen) {
        return plain(bikeId, returnDecision(customerId, station, seen), this::returnTransacted, this::returnWrite);
    }

    public Uni<KeyedAnswer> giveBack(String bikeId, String customerId, String station, Predicate<String> seen,
            String scopedKey) {
        return keyed(bikeId, KeyedRequest.of(scopedKey, "return", bikeId, customerId, station),
                returnDecision(customerId, station, seen), this::returnTransacted, this::returnWrite);
    }

    private Decision returnDecision(String customerId, String station, Predicate<String> seen) {
        return onlyIf(seen, (read, now) -> rules.giveBack(read, customerId, station));
    }

    private Uni<Bike> returnTransacted(Bike read, Bike next, Instant now, Optional<IdempotencyRecord> record) {
        return transactions.giveBack(read, next, now, record);
    }

    public Uni<Bike> service(String bikeId, String leaseToken, Predicate<String> seen) {
        return plain(bikeId, serviceDecision(leaseToken, seen), null, respecting(leaseToken));
    }

    public Uni<KeyedAnswer> service(String bikeId, String leaseToken, Predicate<String> seen, String scopedKey) {
        return keyed(bikeId, KeyedRequest.of(scopedKey, "service", bikeId), serviceDecision(leaseToken, seen), null,
                respecting(leaseToken));
    }

    private Decision serviceDecision(String leaseToken, Predicate<String> seen) {
        return onlyIf(seen, (read, now) -> rules.service(read, leaseToken, now));
    }

    /** A person's edit of the version they saw: a conflict is theirs to resolve (412), never retried here. */
    public Uni<Bike> annotate(Bike seen, String note, String leaseToken) {
        Instant now = Instant.now();
        return Uni.createFrom().item(() -> rules.annotate(seen, note, leaseToken, now))
                .flatMap(next -> bikes.save(next, leaseToken, now))
                .onFailure().transform(this::staleFor);
    }

    public Uni<Void> delete(Bike seen, String leaseToken) {
        Instant now = Instant.now();
        return Uni.createFrom().item(seen).invoke(bike -> rules.delete(bike, leaseToken, now))
                .flatMap(bike -> bikes.delete(bike, leaseToken, now))
                .onFailure().transform(this::staleFor);
    }

    private Throwable staleFor(Throwable failure) {
        if (failure instanceof VersionConflict conflict) {
            conflicts.increment();
            return conflict.current().map(RentalProblems::staleVersion).orElseGet(() -> RentalProblems.versionConflict(conflict));
        }
        return RentalProblems.answer(failure);
    }

    private Uni<Bike> plain(String bikeId, Decision decision, Transacted transacted, Write write) {
        return withRetries(bikeId, read -> {
            Instant now = Instant.now();
            Bike next = decision.decide(read, now);
            return transactedOr(transacted,
                    () -> transacted.write(read, next, now, Optional.empty()),
                    () -> write.save(next, now));
        });
    }

    /**
     * The one place that chooses between the operation's transaction and its single conditional write: the
     * transaction when the operation has one ({@code transacted}, rent and return) and transactions are on.
     */
    private <T> Uni<T> transactedOr(Transacted transacted, Supplier<Uni<T>> inTransaction, Supplier<Uni<T>> single) {
        if (transacted == null) {
            return single.get();
        }
        return transactions.enabled().flatMap(on -> on ? inTransaction.get() : single.get());
    }

    /**
     * The keyed path. A live record found first settles the request (replay, 422, 409 in progress) unless its owner
     * abandoned it; then each attempt reads the bike: if the item carries the mark of the live record's claim, that
     * write happened and the record's answer is completed and given; otherwise (no mark, or one from an expired life
     * of the key) the decision is made, claimed and written.
     */
    private Uni<KeyedAnswer> keyed(String bikeId, KeyedRequest key, Decision decision, Transacted transacted,
            Write write) {
        // short: the bike item keeps it in every applied mark
        String owner = UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        return records.findLive(key.id(), Instant.now()).flatMap(found -> {
            Optional<KeyedAnswer> settled = found.flatMap(record -> settle(record, key, owner, Instant.now()));
            if (settled.isPresent()) {
                return Uni.createFrom().item(settled.get());
            }
            return withRetries(bikeId, read -> read.appliedMark(key.digest())
                    .map(mark -> answerIfApplied(key, owner, mark).flatMap(applied -> applied.isPresent()
                            ? Uni.createFrom().item(applied.get())
                            : decideAndWrite(read, key, owner, decision, transacted, write)))
                    .orElseGet(() -> decideAndWrite(read, key, owner, decision, transacted, write)))
                    .onFailure(failure -> failure instanceof ProblemException && !(failure instanceof StoreUnavailable))
                    // a refusal changed nothing: free the key so that the same request can be decided again; if
                    // that fails the key stays claimed until its claim expires, and the refusal is still the answer
                    .call(() -> records.release(key.id(), owner).onFailure().recoverWithUni(failure -> {
                        LOG.warnf("An idempotency key could not be freed after a refusal (it frees itself when its claim expires): %s",
                                failure.toString());
                        return Uni.createFrom().voidItem();
                    }));
        });
    }

    private Uni<KeyedAnswer> decideAndWrite(Bike read, KeyedRequest key, String owner, Decision decision,
            Transacted transacted, Write write) {
        Instant now = Instant.now();
        Bike next = decision.decide(read, now).applying(key.digest(), key.mark(owner));
        Bike stored = next.withVersion(next.version() + 1);
        IdempotencyRecord intended = records.intended(key.id(), key.fingerprint(), owner,
                new StoredAnswer(false, body(stored)), stored.tag(), now);
        return transactedOr(transacted,
                () -> transacted.write(read, next, now, Optional.of(intended))
                        .replaceWith(answer(intended, false))
                        .onFailure(IdempotencyKeyTaken.class).recoverWithUni(taken -> settledNow(key, owner)),
                () -> claimAndWrite(intended, key, owner, () -> write.save(next, now), now));
    }

    /** The record's answer, given now ({@code Fresh}) or again ({@code Replay}). */
    private static KeyedAnswer answer(IdempotencyRecord record, boolean replayed) {
        return new KeyedAnswer(replayed ? new Keyed.Replay<>(record.answer()) : new Keyed.Fresh<>(record.answer().body()),
                record.tag());
    }

    private Uni<KeyedAnswer> claimAndWrite(IdempotencyRecord intended, KeyedRequest key, String owner,
            Supplier<Uni<Bike>> write, Instant now) {
        return records.claim(intended, now).flatMap(claimed -> {
            if (!claimed) {
                return settledNow(key, owner);
            }
            if (!Instant.now().isBefore(intended.lockedUntil())) {
                // the claim took so long that another request may already have taken the key over
                return Uni.createFrom().failure(new StoreUnavailable("DynamoDB", 1));
            }
            return write.get().call(() -> records.complete(key.id(), owner)).replaceWith(answer(intended, false));
        });
    }

    /**
     * The item carries {@code mark} for this key. When it is the mark of the live record's claim, that record holds
     * the answer the write made true: completed and given. Otherwise the mark is from an earlier life of the key
     * (its record expired) and nothing is known: empty, the request is decided as new.
     */
    private Uni<Optional<KeyedAnswer>> answerIfApplied(KeyedRequest key, String owner, String mark) {
        return records.findLive(key.id(), Instant.now()).flatMap(found -> {
            Optional<IdempotencyRecord> written = found.filter(record -> key.mark(record.owner()).equals(mark));
            if (written.isEmpty()) {
                return Uni.createFrom().item(Optional.<KeyedAnswer>empty());
            }
            IdempotencyRecord record = written.get();
            if (!record.fingerprint().equals(key.fingerprint())) {
                throw Idempotency.keyReused();
            }
            // a completed record is not written again: with transactions on, a duplicate's transaction may be
            // carrying it, and DynamoDB refuses the write (TransactionConflictException, not resent: a 500)
            Uni<Void> completed = record.state() == IdempotencyRecords.State.COMPLETED ? Uni.createFrom().voidItem()
                    : records.complete(key.id(), record.owner());
            return completed.replaceWith(Optional.of(answer(record, !record.owner().equals(owner))));
        });
    }

    /** Another request got the key between our look and our claim: its record decides. */
    private Uni<KeyedAnswer> settledNow(KeyedRequest key, String owner) {
        return records.findLive(key.id(), Instant.now()).map(found -> found
                .flatMap(record -> settle(record, key, owner, Instant.now()))
                .orElseThrow(() -> Idempotency.inProgress(1)));
    }

    /**
     * What a found record says: replay (completed), 422 (another request under the same key), 409 (in progress
     * elsewhere), or nothing (ours, or abandoned: the caller goes on and the bike item tells what happened).
     */
    private Optional<KeyedAnswer> settle(IdempotencyRecord record, KeyedRequest key, String owner, Instant now) {
        if (!record.fingerprint().equals(key.fingerprint())) {
            throw Idempotency.keyReused();
        }
        if (record.state() == IdempotencyRecords.State.COMPLETED) {
            return Optional.of(answer(record, true));
        }
        if (record.owner().equals(owner) || record.abandoned(now)) {
            return Optional.empty();
        }
        long wait = Math.max(1, Duration.between(now, record.lockedUntil()).toSeconds() + 1);
        throw Idempotency.inProgress(Math.min(wait, records.inProgressExpiry().toSeconds()));
    }

    private String body(Bike bike) {
        try {
            return json.writeValueAsString(bike);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a Bike always serialises", e);
        }
    }

    /** Read, decide and write, retried on a lost race; what is left of a failure then is the client's answer. */
    private <T> Uni<T> withRetries(String bikeId, Function<Bike, Uni<T>> decideAndWrite) {
        RaceAttempts race = races.begin("rental", Attributes.empty(), VersionConflict.class);
        return race.settle(this.<T>readDecideWrite(bikeId, race, decideAndWrite))
                .onFailure(VersionConflict.class).recoverWithUni(conflict -> bikes.knowingCurrent((VersionConflict) conflict))
                .onFailure().transform(RentalProblems::answer);
    }

    /**
     * One attempt. SmallRye Fault Tolerance calls this method again for each retry (ArC intercepts the
     * self-invocation), so the read is repeated and the rule is decided on the fresh state. Configurable as
     * {@code dev.turnstile.rental.RentalService/readDecideWrite/Retry/maxRetries} (and {@code .../delay}).
     */
    @Retry(retryOn = VersionConflict.class, maxRetries = 2, delay = 10, jitter = 0)
    @CustomBackoff(FullJitterBackoff.class)
    <T> Uni<T> readDecideWrite(String bikeId, RaceAttempts race, Function<Bike, Uni<T>> decideAndWrite) {
        return race.attempt(() -> bikes.get(bikeId)
                .flatMap(read -> decideAndWrite.apply(read))
                .onFailure(VersionConflict.class).invoke(() -> conflicts.increment()));
    }
}
