package dev.turnstile.rental;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Singleton;

import io.smallrye.mutiny.Uni;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;

/**
 * The real idempotency records, with one test-only ability: for a record a test arms, the request "crashes" at one
 * point of claim -> bike write -> complete. The crash is an unexpected exception that ends the request there, as a
 * dead process would: nothing after it runs, nothing is released (the client sees a 500 it must not trust). Every
 * write before the crash point is real. And for a record a test arms so, the release after a refusal fails as a
 * DeleteItem that timed out would.
 */
@Alternative
@Priority(1)
@Singleton
public class CrashingIdempotencyRecords extends IdempotencyRecords {

    enum CrashPoint {
        /** The record is claimed IN_PROGRESS; the bike is not written. */
        AFTER_CLAIM,
        /** The claim and the bike write are done; the record is never completed. */
        BEFORE_COMPLETE,
        /** Everything is stored; only the answer is lost on the way. */
        AFTER_COMPLETE
    }

    static final class Crash extends RuntimeException {
        Crash(CrashPoint point) {
            super("simulated crash " + point, null, false, false);
        }
    }

    private final Map<String, CrashPoint> armed = new ConcurrentHashMap<>();
    private final Set<String> failingReleases = ConcurrentHashMap.newKeySet();
    private final Set<String> missedLookups = ConcurrentHashMap.newKeySet();
    private final Set<String> conflictingCompletes = ConcurrentHashMap.newKeySet();

    CrashingIdempotencyRecords(DynamoDbAsyncClient dynamo, RentalTables tables, RentalConfig config) {
        super(dynamo, tables, config);
    }

    /** The next request with this record id (caller scope|key) crashes once at {@code point}. */
    void crashOnce(String recordId, CrashPoint point) {
        armed.put(recordId, point);
    }

    /** The next release of this record id (caller scope|key) fails with a store fault; nothing is deleted. */
    void failNextRelease(String recordId) {
        failingReleases.add(recordId);
    }

    /**
     * The next look-up of this record id finds nothing, as when the record's transaction commits right after it; the
     * next complete of it fails as DynamoDB refuses a single-item write to an item a transaction is writing
     * (TransactionConflictException, which the SDK does not resend).
     */
    void missNextLookupThenConflictOnComplete(String recordId) {
        missedLookups.add(recordId);
        conflictingCompletes.add(recordId);
    }

    @Override
    public Uni<Optional<IdempotencyRecord>> findLive(String id, Instant now) {
        if (missedLookups.remove(id)) {
            return Uni.createFrom().item(Optional.empty());
        }
        return super.findLive(id, now);
    }

    @Override
    public Uni<Void> release(String id, String owner) {
        if (failingReleases.remove(id)) {
            return Uni.createFrom().failure(SdkClientException.create("simulated: the release timed out"));
        }
        return super.release(id, owner);
    }

    @Override
    public Uni<Boolean> claim(IdempotencyRecord intended, Instant now) {
        return super.claim(intended, now).invoke(claimed -> {
            if (claimed && armed.remove(intended.id(), CrashPoint.AFTER_CLAIM)) {
                throw new Crash(CrashPoint.AFTER_CLAIM);
            }
        });
    }

    @Override
    public Uni<Void> complete(String id, String owner) {
        if (conflictingCompletes.remove(id)) {
            return Uni.createFrom().failure(TransactionConflictException.builder()
                    .message("simulated: a transaction is writing the record").build());
        }
        if (armed.remove(id, CrashPoint.BEFORE_COMPLETE)) {
            return Uni.createFrom().failure(new Crash(CrashPoint.BEFORE_COMPLETE));
        }
        return super.complete(id, owner).invoke(() -> {
            if (armed.remove(id, CrashPoint.AFTER_COMPLETE)) {
                throw new Crash(CrashPoint.AFTER_COMPLETE);
            }
        });
    }
}
