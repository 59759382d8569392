package dev.turnstile.rental;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import jakarta.inject.Singleton;

import io.smallrye.mutiny.Uni;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
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
     * {@code next.version()} (the one that was read). Returns the bike as stored.
     */
    public Uni<Bike> save(Bike next) {
        Bike stored = next.withVersion(next.version() + 1);
        return Uni.createFrom()
                .completionStage(() -> dynamo.putItem(PutItemRequest.builder()
                        .tableName(table)
                        .item(toItem(stored))
                        .conditionExpression("#version = :expected")
                        .expressionAttributeNames(Map.of("#version", "version"))
                        .expressionAttributeValues(Map.of(":expected", number(next.version())))
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                        .build()))
                .replaceWith(stored)
                .onFailure(ConditionalCheckFailedException.class)
                .recoverWithUni(failure -> conflict(next.bikeId(), (ConditionalCheckFailedException) failure));
    }

    /** Deletes the bike only at {@code expectedVersion}; the AWS SDK's versioned-record extension cannot do this. */
    public Uni<Void> delete(String bikeId, long expectedVersion) {
        return Uni.createFrom()
                .completionStage(() -> dynamo.deleteItem(DeleteItemRequest.builder()
                        .tableName(table)
                        .key(key(bikeId))
                        .conditionExpression("#version = :expected")
                        .expressionAttributeNames(Map.of("#version", "version"))
                        .expressionAttributeValues(Map.of(":expected", number(expectedVersion)))
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                        .build()))
                .replaceWithVoid()
                .onFailure(ConditionalCheckFailedException.class)
                .recoverWithUni(failure -> this.<Void>conflict(bikeId, (ConditionalCheckFailedException) failure));
    }

    /**
     * Rents without reading first: the whole rule fits in the condition. A failed condition raises
     * {@link VersionConflict} with the current bike, so the caller can tell the client which rule said no.
     */
    public Uni<Bike> rentByCondition(String bikeId, String customerId, Instant now, int ridesUntilService) {
        return Uni.createFrom()
                .completionStage(() -> dynamo.updateItem(UpdateItemRequest.builder()
                        .tableName(table)
                        .key(key(bikeId))
                        .updateExpression("SET #status = :rented, rentedBy = :customer, rentedAt = :now"
                                + " ADD ridesSinceService :one, #version :one")
                        .conditionExpression("#status = :available AND ridesSinceService < :limit")
                        .expressionAttributeNames(Map.of("#status", "status", "#version", "version"))
                        .expressionAttributeValues(Map.of(
                                ":rented", AttributeValue.fromS(BikeStatus.RENTED.name()),
                                ":available", AttributeValue.fromS(BikeStatus.AVAILABLE.name()),
                                ":customer", AttributeValue.fromS(customerId),
                                ":now", AttributeValue.fromS(now.toString()),
                                ":one", number(1),
                                ":limit", number(ridesUntilService)))
                        .returnValues(ReturnValue.ALL_NEW)
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                        .build()))
                .map(response -> fromItem(response.attributes()))
                .onFailure(ConditionalCheckFailedException.class)
                .recoverWithUni(failure -> conflict(bikeId, (ConditionalCheckFailedException) failure));
    }

    /**
     * A station's bikes. A consistent Scan with a filter reads the whole table: fine for dev and for small fleets;
     * a large fleet wants a GSI on station (see docs/rental.md).
     */
    public Uni<List<Bike>> listByStation(String station) {
        return scanFrom(station, Map.of(), new ArrayList<>());
    }

    private Uni<List<Bike>> scanFrom(String station, Map<String, AttributeValue> start, List<Bike> found) {
        ScanRequest.Builder scan = ScanRequest.builder()
                .tableName(table)
                .consistentRead(true)
                .filterExpression("station = :station")
                .expressionAttributeValues(Map.of(":station", AttributeValue.fromS(station)));
        if (!start.isEmpty()) {
            scan.exclusiveStartKey(start);
        }
        return Uni.createFrom().completionStage(() -> dynamo.scan(scan.build()))
                .flatMap(page -> {
                    page.items().forEach(item -> found.add(fromItem(item)));
                    return page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty()
                            ? scanFrom(station, page.lastEvaluatedKey(), found)
                            : Uni.createFrom().item(found);
                });
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
                Long.parseLong(item.get("version").n()));
    }

    static AttributeValue number(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }

    private static String text(Map<String, AttributeValue> item, String name) {
        AttributeValue value = item.get(name);
        return value == null ? null : value.s();
    }
}
