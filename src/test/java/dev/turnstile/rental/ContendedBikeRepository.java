package dev.turnstile.rental;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.enterprise.inject.Alternative;

import io.smallrye.mutiny.Uni;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The real repository, with two test-only abilities: it counts the service's reads per bike, and for bikes a test
 * marks as contended it lets a real concurrent writer (a raw UpdateItem on the same dynalite) bump the version right
 * after each read, so the service's conditional write must fail; and for bikes a test marks as resent it sends the
 * next write twice ({@link ResendingDynamoDb}), as the AWS SDK does when the first answer is lost on the way back, and
 * hands the service the second answer; for bikes a test marks as in a transaction the next writes are refused as
 * DynamoDB refuses them while a TransactWriteItems writes the item. Otherwise no mock: every read and write is real.
 */
@Alternative
@Priority(1)
@Singleton
public class ContendedBikeRepository extends BikeRepository {

    private final DynamoDbAsyncClient dynamo;
    private final RentalTables tables;
    private final Map<String, AtomicInteger> reads = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> interferences = new ConcurrentHashMap<>();
    private final Map<String, String> lastWriterRents = new ConcurrentHashMap<>();
    private final Set<String> recreated = ConcurrentHashMap.newKeySet();
    private final Map<String, AtomicInteger> resent;
    private final Map<String, AtomicInteger> inTransaction;
    private final Set<String> resentIntoTransaction;
    private final Map<String, AtomicInteger> storeCalls;

    @Inject
    ContendedBikeRepository(DynamoDbAsyncClient dynamo, RentalTables tables) {
        this(dynamo, tables, new ConcurrentHashMap<>(), new ConcurrentHashMap<>(), ConcurrentHashMap.newKeySet(),
                new ConcurrentHashMap<>());
    }

    private ContendedBikeRepository(DynamoDbAsyncClient dynamo, RentalTables tables, Map<String, AtomicInteger> resent,
            Map<String, AtomicInteger> inTransaction, Set<String> resentIntoTransaction,
            Map<String, AtomicInteger> storeCalls) {
        super(new ResendingDynamoDb(dynamo, resent, inTransaction, resentIntoTransaction, storeCalls), tables);
        this.dynamo = dynamo;
        this.tables = tables;
        this.resent = resent;
        this.inTransaction = inTransaction;
        this.resentIntoTransaction = resentIntoTransaction;
        this.storeCalls = storeCalls;
    }

    /** After each of the next {@code times} reads of {@code bikeId}, another writer changes the bike. */
    void contend(String bikeId, int times) {
        interferences.put(bikeId, new AtomicInteger(times));
    }

    /** As {@link #contend}, and the last of those writers rents the bike to {@code customerId}: the race's winner. */
    void contendAndRentTo(String bikeId, int times, String customerId) {
        lastWriterRents.put(bikeId, customerId);
        contend(bikeId, times);
    }

    /** The next write on {@code bikeId} is applied, its answer lost, and sent again. */
    void resendNextWrite(String bikeId) {
        resendWrite(bikeId, 1);
    }

    /** As {@link #resendNextWrite}, for the {@code nth} next write. */
    void resendWrite(String bikeId, int nth) {
        resent.put(bikeId, new AtomicInteger(nth - 1));
    }

    /** The next {@code times} writes on {@code bikeId} meet a transaction writing the bike, and are refused. */
    void inTransaction(String bikeId, int times) {
        inTransaction.put(bikeId, new AtomicInteger(times));
    }

    /** The next write on {@code bikeId} is applied, its answer lost, and its resend meets a transaction. */
    void resendNextWriteIntoTransaction(String bikeId) {
        resentIntoTransaction.add(bikeId);
    }

    /** Reads and writes of {@code bikeId} that reached the store ({@link CoalescedReads}, {@link WritesInFlight}). */
    int storeCalls(String bikeId) {
        return storeCalls.getOrDefault(bikeId, new AtomicInteger()).get();
    }

    int reads(String bikeId) {
        return reads.getOrDefault(bikeId, new AtomicInteger()).get();
    }

    /**
     * After the next read of {@code bikeId}, staff delete the bike and create it again under the same id: version 1
     * again, a new generation, at {@code station} with no rides.
     */
    void recreateAfterNextRead(String bikeId) {
        recreated.add(bikeId);
    }

    @Override
    public Uni<Bike> get(String bikeId) {
        reads.computeIfAbsent(bikeId, id -> new AtomicInteger()).incrementAndGet();
        AtomicInteger remaining = interferences.get(bikeId);
        Uni<Bike> read = super.get(bikeId);
        if (recreated.remove(bikeId)) {
            return read.call(bike -> recreate(bikeId));
        }
        if (remaining == null) {
            return read;
        }
        return read.call(bike -> {
            int left = remaining.getAndDecrement();
            if (left <= 0) {
                return Uni.createFrom().voidItem();
            }
            String winner = left == 1 ? lastWriterRents.get(bikeId) : null;
            return winner == null ? bumpVersion(bikeId) : rentTo(bikeId, winner);
        });
    }

    private Uni<Void> recreate(String bikeId) {
        Map<String, AttributeValue> item = new HashMap<>(Map.of(BikeItems.KEY, AttributeValue.fromS(bikeId),
                "station", AttributeValue.fromS("depot"), "status", AttributeValue.fromS(BikeStatus.AVAILABLE.name()),
                "ridesSinceService", BikeItems.number(0), "version", BikeItems.number(1),
                "generation", AttributeValue.fromS("recreated")));
        return Uni.createFrom().completionStage(() -> dynamo.deleteItem(DeleteItemRequest.builder()
                        .tableName(tables.bikes()).key(BikeItems.key(bikeId)).build()))
                .chain(() -> Uni.createFrom().completionStage(() -> dynamo.putItem(PutItemRequest.builder()
                        .tableName(tables.bikes()).item(item).build())))
                .replaceWithVoid();
    }

    private Uni<Void> bumpVersion(String bikeId) {
        return Uni.createFrom().completionStage(() -> dynamo.updateItem(UpdateItemRequest.builder()
                .tableName(tables.bikes())
                .key(BikeItems.key(bikeId))
                .updateExpression("ADD #version :one")
                .expressionAttributeNames(BikeItems.VERSION_NAME)
                .expressionAttributeValues(Map.of(":one", BikeItems.number(1)))
                .build())).replaceWithVoid();
    }

    private Uni<Void> rentTo(String bikeId, String customerId) {
        return Uni.createFrom().completionStage(() -> dynamo.updateItem(UpdateItemRequest.builder()
                .tableName(tables.bikes())
                .key(BikeItems.key(bikeId))
                .updateExpression("SET #status = :rented, rentedBy = :customer ADD #version :one")
                .expressionAttributeNames(BikeItems.VERSION_AND_STATUS_NAMES)
                .expressionAttributeValues(Map.of(":one", BikeItems.number(1),
                        ":rented", AttributeValue.fromS(BikeStatus.RENTED.name()),
                        ":customer", AttributeValue.fromS(customerId)))
                .build())).replaceWithVoid();
    }
}
