package dev.turnstile.rental;

import static dev.turnstile.rental.BikeItems.KEY;
import static dev.turnstile.rental.BikeItems.SAME_BIKE_AND_STATUS_NAMES;
import static dev.turnstile.rental.BikeItems.SAME_BIKE_NAMES;
import static dev.turnstile.rental.BikeItems.VERSION_AND_STATUS_NAMES;
import static dev.turnstile.rental.BikeItems.VERSION_NAME;
import static dev.turnstile.rental.BikeItems.WRITE_ID;
import static dev.turnstile.rental.BikeItems.fromItem;
import static dev.turnstile.rental.BikeItems.key;
import static dev.turnstile.rental.BikeItems.newWriteId;
import static dev.turnstile.rental.BikeItems.number;
import static dev.turnstile.rental.BikeItems.sameBike;
import static dev.turnstile.rental.BikeItems.toItem;
import static dev.turnstile.rental.BikeItems.unleased;
import static dev.turnstile.rental.BikeItems.writtenBy;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.inject.Singleton;

import io.smallrye.mutiny.Uni;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Bikes in DynamoDB, every write conditional. A failed condition is looked at in the item as it is now: as DynamoDB
 * returns it (ReturnValuesOnConditionCheckFailure=ALL_OLD), or with one consistent read where the store does not
 * (dynalite accepts the parameter but never returns the item). When that item carries the write's own stamp
 * ({@link BikeItems#WRITE_ID}) the write was applied by an earlier send of the same request, and it succeeds;
 * otherwise it becomes {@link VersionConflict} with the current bike. A missing bike is {@link BikeNotFound}. It says
 * what the store did, never what the client hears: that is the service's.
 */
@Singleton
public class BikeRepository {

    private final DynamoDbAsyncClient dynamo;
    private final String table;
    private final CoalescedReads<GetItemResponse> reads = new CoalescedReads<>();
    private final WritesInFlight writes = new WritesInFlight();

    BikeRepository(DynamoDbAsyncClient dynamo, RentalTables tables) {
        this.dynamo = dynamo;
        this.table = tables.bikes();
    }

    /**
     * Creates the bike unless one with its id exists: false then, and the stored bike is left as it was. The bike's
     * random generation is this create's stamp: found in the existing item, an earlier send of it was applied (also
     * when a transaction writing the bike refused the send the SDK made again).
     */
    public Uni<Boolean> create(Bike bike) {
        return StoreCalls.call(() -> dynamo.putItem(PutItemRequest.builder()
                        .tableName(table)
                        .item(toItem(bike))
                        .conditionExpression("attribute_not_exists(bikeId)")
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                        .build()))
                .replaceWith(true)
                .onFailure(ConditionalCheckFailedException.class)
                .recoverWithUni(failure -> itemAfter(bike.bikeId(), (ConditionalCheckFailedException) failure)
                        .map(item -> fromItem(item).generation().equals(bike.generation()))
                        .onFailure(BikeNotFound.class).recoverWithItem(false))
                // a transaction on an existing bike refused the create: by whom, the stamp says. With no bike, the
                // transaction is one that will fail (a rent of a bike deleted meanwhile) and nothing was created:
                // a conflict to try again
                .onFailure(TransactionConflictException.class)
                .recoverWithUni(() -> consistentItem(bike.bikeId()).map(item -> fromItem(item).generation().equals(bike.generation()))
                        .onFailure(BikeNotFound.class).transform(absent -> new VersionConflict(bike.bikeId(), null)));
    }

    /** A strongly consistent read: the decision that follows must see every write acknowledged before it. */
    public Uni<Bike> get(String bikeId) {
        return consistentItem(bikeId).map(BikeItems::fromItem);
    }

    /** Concurrent reads of one bike share the store call sent after the last of them asked ({@link CoalescedReads}). */
    private Uni<Map<String, AttributeValue>> consistentItem(String bikeId) {
        return StoreCalls.call(() -> reads.read(bikeId, () -> dynamo.getItem(consistentGet(bikeId))))
                .map(response -> itemOf(bikeId, response));
    }

    private GetItemRequest consistentGet(String bikeId) {
        return GetItemRequest.builder().tableName(table).key(key(bikeId)).consistentRead(true).build();
    }

    private static Map<String, AttributeValue> itemOf(String bikeId, GetItemResponse response) {
        if (!response.hasItem() || response.item().isEmpty()) {
            throw new BikeNotFound(bikeId);
        }
        return response.item();
    }

    /**
     * Writes {@code next} as version {@code next.version() + 1}, only if the stored version is still
     * {@code next.version()} (the one that was read) and no lease that {@code leaseToken} does not open is live.
     * Returns the bike as stored.
     */
    public Uni<Bike> save(Bike next, String leaseToken, Instant now) {
        Map<String, AttributeValue> values = new HashMap<>();
        return put(next, " AND " + unleased(values, leaseToken, now), values);
    }

    /** As {@link #save}, with the version as the only condition: a lease in the item is kept, not checked. */
    public Uni<Bike> saveWhateverTheLease(Bike next) {
        return put(next, "", new HashMap<>());
    }

    /** A write that cannot win against one of this process's writes in flight is not sent ({@link WritesInFlight}). */
    private Uni<Bike> put(Bike next, String moreConditions, Map<String, AttributeValue> values) {
        return writes.write(next, () -> send(next, moreConditions, values));
    }

    private Uni<Bike> send(Bike next, String moreConditions, Map<String, AttributeValue> values) {
        Bike stored = next.withVersion(next.version() + 1);
        String writeId = newWriteId();
        Map<String, AttributeValue> item = toItem(stored);
        item.put(WRITE_ID, AttributeValue.fromS(writeId));
        return StoreCalls.call(() -> dynamo.putItem(PutItemRequest.builder()
                        .tableName(table)
                        .item(item)
                        .conditionExpression(sameBike(values, next) + moreConditions)
                        .expressionAttributeNames(SAME_BIKE_NAMES)
                        .expressionAttributeValues(values)
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                        .build()))
                .replaceWith(stored)
                .onFailure(ConditionalCheckFailedException.class)
                .recoverWithUni(failure -> unlessWrittenBy(writeId, next.bikeId(), (ConditionalCheckFailedException) failure))
                .onFailure(TransactionConflictException.class).recoverWithUni(() -> unlessWrittenBy(writeId, next.bikeId()));
    }

    /**
     * Deletes the bike (and with it any lease) only at the version that was read, when it is not rented and not
     * leased against {@code leaseToken}. The AWS SDK's versioned-record extension cannot do this. A bike that is gone
     * when the condition failed is deleted as asked: by an earlier send of this request, whose answer was lost, or by
     * someone else (RFC 9110 13.1.1 lets a change already made answer 2xx); a deleted item keeps no stamp to tell the
     * two apart.
     */
    public Uni<Void> delete(Bike seen, String leaseToken, Instant now) {
        Map<String, AttributeValue> values = new HashMap<>();
        String sameBike = sameBike(values, seen);
        values.put(":rented", AttributeValue.fromS(BikeStatus.RENTED.name()));
        return StoreCalls.call(() -> dynamo.deleteItem(DeleteItemRequest.builder()
                        .tableName(table)
                        .key(key(seen.bikeId()))
                        .conditionExpression(sameBike + " AND #status <> :rented AND " + unleased(values, leaseToken, now))
                        .expressionAttributeNames(SAME_BIKE_AND_STATUS_NAMES)
                        .expressionAttributeValues(values)
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                        .build()))
                .replaceWithVoid()
                .onFailure(ConditionalCheckFailedException.class)
                .recoverWithUni(failure -> this.<Void>conflict(seen.bikeId(), (ConditionalCheckFailedException) failure)
                        .onFailure(BikeNotFound.class).recoverWithNull())
                .onFailure(TransactionConflictException.class).recoverWithUni(() -> consistentItem(seen.bikeId())
                        .<Void>map(item -> {
                            throw inTransaction(seen.bikeId());
                        })
                        .onFailure(BikeNotFound.class).recoverWithNull());
    }

    /**
     * Rents without reading first: the whole rule, lease included, fits in the condition. A failed condition raises
     * {@link VersionConflict} with the current bike, so the caller can tell the client which rule said no.
     */
    public Uni<Bike> rentByCondition(String bikeId, String customerId, String leaseToken, Instant now, int ridesUntilService) {
        Map<String, AttributeValue> values = new HashMap<>(Map.of(
                ":rented", AttributeValue.fromS(BikeStatus.RENTED.name()),
                ":available", AttributeValue.fromS(BikeStatus.AVAILABLE.name()),
                ":customer", AttributeValue.fromS(customerId),
                ":rentedAt", AttributeValue.fromS(now.toString()),
                ":one", number(1),
                ":limit", number(ridesUntilService)));
        String writeId = newWriteId();
        values.put(":writeId", AttributeValue.fromS(writeId));
        String condition = "#status = :available AND ridesSinceService < :limit AND " + unleased(values, leaseToken, now);
        return StoreCalls.call(() -> dynamo.updateItem(UpdateItemRequest.builder()
                        .tableName(table)
                        .key(key(bikeId))
                        .updateExpression("SET #status = :rented, rentedBy = :customer, rentedAt = :rentedAt,"
                                + " " + WRITE_ID + " = :writeId ADD ridesSinceService :one, #version :one")
                        .conditionExpression(condition)
                        .expressionAttributeNames(VERSION_AND_STATUS_NAMES)
                        .expressionAttributeValues(values)
                        .returnValues(ReturnValue.ALL_NEW)
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                        .build()))
                .map(response -> fromItem(response.attributes()))
                .onFailure(ConditionalCheckFailedException.class)
                .recoverWithUni(failure -> unlessWrittenBy(writeId, bikeId, (ConditionalCheckFailedException) failure))
                .onFailure(TransactionConflictException.class).recoverWithUni(() -> unlessWrittenBy(writeId, bikeId));
    }

    /**
     * Puts a lease into the bike item when no live lease is there; the version moves on, so a write prepared on
     * the unleased bike fails its condition. Fails with {@link BikeNotFound}, or {@link VersionConflict} with the
     * bike that holds a lease.
     */
    public Uni<Lease> acquireLease(Lease lease, Instant now) {
        Map<String, AttributeValue> values = new HashMap<>(Map.of(
                ":holder", AttributeValue.fromS(lease.holder()),
                ":token", AttributeValue.fromS(lease.token()),
                ":expiresAt", number(lease.expiresAt().getEpochSecond()),
                ":one", number(1)));
        String condition = "attribute_exists(bikeId) AND " + unleased(values, null, now);
        return StoreCalls.call(() -> dynamo.updateItem(UpdateItemRequest.builder()
                        .tableName(table)
                        .key(key(lease.bikeId()))
                        .updateExpression("SET leaseHolder = :holder, leaseToken = :token, leaseExpiresAt = :expiresAt"
                                + " ADD #version :one")
                        .conditionExpression(condition)
                        .expressionAttributeNames(VERSION_NAME)
                        .expressionAttributeValues(values)
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                        .build()))
                .replaceWith(lease)
                .onFailure(ConditionalCheckFailedException.class)
                .recoverWithUni(failure -> conflict(lease.bikeId(), (ConditionalCheckFailedException) failure))
                // with the bike as it is, so that a lease an earlier send took is told by its token
                .onFailure(TransactionConflictException.class).recoverWithUni(() -> consistentItem(lease.bikeId())
                        .map(item -> {
                            throw new VersionConflict(lease.bikeId(), fromItem(item));
                        }));
    }

    /** Removes the lease only for the holder of {@code token}, expired or not; false when it does not hold one. */
    public Uni<Boolean> releaseLease(String bikeId, String token) {
        String writeId = newWriteId();
        return StoreCalls.call(() -> dynamo.updateItem(UpdateItemRequest.builder()
                        .tableName(table)
                        .key(key(bikeId))
                        .updateExpression("SET " + WRITE_ID + " = :writeId"
                                + " REMOVE leaseHolder, leaseToken, leaseExpiresAt ADD #version :one")
                        .conditionExpression("leaseToken = :token")
                        .expressionAttributeNames(VERSION_NAME)
                        .expressionAttributeValues(Map.of(":token", AttributeValue.fromS(token), ":one", number(1),
                                ":writeId", AttributeValue.fromS(writeId)))
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                        .build()))
                .replaceWith(true)
                .onFailure(ConditionalCheckFailedException.class)
                .recoverWithUni(failure -> itemAfter(bikeId, (ConditionalCheckFailedException) failure)
                        .map(item -> writtenBy(item, writeId))
                        .onFailure(BikeNotFound.class).recoverWithItem(false))
                .onFailure(TransactionConflictException.class).recoverWithUni(() -> consistentItem(bikeId)
                        .map(item -> {
                            if (writtenBy(item, writeId)) {
                                return true;
                            }
                            throw inTransaction(bikeId);
                        })
                        .onFailure(BikeNotFound.class).recoverWithItem(false));
    }

    /** One page of a station's bikes, in bikeId order, from the station index: a Query, never a Scan. */
    public Uni<BikePage> page(String station, Optional<BikeStatus> status, int limit, Optional<String> afterBikeId) {
        QueryRequest.Builder query = QueryRequest.builder()
                .tableName(table)
                .indexName(RentalTables.STATION_INDEX)
                .keyConditionExpression("station = :station")
                .limit(limit);
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":station", AttributeValue.fromS(station)));
        status.ifPresent(wanted -> {
            values.put(":status", AttributeValue.fromS(wanted.name()));
            query.filterExpression("#status = :status").expressionAttributeNames(BikeItems.STATUS_NAME);
        });
        query.expressionAttributeValues(values);
        afterBikeId.ifPresent(after -> query.exclusiveStartKey(Map.of(
                "station", AttributeValue.fromS(station), KEY, AttributeValue.fromS(after))));
        return StoreCalls.call(() -> dynamo.query(query.build()))
                .map(page -> new BikePage(page.items().stream().map(BikeItems::fromItem).toList(),
                        page.hasLastEvaluatedKey() && page.lastEvaluatedKey().containsKey(KEY)
                                ? Optional.of(page.lastEvaluatedKey().get(KEY).s())
                                : Optional.empty()));
    }

    /** A page of bikes and, when more may follow, the last bikeId read (the next page starts after it). */
    public record BikePage(List<Bike> bikes, Optional<String> lastBikeId) {
    }

    /**
     * The conflict with the current bike: as it came, or with one consistent read when the store did not say (a
     * cancelled transaction that does not say which item lost). For the answers that show the bike.
     */
    public <T> Uni<T> knowingCurrent(VersionConflict conflict) {
        if (conflict.current().isPresent()) {
            return Uni.createFrom().failure(conflict);
        }
        return get(conflict.bikeId()).onItem().transform(current -> {
            throw new VersionConflict(conflict.bikeId(), current);
        });
    }

    /** The item a failed condition met: as the store returned it, or read. */
    private Uni<Map<String, AttributeValue>> itemAfter(String bikeId, ConditionalCheckFailedException failure) {
        return failure.hasItem() && !failure.item().isEmpty()
                ? Uni.createFrom().item(failure.item())
                : consistentItem(bikeId);
    }

    /** The bike as it is now when a write stamped {@code writeId} was applied by an earlier send; else the conflict. */
    private Uni<Bike> unlessWrittenBy(String writeId, String bikeId, ConditionalCheckFailedException failure) {
        return itemAfter(bikeId, failure).map(item -> {
            if (writtenBy(item, writeId)) {
                return fromItem(item);
            }
            throw new VersionConflict(bikeId, fromItem(item));
        });
    }

    /**
     * DynamoDB refuses a single-item write to an item that a TransactWriteItems (a rent or return with transactions
     * on) is writing at that moment, and the AWS SDK does not send it again: a race lost to that transaction, whose
     * outcome is not known yet, so no current bike comes with it. Left as it was, it was a 500. The refused send may
     * be a resend, so each write first looks for its own stamp, as after a failed condition.
     */
    private static VersionConflict inTransaction(String bikeId) {
        return new VersionConflict(bikeId, null);
    }

    /** The bike, when a write stamped {@code writeId} was applied by an earlier send; else the lost race. */
    private Uni<Bike> unlessWrittenBy(String writeId, String bikeId) {
        return consistentItem(bikeId).map(item -> {
            if (writtenBy(item, writeId)) {
                return fromItem(item);
            }
            throw inTransaction(bikeId);
        });
    }

    private <T> Uni<T> conflict(String bikeId, ConditionalCheckFailedException failure) {
        return itemAfter(bikeId, failure).map(item -> {
            throw new VersionConflict(bikeId, fromItem(item));
        });
    }
}
