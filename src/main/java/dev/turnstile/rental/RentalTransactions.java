package dev.turnstile.rental;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import dev.turnstile.problem.StoreUnavailable;
import dev.turnstile.rental.IdempotencyRecords.IdempotencyRecord;
import io.smallrye.mutiny.Uni;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.TransactionInProgressException;
import software.amazon.awssdk.services.dynamodb.model.Update;

/**
 * Rent and return as one TransactWriteItems over three tables: the bike (version condition), the customer (at most
 * one active rental) and the rental record. All or nothing, so a customer can never hold two bikes.
 *
 * <p>{@code turnstile.rental.transactions}: {@code on}, {@code off}, or {@code auto} (default), which asks the
 * endpoint once with a harmless ConditionCheck-only transaction: real DynamoDB answers it, dynalite answers
 * UnknownOperationException and the service falls back to the single-item conditional write.
 *
 * <p>The repositories and this class are {@code @Singleton}s (no lazy client proxy): they are called from AWS SDK
 * completion threads, whose context class loader cannot create Quarkus beans in a packaged app.
 */
@Singleton
public class RentalTransactions {

    /** Items in every request, in this order; cancellation reasons come back in the same order. */
    static final int BIKE = 0;
    static final int CUSTOMER = 1;
    static final int RENTAL = 2;
    /** The idempotency record, when the request carried a key. */
    static final int RECORD = 3;
    static final String PROBE_KEY = "turnstile-transactions-probe";
    private static final Logger LOG = Logger.getLogger(RentalTransactions.class);

    /** What a transaction does with the customer's item; a failed condition there means something else for each. */
    enum CustomerPart {
        /** A rent: takes the customer's one active rental; failing, the customer already rides. */
        TAKES_RENTAL,
        /**
         * A rent again, over a marker that names a rental already over: a return made while transactions were off
         * (switched off, then on) does not clear the customer's item. Failing, the marker changed since.
         */
        REPLACES_STALE_RENTAL,
        /** A return: clears the rental it ends; failing, the customer's item names another rental. */
        CLEARS_RENTAL,
        /**
         * A return while the customer's item names another rental (a {@code ?mode=condition} rent writes no customer
         * item, so a customer can ride two bikes): leaves that rental, checking it is still there; failing, it
         * changed since, and the return is decided again.
         */
        LEAVES_OTHER_RENTAL
    }

    private final DynamoDbAsyncClient dynamo;
    private final RentalTables tables;
    private final IdempotencyRecords records;
    private final RentalConfig.Transactions mode;
    private final AtomicReference<Boolean> detected = new AtomicReference<>();

    RentalTransactions(DynamoDbAsyncClient dynamo, RentalTables tables, IdempotencyRecords records, RentalConfig config) {
        this.dynamo = dynamo;
        this.tables = tables;
        this.records = records;
        this.mode = config.transactions();
    }

    /** Whether rent/return go through transactions. In auto mode the first call asks the endpoint; the answer is kept. */
    public Uni<Boolean> enabled() {
        if (mode != RentalConfig.Transactions.AUTO) {
            return Uni.createFrom().item(mode == RentalConfig.Transactions.ON);
        }
        Boolean known = detected.get();
        return known != null ? Uni.createFrom().item(known) : probe().invoke(answer -> {
            if (detected.compareAndSet(null, answer)) {
                LOG.infof("DynamoDB endpoint %s TransactWriteItems: rental transactions are %s",
                        answer ? "supports" : "does not support", answer ? "on" : "off");
            }
        });
    }

    private Uni<Boolean> probe() {
        TransactWriteItemsRequest probe = TransactWriteItemsRequest.builder()
                .transactItems(TransactWriteItem.builder().conditionCheck(ConditionCheck.builder()
                        .tableName(tables.idempotency())
                        .key(Map.of("id", AttributeValue.fromS(PROBE_KEY)))
                        .conditionExpression("attribute_not_exists(id)")
                        .build()).build())
                .build();
        return StoreCalls.call(() -> dynamo.transactWriteItems(probe))
                .replaceWith(true)
                .onFailure(TransactionCanceledException.class).recoverWithItem(true)
                .onFailure(RentalTransactions::unknownOperation).recoverWithItem(false);
    }

    private static boolean unknownOperation(Throwable failure) {
        return failure instanceof DynamoDbException dynamoFailure
                && dynamoFailure.awsErrorDetails() != null
                && "UnknownOperationException".equals(dynamoFailure.awsErrorDetails().errorCode());
    }

    /**
     * Rents; with a key, its record is written COMPLETED in the same transaction. A customer marker naming a rental
     * that is over (its bike is no longer rented under it) is replaced: otherwise the customer could never rent again.
     */
    public Uni<Bike> rent(Bike read, Bike next, Instant now, Optional<IdempotencyRecord> record) {
        Optional<Keyed> keyed = withRecord(record, now);
        return execute(rentRequest(tables, read, next, keyed, Optional.empty()), next, CustomerPart.TAKES_RENTAL)
                .onFailure(CustomerHasActiveRental.class).recoverWithUni(failure -> {
                    Optional<String> marker = ((CustomerHasActiveRental) failure).activeRentalId();
                    return marker.isEmpty() ? Uni.createFrom().failure(failure)
                            : rentalOver(marker.get()).chain(over -> over
                                    ? execute(rentRequest(tables, read, next, keyed, marker), next, CustomerPart.REPLACES_STALE_RENTAL)
                                    : Uni.createFrom().failure(failure));
                });
    }

    /** Whether the bike that {@code rentalId} names is not rented under it any more (one consistent read). */
    private Uni<Boolean> rentalOver(String rentalId) {
        int at = rentalId.lastIndexOf('@');
        if (at <= 0) {
            return Uni.createFrom().item(false);
        }
        return StoreCalls.call(() -> dynamo.getItem(GetItemRequest.builder()
                        .tableName(tables.bikes())
                        .key(BikeItems.key(rentalId.substring(0, at)))
                        .consistentRead(true)
                        .build()))
                .map(found -> rentalOver(rentalId, found.hasItem() && !found.item().isEmpty() ? BikeItems.fromItem(found.item()) : null));
    }

    /** A rental is over when its bike is gone, or not rented, or rented under another rental. */
    static boolean rentalOver(String rentalId, Bike namedBike) {
        return namedBike == null || namedBike.status() != BikeStatus.RENTED || !rentalId.equals(rentalId(namedBike));
    }

    /**
     * Returns. A rider must always be able to hand a bike back: when the customer's item names another rental, the
     * customer condition would fail on every attempt, so the return goes through again leaving that rental there.
     */
    public Uni<Bike> giveBack(Bike read, Bike next, Instant now, Optional<IdempotencyRecord> record) {
        Optional<Keyed> keyed = withRecord(record, now);
        return execute(returnRequest(tables, read, next, now, keyed, CustomerPart.CLEARS_RENTAL), next,
                CustomerPart.CLEARS_RENTAL)
                .onFailure(CustomerRidesAnother.class).recoverWithUni(() -> execute(
                        returnRequest(tables, read, next, now, keyed, CustomerPart.LEAVES_OTHER_RENTAL), next,
                        CustomerPart.LEAVES_OTHER_RENTAL));
    }

    /** A return's customer condition failed: the customer's item names another rental. */
    static final class CustomerRidesAnother extends RuntimeException {
        CustomerRidesAnother() {
            super("the customer's item names another rental", null, false, false);
        }
    }

    private Optional<Keyed> withRecord(Optional<IdempotencyRecord> record, Instant now) {
        return record.map(intended -> new Keyed(records.completedInTransaction(intended.completed(), now)));
    }

    /** The Put of the key's record. */
    record Keyed(Put record) {
    }

    private Uni<Bike> execute(TransactWriteItemsRequest request, Bike next, CustomerPart customer) {
        return StoreCalls.call(() -> dynamo.transactWriteItems(request))
                .replaceWith(next.withVersion(next.version() + 1))
                .onFailure(TransactionCanceledException.class)
                .transform(failure -> cancellationAnswer((TransactionCanceledException) failure, next.bikeId(), customer))
                // the SDK's resends of this transaction, still running (its first attempt timed out), ran out of
                // attempts, and it may yet commit: with a key, its record will answer the client's retry
                .onFailure(TransactionInProgressException.class)
                .transform(failure -> request.clientRequestToken() != null ? new IdempotencyKeyTaken()
                        // without a key the token is the SDK's own, one per call
                        : new StoreUnavailable("DynamoDB", 1));
    }

    static TransactWriteItemsRequest rentRequest(RentalTables tables, Bike read, Bike next, Optional<Keyed> keyed,
            Optional<String> staleRental) {
        String rentalId = rentalId(next);
        Map<String, AttributeValue> rental = Map.of(
                "rentalId", AttributeValue.fromS(rentalId),
                "bikeId", AttributeValue.fromS(next.bikeId()),
                "customerId", AttributeValue.fromS(next.rentedBy()),
                "startedAt", AttributeValue.fromS(next.rentedAt().toString()),
                "status", AttributeValue.fromS("ACTIVE"));
        Map<String, AttributeValue> customerValues = new HashMap<>(Map.of(
                ":rental", AttributeValue.fromS(rentalId),
                ":bike", AttributeValue.fromS(next.bikeId())));
        staleRental.ifPresent(stale -> customerValues.put(":stale", AttributeValue.fromS(stale)));
        return request(keyed,
                bikeWrite(tables, next),
                TransactWriteItem.builder().update(Update.builder()
                        .tableName(tables.customers())
                        .key(Map.of("customerId", AttributeValue.fromS(next.rentedBy())))
                        .updateExpression("SET activeRentalId = :rental, bikeId = :bike")
                        .conditionExpression(staleRental.isPresent()
                                ? "attribute_not_exists(activeRentalId) OR activeRentalId = :stale"
                                : "attribute_not_exists(activeRentalId)")
                        .expressionAttributeValues(customerValues)
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                        .build()).build(),
                TransactWriteItem.builder().put(Put.builder()
                        .tableName(tables.rentals())
                        .item(rental)
                        .conditionExpression("attribute_not_exists(rentalId)")
                        .build()).build());
    }

    /**
     * Clears the customer's active rental (or, {@code LEAVES_OTHER_RENTAL}, checks that it still names another one)
     * and closes the rental record. Both conditions also accept a rental made while transactions were off (no customer
     * marker, no record), so switching modes never strands a bike; a marker a return made while they were off left
     * behind is replaced by the customer's next rent ({@link #rent}).
     */
    static TransactWriteItemsRequest returnRequest(RentalTables tables, Bike read, Bike next, Instant now,
            Optional<Keyed> keyed, CustomerPart customerPart) {
        String rentalId = rentalId(read);
        Map<String, AttributeValue> customerKey = Map.of("customerId", AttributeValue.fromS(read.rentedBy()));
        Map<String, AttributeValue> rental = Map.of(":rental", AttributeValue.fromS(rentalId));
        TransactWriteItem customer = customerPart == CustomerPart.LEAVES_OTHER_RENTAL
                ? TransactWriteItem.builder().conditionCheck(ConditionCheck.builder()
                        .tableName(tables.customers())
                        .key(customerKey)
                        .conditionExpression("activeRentalId <> :rental")
                        .expressionAttributeValues(rental)
                        .build()).build()
                : TransactWriteItem.builder().update(Update.builder()
                        .tableName(tables.customers())
                        .key(customerKey)
                        .updateExpression("REMOVE activeRentalId, bikeId")
                        .conditionExpression("attribute_not_exists(activeRentalId) OR activeRentalId = :rental")
                        .expressionAttributeValues(rental)
                        .build()).build();
        return request(keyed,
                bikeWrite(tables, next),
                customer,
                TransactWriteItem.builder().update(Update.builder()
                        .tableName(tables.rentals())
                        .key(Map.of("rentalId", AttributeValue.fromS(rentalId)))
                        .updateExpression("SET #status = :returned, endedAt = :now, returnStation = :station,"
                                + " bikeId = :bike, customerId = :customer")
                        .conditionExpression("attribute_not_exists(rentalId) OR #status = :active")
                        .expressionAttributeNames(Map.of("#status", "status"))
                        .expressionAttributeValues(Map.of(
                                ":returned", AttributeValue.fromS("RETURNED"),
                                ":active", AttributeValue.fromS("ACTIVE"),
                                ":now", AttributeValue.fromS(now.toString()),
                                ":station", AttributeValue.fromS(next.station()),
                                ":bike", AttributeValue.fromS(read.bikeId()),
                                ":customer", AttributeValue.fromS(read.rentedBy())))
                        .build()).build());
    }

    private static TransactWriteItem bikeWrite(RentalTables tables, Bike next) {
        Map<String, AttributeValue> values = new HashMap<>();
        return TransactWriteItem.builder().put(Put.builder()
                .tableName(tables.bikes())
                .item(BikeItems.toItem(next.withVersion(next.version() + 1)))
                .conditionExpression(BikeItems.sameBike(values, next))
                .expressionAttributeNames(BikeItems.SAME_BIKE_NAMES)
                .expressionAttributeValues(values)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build()).build();
    }

    private static TransactWriteItemsRequest request(Optional<Keyed> keyed, TransactWriteItem... items) {
        List<TransactWriteItem> all = new ArrayList<>(List.of(items));
        keyed.ifPresent(key -> all.add(TransactWriteItem.builder().put(key.record()).build()));
        TransactWriteItemsRequest.Builder request = TransactWriteItemsRequest.builder().transactItems(all);
        // A token of its own for every transaction built, set here so that the SDK's resends of this one carry it.
        // Never one per key: a retry decided again on a new read sends other items, and DynamoDB answers a token
        // it has seen with other parameters (cancelled ones too, we must assume) IdempotentParameterMismatch for 10
        // minutes. What a retry after a commit must find is the key's record and the mark on the bike, not a token.
        keyed.ifPresent(key -> request.clientRequestToken(UUID.randomUUID().toString()));
        return request.build();
    }

    /** One rental per bike and start time: the same id is computed again at return from the bike's rentedAt. */
    static String rentalId(Bike rented) {
        return rented.bikeId() + "@" + rented.rentedAt();
    }

    /**
     * Turns DynamoDB's cancellation reasons (one per item, in request order) into what they mean for the rental. The
     * customer's condition wins over the bike's on a rent: "you already have a bike" is true whatever the bike's
     * version. On a return it counts alone: with the bike's failing too, the bike changed and the return is decided
     * again.
     */
    static RuntimeException cancellationAnswer(TransactionCanceledException failure, String bikeId, CustomerPart customer) {
        List<CancellationReason> reasons = failure.hasCancellationReasons() ? failure.cancellationReasons() : List.of();
        if (failed(reasons, RECORD, "ConditionalCheckFailed")) {
            return new IdempotencyKeyTaken();
        }
        if ((customer == CustomerPart.TAKES_RENTAL || customer == CustomerPart.REPLACES_STALE_RENTAL)
                && failed(reasons, CUSTOMER, "ConditionalCheckFailed")) {
            CancellationReason held = reasons.get(CUSTOMER);
            AttributeValue marker = held.hasItem() ? held.item().get("activeRentalId") : null;
            // the marker is a rental's only when this transaction has not just found it over
            return new CustomerHasActiveRental(customer == CustomerPart.TAKES_RENTAL && marker != null ? marker.s() : null);
        }
        if (customer == CustomerPart.CLEARS_RENTAL && failed(reasons, CUSTOMER, "ConditionalCheckFailed")
                && !failed(reasons, BIKE, "ConditionalCheckFailed")) {
            return new CustomerRidesAnother();
        }
        if (failed(reasons, BIKE, "ConditionalCheckFailed")) {
            CancellationReason bike = reasons.get(BIKE);
            return new VersionConflict(bikeId,
                    bike.hasItem() && !bike.item().isEmpty() ? BikeItems.fromItem(bike.item()) : null);
        }
        boolean retryable = reasons.stream().anyMatch(reason -> "TransactionConflict".equals(reason.code())
                || "ConditionalCheckFailed".equals(reason.code()));
        return retryable ? new VersionConflict(bikeId, null) : failure;
    }

    private static boolean failed(List<CancellationReason> reasons, int index, String code) {
        return reasons.size() > index && code.equals(reasons.get(index).code());
    }
}
