package dev.turnstile.rental;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import jakarta.inject.Singleton;

import dev.turnstile.idempotency.StoredAnswer;
import io.smallrye.mutiny.Uni;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The rental wing's idempotency records ({@code turnstile.rental.tables.idempotency}): one item per caller scope and
 * Idempotency-Key with the request's fingerprint, its state, the owner (the request that works on it), the answer,
 * {@code lockedUntil} (epoch ms, when an IN_PROGRESS record whose owner went silent may be taken over) and
 * {@code expiresAt} (epoch s, the table's TTL attribute). Every write is conditional on the owner. A record past
 * {@code expiresAt} counts as absent whether or not DynamoDB's TTL has deleted it yet (that can take days), so a key
 * lives exactly as long as configured.
 */
@Singleton
public class IdempotencyRecords {

    public enum State {
        IN_PROGRESS, COMPLETED
    }

    /**
     * A record as stored; {@code answer} is the answer the owner gives once its bike write is done, {@code tag} the
     * bike's entity tag in it. Only done answers are kept: a refusal changed nothing and frees the key.
     */
    public record IdempotencyRecord(String id, String fingerprint, State state, String owner, Instant lockedUntil,
            Instant expiresAt, StoredAnswer answer, String tag) {

        boolean abandoned(Instant now) {
            return state == State.IN_PROGRESS && !now.isBefore(lockedUntil);
        }

        boolean expired(Instant now) {
            return !now.isBefore(expiresAt);
        }

        IdempotencyRecord completed() {
            return new IdempotencyRecord(id, fingerprint, State.COMPLETED, owner, lockedUntil, expiresAt, answer, tag);
        }
    }

    private final DynamoDbAsyncClient dynamo;
    private final String table;
    private final Duration ttl;
    private final Duration inProgressExpiry;

    IdempotencyRecords(DynamoDbAsyncClient dynamo, RentalTables tables, RentalConfig config) {
        this.dynamo = dynamo;
        this.table = tables.idempotency();
        this.ttl = config.idempotency().ttl();
        this.inProgressExpiry = config.idempotency().inProgressExpiry();
    }

    public Duration inProgressExpiry() {
        return inProgressExpiry;
    }

    private Uni<Optional<IdempotencyRecord>> find(String id) {
        return StoreCalls.call(() -> dynamo.getItem(GetItemRequest.builder()
                        .tableName(table).key(key(id)).consistentRead(true).build()))
                .map(response -> response.hasItem() && !response.item().isEmpty()
                        ? Optional.of(fromItem(response.item()))
                        : Optional.empty());
    }

    /** The record under {@code id} unless there is none or it has expired. */
    public Uni<Optional<IdempotencyRecord>> findLive(String id, Instant now) {
        return find(id).map(found -> found.filter(record -> !record.expired(now)));
    }

    /**
     * Writes the record IN_PROGRESS for {@code owner} with the answer it is about to make true: when the key is new
     * or expired, when {@code owner} already holds it (its own retry), or when the previous owner's lock ran out.
     * False when another request holds it or it is completed.
     */
    public Uni<Boolean> claim(IdempotencyRecord intended, Instant now) {
        Map<String, AttributeValue> values = new HashMap<>();
        values.put(":owner", AttributeValue.fromS(intended.owner()));
        values.put(":inProgress", AttributeValue.fromS(State.IN_PROGRESS.name()));
        values.put(":now", BikeItems.number(now.toEpochMilli()));
        values.put(":nowSeconds", BikeItems.number(now.getEpochSecond()));
        return StoreCalls.call(() -> dynamo.putItem(PutItemRequest.builder()
                        .tableName(table)
                        .item(toItem(intended))
                        .conditionExpression("attribute_not_exists(id) OR expiresAt <= :nowSeconds OR (#state = :inProgress"
                                + " AND (#owner = :owner OR lockedUntil <= :now))")
                        .expressionAttributeNames(Map.of("#state", "state", "#owner", "owner"))
                        .expressionAttributeValues(values)
                        .build()))
                .replaceWith(true)
                .onFailure(ConditionalCheckFailedException.class).recoverWithItem(false);
    }

    /** The record as one item of a TransactWriteItems: completed at once, unless a live record holds the key. */
    public Put completedInTransaction(IdempotencyRecord completed, Instant now) {
        return Put.builder()
                .tableName(table)
                .item(toItem(completed))
                .conditionExpression("attribute_not_exists(id) OR expiresAt <= :nowSeconds"
                        + " OR (#state = :inProgress AND lockedUntil <= :now)")
                .expressionAttributeNames(Map.of("#state", "state"))
                .expressionAttributeValues(Map.of(
                        ":inProgress", AttributeValue.fromS(State.IN_PROGRESS.name()),
                        ":now", BikeItems.number(now.toEpochMilli()),
                        ":nowSeconds", BikeItems.number(now.getEpochSecond())))
                .build();
    }

    /** Marks the record COMPLETED if {@code owner} still holds it; someone else completing it first is as good. */
    public Uni<Void> complete(String id, String owner) {
        return StoreCalls.call(() -> dynamo.updateItem(UpdateItemRequest.builder()
                        .tableName(table)
                        .key(key(id))
                        .updateExpression("SET #state = :completed")
                        .conditionExpression("#owner = :owner")
                        .expressionAttributeNames(Map.of("#state", "state", "#owner", "owner"))
                        .expressionAttributeValues(Map.of(
                                ":completed", AttributeValue.fromS(State.COMPLETED.name()),
                                ":owner", AttributeValue.fromS(owner)))
                        .build()))
                .replaceWithVoid()
                .onFailure(ConditionalCheckFailedException.class).recoverWithNull();
    }

    /** Frees the key after an answer that changed nothing (a refusal): the same request may be decided again. */
    public Uni<Void> release(String id, String owner) {
        return StoreCalls.call(() -> dynamo.deleteItem(DeleteItemRequest.builder()
                        .tableName(table)
                        .key(key(id))
                        .conditionExpression("#owner = :owner AND #state = :inProgress")
                        .expressionAttributeNames(Map.of("#state", "state", "#owner", "owner"))
                        .expressionAttributeValues(Map.of(
                                ":owner", AttributeValue.fromS(owner),
                                ":inProgress", AttributeValue.fromS(State.IN_PROGRESS.name())))
                        .build()))
                .replaceWithVoid()
                .onFailure(ConditionalCheckFailedException.class).recoverWithNull();
    }

    IdempotencyRecord intended(String id, String fingerprint, String owner, StoredAnswer answer, String tag, Instant now) {
        return new IdempotencyRecord(id, fingerprint, State.IN_PROGRESS, owner, now.plus(inProgressExpiry),
                now.plus(ttl), answer, tag);
    }

    private static Map<String, AttributeValue> key(String id) {
        return Map.of("id", AttributeValue.fromS(id));
    }

    private static Map<String, AttributeValue> toItem(IdempotencyRecord record) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put("id", AttributeValue.fromS(record.id()));
        item.put("fingerprint", AttributeValue.fromS(record.fingerprint()));
        item.put("state", AttributeValue.fromS(record.state().name()));
        item.put("owner", AttributeValue.fromS(record.owner()));
        item.put("lockedUntil", BikeItems.number(record.lockedUntil().toEpochMilli()));
        item.put("expiresAt", BikeItems.number(record.expiresAt().getEpochSecond()));
        item.put("body", AttributeValue.fromS(record.answer().body()));
        item.put("tag", AttributeValue.fromS(record.tag()));
        return item;
    }

    private static IdempotencyRecord fromItem(Map<String, AttributeValue> item) {
        return new IdempotencyRecord(
                item.get("id").s(),
                item.get("fingerprint").s(),
                State.valueOf(item.get("state").s()),
                item.get("owner").s(),
                Instant.ofEpochMilli(Long.parseLong(item.get("lockedUntil").n())),
                Instant.ofEpochSecond(Long.parseLong(item.get("expiresAt").n())),
                new StoredAnswer(false, item.get("body").s()),
                item.get("tag").s());
    }
}
