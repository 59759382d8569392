package dev.turnstile.rental;

import java.time.Instant;
import java.util.Map;

import jakarta.inject.Singleton;

import dev.turnstile.problem.ProblemException;
import io.smallrye.mutiny.Uni;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

/**
 * Leases (a lock item with an expiry) in DynamoDB. {@code expiresAt} is epoch seconds, the table's TTL attribute, so
 * DynamoDB deletes old leases by itself; but TTL deletes up to days late (and dynalite never), so the acquire
 * condition treats an expired lease as absent.
 */
@Singleton
public class LeaseRepository {

    private final DynamoDbAsyncClient dynamo;
    private final String table;

    LeaseRepository(DynamoDbAsyncClient dynamo, RentalTables tables) {
        this.dynamo = dynamo;
        this.table = tables.leases();
    }

    public Uni<Lease> acquire(Lease lease, Instant now) {
        return Uni.createFrom()
                .completionStage(() -> dynamo.putItem(PutItemRequest.builder()
                        .tableName(table)
                        .item(Map.of(
                                "leaseId", AttributeValue.fromS(lease.bikeId()),
                                "holder", AttributeValue.fromS(lease.holder()),
                                "token", AttributeValue.fromS(lease.token()),
                                "expiresAt", AttributeValue.fromN(Long.toString(lease.expiresAt().getEpochSecond()))))
                        .conditionExpression("attribute_not_exists(leaseId) OR expiresAt < :now")
                        .expressionAttributeValues(Map.of(":now", AttributeValue.fromN(Long.toString(now.getEpochSecond()))))
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                        .build()))
                .replaceWith(lease)
                .onFailure(ConditionalCheckFailedException.class).recoverWithUni(failure -> {
                    ConditionalCheckFailedException held = (ConditionalCheckFailedException) failure;
                    Uni<Lease> holder = held.hasItem() && !held.item().isEmpty()
                            ? Uni.createFrom().item(fromItem(held.item()))
                            : current(lease.bikeId());
                    return holder.flatMap(current -> current == null
                            ? acquire(lease, now)
                            : Uni.createFrom().failure(new Leased(current)));
                });
    }

    /** Deletes the lease only for the holder of {@code token}. */
    public Uni<Void> release(String bikeId, String token) {
        return Uni.createFrom()
                .completionStage(() -> dynamo.deleteItem(DeleteItemRequest.builder()
                        .tableName(table)
                        .key(Map.of("leaseId", AttributeValue.fromS(bikeId)))
                        .conditionExpression("#token = :token")
                        .expressionAttributeNames(Map.of("#token", "token"))
                        .expressionAttributeValues(Map.of(":token", AttributeValue.fromS(token)))
                        .build()))
                .replaceWithVoid()
                .onFailure(ConditionalCheckFailedException.class).transform(notHeld -> new ProblemException(409,
                        "LEASE_NOT_HELD", "Lease not held", "No lease on bike " + bikeId + " is held with this token"));
    }

    /** The lease as stored, or null when it was released between the failed put and this read. */
    private Uni<Lease> current(String bikeId) {
        return Uni.createFrom()
                .completionStage(() -> dynamo.getItem(GetItemRequest.builder()
                        .tableName(table)
                        .key(Map.of("leaseId", AttributeValue.fromS(bikeId)))
                        .consistentRead(true)
                        .build()))
                .map(response -> response.hasItem() && !response.item().isEmpty() ? fromItem(response.item()) : null);
    }

    private static Lease fromItem(Map<String, AttributeValue> item) {
        return new Lease(item.get("leaseId").s(), item.get("holder").s(), item.get("token").s(),
                Instant.ofEpochSecond(Long.parseLong(item.get("expiresAt").n())));
    }
}
