package dev.turnstile.rental;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.inject.Singleton;

import dev.turnstile.problem.ProblemException;
import io.smallrye.mutiny.Uni;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Bikes in DynamoDB, every write conditional. A failed version condition becomes {@link VersionConflict} carrying the
 * current bike: from the exception where DynamoDB returns it (ReturnValuesOnConditionCheckFailure=ALL_OLD), otherwise
 * from one consistent read (dynalite accepts the parameter but never returns the item).
 */
@Singleton
public class BikeRepository {

    static final String KEY = "bikeId";

    private final DynamoDbAsyncClient dynamo;
    private final String table;

    BikeRepository(DynamoDbAsyncClient dynamo, RentalTables tables) {
        this.dynamo = dynamo;
        this.table = tables.bikes();
    }

    public Uni<Bike> create(Bike bike) {
        return Uni.createFrom()
                .completionStage(() -> dynamo.putItem(PutItemRequest.builder()
                        .tableName(table)
                        .item(toItem(bike))
                        .conditionExpression("attribute_not_exists(bikeId)")
                        .build()))
                .replaceWith(bike)
                .onFailure(ConditionalCheckFailedException.class)
                .transform(exists -> new BikeExists(bike.bikeId()));
    }

    /** A strongly consistent read: the decision that follows must see every write acknowledged before it. */
    public Uni<Bike> get(String bikeId) {
        return consistentRead(bikeId);
    }

    private Uni<Bike> consistentRead(String bikeId) {
        return Uni.createFrom()
                .completionStage(() -> dynamo.getItem(GetItemRequest.builder()
                        .tableName(table).key(key(bikeId)).consistentRead(true).build()))
                .map(response -> {
                    if (!response.hasItem() || response.item().isEmpty()) {
                        throw new BikeNotFound(bikeId);
                    }
                    return fromItem(response.item());
                });
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

    private Uni<Bike> put(Bike next, String moreConditions, Map<String, AttributeValue> values) {
        Bike stored = next.withVersion(next.version() + 1);
        values.put(":expected", number(next.version()));
        return Uni.createFrom()
                .completionStage(() -> dynamo.putItem(PutItemRequest.builder()
                        .tableName(table)
                        .item(toItem(stored))
                        .conditionExpression("#version = :expected" + moreConditions)
                        .expressionAttributeNames(Map.of("#version", "version"))
                        .expressionAttributeValues(values)
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                        .build()))
                .replaceWith(stored)
                .onFailure(ConditionalCheckFailedException.class)
                .recoverWithUni(failure -> conflict(next.bikeId(), (ConditionalCheckFailedException) failure));
    }

    /**
     * Deletes the bike (and with it any lease) only at the version that was read, when it is not rented and not
     * leased against {@code leaseToken}. The AWS SDK's versioned-record extension cannot do this.
     */
    public Uni<Void> delete(Bike seen, String leaseToken, Instant now) {
        Map<String, AttributeValue> values = new HashMap<>();
        values.put(":expected", number(seen.version()));
        values.put(":rented", AttributeValue.fromS(BikeStatus.RENTED.name()));
        return Uni.createFrom()
                .completionStage(() -> dynamo.deleteItem(DeleteItemRequest.builder()
                        .tableName(table)
                        .key(key(seen.bikeId()))
                        .conditionExpression("#version = :expected AND #status <> :rented AND " + unleased(values, leaseToken, now))
                        .expressionAttributeNames(Map.of("#version", "version", "#status", "status"))
                        .expressionAttributeValues(values)
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                        .build()))
                .replaceWithVoid()
                .onFailure(ConditionalCheckFailedException.class)
                .recoverWithUni(failure -> this.<Void>conflict(seen.bikeId(), (ConditionalCheckFailedException) failure));
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
        String condition = "#status = :available AND ridesSinceService < :limit AND " + unleased(values, leaseToken, now);
        return Uni.createFrom()
                .completionStage(() -> dynamo.updateItem(UpdateItemRequest.builder()
                        .tableName(table)
                        .key(key(bikeId))
                        .updateExpression("SET #status = :rented, rentedBy = :customer, rentedAt = :rentedAt"
                                + " ADD ridesSinceService :one, #version :one")
                        .conditionExpression(condition)
                        .expressionAttributeNames(Map.of("#status", "status", "#version", "version"))
                        .expressionAttributeValues(values)
                        .returnValues(ReturnValue.ALL_NEW)
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                        .build()))
                .map(response -> fromItem(response.attributes()))
                .onFailure(ConditionalCheckFailedException.class)
                .recoverWithUni(failure -> conflict(bikeId, (ConditionalCheckFailedException) failure));
    }

    /**
     * Puts a lease into the bike item when no live lease is there; the version moves on, so a write prepared on
     * the unleased bike fails its condition. Fails with {@link BikeNotFound} or {@link Leased}.
     */
    public Uni<Lease> acquireLease(Lease lease, Instant now) {
        Map<String, AttributeValue> values = new HashMap<>(Map.of(
                ":holder", AttributeValue.fromS(lease.holder()),
                ":token", AttributeValue.fromS(lease.token()),
                ":expiresAt", number(lease.expiresAt().getEpochSecond()),
                ":one", number(1)));
        String condition = "attribute_exists(bikeId) AND " + unleased(values, null, now);
        return Uni.createFrom()
                .completionStage(() -> dynamo.updateItem(UpdateItemRequest.builder()
                        .tableName(table)
                        .key(key(lease.bikeId()))
                        .updateExpression("SET leaseHolder = :holder, leaseToken = :token, leaseExpiresAt = :expiresAt"
                                + " ADD #version :one")
                        .conditionExpression(condition)
                        .expressionAttributeNames(Map.of("#version", "version"))
                        .expressionAttributeValues(values)
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                        .build()))
                .replaceWith(lease)
                .onFailure(ConditionalCheckFailedException.class)
                .recoverWithUni(failure -> this.<Lease>conflict(lease.bikeId(), (ConditionalCheckFailedException) failure)
                        .onFailure(VersionConflict.class).transform(held -> {
                            Bike current = ((VersionConflict) held).current().orElseThrow();
                            return current.leasedAgainst(null, now)
                                    ? new Leased(current.bikeId(), current.leaseHolder(), current.leaseExpiresAt())
                                    : new VersionConflict(lease.bikeId(), current);
                        }));
    }

    /** Removes the lease only for the holder of {@code token}, expired or not. */
    public Uni<Void> releaseLease(String bikeId, String token) {
        return Uni.createFrom()
                .completionStage(() -> dynamo.updateItem(UpdateItemRequest.builder()
                        .tableName(table)
                        .key(key(bikeId))
                        .updateExpression("REMOVE leaseHolder, leaseToken, leaseExpiresAt ADD #version :one")
                        .conditionExpression("leaseToken = :token")
                        .expressionAttributeNames(Map.of("#version", "version"))
                        .expressionAttributeValues(Map.of(":token", AttributeValue.fromS(token), ":one", number(1)))
                        .build()))
                .replaceWithVoid()
                .onFailure(ConditionalCheckFailedException.class).transform(notHeld -> new ProblemException(409,
                        "LEASE_NOT_HELD", "Lease not held", "No lease on bike " + bikeId + " is held with this token"));
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
            query.filterExpression("#status = :status").expressionAttributeNames(Map.of("#status", "status"));
        });
        query.expressionAttributeValues(values);
        afterBikeId.ifPresent(after -> query.exclusiveStartKey(Map.of(
                "station", AttributeValue.fromS(station), KEY, AttributeValue.fromS(after))));
        return Uni.createFrom().completionStage(() -> dynamo.query(query.build()))
                .map(page -> new BikePage(page.items().stream().map(BikeRepository::fromItem).toList(),
                        page.hasLastEvaluatedKey() && page.lastEvaluatedKey().containsKey(KEY)
                                ? Optional.of(page.lastEvaluatedKey().get(KEY).s())
                                : Optional.empty()));
    }

    /** A page of bikes and, when more may follow, the last bikeId read (the next page starts after it). */
    public record BikePage(List<Bike> bikes, Optional<String> lastBikeId) {
    }

    /**
     * The lease part of a write condition: no lease, an expired one, or the one {@code leaseToken} opens. With the
     * version condition this is redundant for a write prepared on a read, but it states the rule where it holds.
     */
    private static String unleased(Map<String, AttributeValue> values, String leaseToken, Instant now) {
        values.put(":now", number(now.getEpochSecond()));
        if (leaseToken == null) {
            return "(attribute_not_exists(leaseExpiresAt) OR leaseExpiresAt <= :now)";
        }
        values.put(":leaseToken", AttributeValue.fromS(leaseToken));
        return "(attribute_not_exists(leaseExpiresAt) OR leaseExpiresAt <= :now OR leaseToken = :leaseToken)";
    }

    private <T> Uni<T> conflict(String bikeId, ConditionalCheckFailedException failure) {
        if (failure.hasItem() && !failure.item().isEmpty()) {
            return Uni.createFrom().failure(new VersionConflict(bikeId, fromItem(failure.item())));
        }
        return consistentRead(bikeId).onItem().transform(current -> {
            throw new VersionConflict(bikeId, current);
        });
    }

    static Map<String, AttributeValue> key(String bikeId) {
        return Map.of(KEY, AttributeValue.fromS(bikeId));
    }

    static Map<String, AttributeValue> toItem(Bike bike) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put(KEY, AttributeValue.fromS(bike.bikeId()));
        item.put("station", AttributeValue.fromS(bike.station()));
        item.put("status", AttributeValue.fromS(bike.status().name()));
        item.put("ridesSinceService", number(bike.ridesSinceService()));
        item.put("version", number(bike.version()));
        if (bike.rentedBy() != null) {
            item.put("rentedBy", AttributeValue.fromS(bike.rentedBy()));
        }
        if (bike.rentedAt() != null) {
            item.put("rentedAt", AttributeValue.fromS(bike.rentedAt().toString()));
        }
        if (bike.note() != null) {
            item.put("note", AttributeValue.fromS(bike.note()));
        }
        if (bike.generation() != null) {
            item.put("generation", AttributeValue.fromS(bike.generation()));
        }
        if (bike.leaseToken() != null) {
            item.put("leaseHolder", AttributeValue.fromS(bike.leaseHolder()));
            item.put("leaseToken", AttributeValue.fromS(bike.leaseToken()));
            item.put("leaseExpiresAt", number(bike.leaseExpiresAt().getEpochSecond()));
        }
        if (!bike.appliedKeys().isEmpty()) {
            item.put("appliedKeys", AttributeValue.fromL(bike.appliedKeys().stream().map(AttributeValue::fromS).toList()));
        }
        return item;
    }

    static Bike fromItem(Map<String, AttributeValue> item) {
        return new Bike(
                item.get(KEY).s(),
                item.get("station").s(),
                BikeStatus.valueOf(item.get("status").s()),
                Integer.parseInt(item.get("ridesSinceService").n()),
                text(item, "rentedBy"),
                item.containsKey("rentedAt") ? Instant.parse(item.get("rentedAt").s()) : null,
                text(item, "note"),
                Long.parseLong(item.get("version").n()),
                // bikes written before generations existed all share generation 0
                item.containsKey("generation") ? item.get("generation").s() : "0",
                text(item, "leaseHolder"),
                item.containsKey("leaseExpiresAt") ? Instant.ofEpochSecond(Long.parseLong(item.get("leaseExpiresAt").n())) : null,
                text(item, "leaseToken"),
                item.containsKey("appliedKeys") ? item.get("appliedKeys").l().stream().map(AttributeValue::s).toList() : List.of());
    }

    static AttributeValue number(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }

    private static String text(Map<String, AttributeValue> item, String name) {
        AttributeValue value = item.get(name);
        return value == null ? null : value.s();
    }
}
