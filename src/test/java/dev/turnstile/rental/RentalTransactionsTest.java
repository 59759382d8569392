package dev.turnstile.rental;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.turnstile.problem.ProblemException;
import dev.turnstile.rental.RentalTransactions.CustomerPart;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/** Request building and cancellation mapping of the transaction path, without an endpoint. */
class RentalTransactionsTest {

    private static final Instant NOW = Instant.parse("2025-06-01T10:15:30Z");
    static final RentalTables TABLES = new RentalTables() {
        public String bikes() {
            return "t-bikes";
        }

        public String customers() {
            return "t-customers";
        }

        public String rentals() {
            return "t-rentals";
        }

        public String idempotency() {
            return "t-idempotency";
        }
    };

    private final Bike read = new Bike("b-17", "harbour", BikeStatus.AVAILABLE, 29, null, null, null, 4, "g1",
            null, null, null, List.of());
    private final Bike rented = new RentalRules(30).rent(read, "c-1", null, NOW);
    private final Put record = Put.builder().tableName("t-idempotency")
            .item(Map.of("id", AttributeValue.fromS("c-1|key-1"))).build();
    private final Optional<RentalTransactions.Keyed> keyed = Optional.of(new RentalTransactions.Keyed(record));

    @Test
    void rentWritesTheBikeUnderItsVersionTheCustomerOnlyWithoutActiveRentalAndANewRentalRecord() {
        TransactWriteItemsRequest request = RentalTransactions.rentRequest(TABLES, read, rented, keyed, Optional.empty());

        var bike = request.transactItems().get(RentalTransactions.BIKE).put();
        assertEquals("t-bikes", bike.tableName());
        // the bike that was read, not one created again under its id since (RecreatedBikeTest)
        assertEquals("#version = :expected AND #generation = :generation", bike.conditionExpression());
        assertEquals("4", bike.expressionAttributeValues().get(":expected").n());
        assertEquals("g1", bike.expressionAttributeValues().get(":generation").s());
        assertEquals("5", bike.item().get("version").n());
        assertEquals("RENTED", bike.item().get("status").s());
        assertEquals("30", bike.item().get("ridesSinceService").n());

        var customer = request.transactItems().get(RentalTransactions.CUSTOMER).update();
        assertEquals("t-customers", customer.tableName());
        assertEquals("c-1", customer.key().get("customerId").s());
        assertEquals("attribute_not_exists(activeRentalId)", customer.conditionExpression());
        assertEquals("b-17@" + NOW, customer.expressionAttributeValues().get(":rental").s());

        var rental = request.transactItems().get(RentalTransactions.RENTAL).put();
        assertEquals("t-rentals", rental.tableName());
        assertEquals("attribute_not_exists(rentalId)", rental.conditionExpression());
        assertEquals("b-17@" + NOW, rental.item().get("rentalId").s());
        assertEquals("c-1", rental.item().get("customerId").s());

        assertSame(record, request.transactItems().get(RentalTransactions.RECORD).put(), "the key's record, same transaction");
    }

    @Test
    void returnClearsTheSameRentalItStarted() {
        Bike returned = new RentalRules(30).giveBack(rented.withVersion(5), "c-1", "airport");

        TransactWriteItemsRequest request = RentalTransactions.returnRequest(TABLES, rented.withVersion(5), returned,
                NOW.plusSeconds(600), Optional.empty(), CustomerPart.CLEARS_RENTAL);

        var bike = request.transactItems().get(RentalTransactions.BIKE).put();
        assertEquals("5", bike.expressionAttributeValues().get(":expected").n());
        assertEquals("6", bike.item().get("version").n());
        assertFalse(bike.item().containsKey("rentedBy"));
        var customer = request.transactItems().get(RentalTransactions.CUSTOMER).update();
        assertEquals("REMOVE activeRentalId, bikeId", customer.updateExpression());
        assertEquals("b-17@" + NOW, customer.expressionAttributeValues().get(":rental").s());
        var rental = request.transactItems().get(RentalTransactions.RENTAL).update();
        assertEquals("b-17@" + NOW, rental.key().get("rentalId").s());
        assertEquals("airport", rental.expressionAttributeValues().get(":station").s());
        assertNull(request.clientRequestToken(), "no Idempotency-Key, no token");
    }

    @Test
    void everyKeyedTransactionBuiltHasATokenOfItsOwn() {
        String token = RentalTransactions.rentRequest(TABLES, read, rented, keyed, Optional.empty()).clientRequestToken();

        assertEquals(36, token.length(), "DynamoDB's limit");
        assertNotEquals(token, RentalTransactions.rentRequest(TABLES, read, rented, keyed, Optional.empty()).clientRequestToken(),
                "a retry decided again sends other items (a later rentedAt): under the same token that would be "
                        + "IdempotentParameterMismatch (KeyedTransactionRetryTest); only the SDK's resends of one request share it");
    }

    @Test
    void aFailedRecordConditionMeansTheKeyIsTaken() {
        TransactionCanceledException failure = TransactionCanceledException.builder()
                .cancellationReasons(reason("None"), reason("None"), reason("None"), reason("ConditionalCheckFailed")).build();

        assertInstanceOf(IdempotencyKeyTaken.class, RentalTransactions.cancellationAnswer(failure, "b-17", CustomerPart.TAKES_RENTAL));
    }

    @Test
    void aFailedCustomerConditionMeansTheCustomerAlreadyRides() {
        RuntimeException answer = RentalTransactions.cancellationAnswer(
                cancelled("ConditionalCheckFailed", "ConditionalCheckFailed", "None"), "b-17", CustomerPart.TAKES_RENTAL);

        assertInstanceOf(CustomerHasActiveRental.class, answer);
        assertEquals("CUSTOMER_HAS_ACTIVE_RENTAL", ((ProblemException) RentalProblems.answer(answer)).reason());
    }

    @Test
    void aFailedBikeConditionIsAVersionConflict() {
        RuntimeException answer = RentalTransactions.cancellationAnswer(cancelled("ConditionalCheckFailed", "None", "None"), "b-17", CustomerPart.TAKES_RENTAL);

        assertInstanceOf(VersionConflict.class, answer);
        assertEquals("VERSION_CONFLICT", ((ProblemException) RentalProblems.answer(answer)).reason());
    }

    @Test
    void aFailedBikeConditionCarriesTheCurrentBikeWhenDynamoDbReturnsIt() {
        CancellationReason bike = CancellationReason.builder().code("ConditionalCheckFailed")
                .item(BikeItems.toItem(rented.withVersion(5))).build();
        TransactionCanceledException failure = TransactionCanceledException.builder()
                .cancellationReasons(bike, reason("None"), reason("None")).build();

        VersionConflict answer = assertInstanceOf(VersionConflict.class, RentalTransactions.cancellationAnswer(failure, "b-17", CustomerPart.TAKES_RENTAL));

        assertEquals(Optional.of(rented.withVersion(5)), answer.current());
    }

    @Test
    void aTransactionConflictIsRetryable() {
        RuntimeException answer = RentalTransactions.cancellationAnswer(cancelled("None", "TransactionConflict", "None"), "b-17", CustomerPart.TAKES_RENTAL);

        assertInstanceOf(VersionConflict.class, answer);
    }

    /**
     * A customer who rented another bike with {@code ?mode=condition} (no customer item written) while the item names
     * this one, or the other way round: the return's customer condition fails on every attempt. It was retried as a
     * version conflict, three times, then 409 VERSION_CONFLICT: the rider could not hand the bike back.
     */
    @Test
    void onReturnAFailedCustomerConditionMeansTheCustomerRidesAnotherBike() {
        RuntimeException answer = RentalTransactions.cancellationAnswer(cancelled("None", "ConditionalCheckFailed", "None"),
                "b-17", CustomerPart.CLEARS_RENTAL);

        assertInstanceOf(RentalTransactions.CustomerRidesAnother.class, answer);
        assertInstanceOf(VersionConflict.class, RentalTransactions.cancellationAnswer(
                cancelled("ConditionalCheckFailed", "ConditionalCheckFailed", "None"), "b-17",
                CustomerPart.CLEARS_RENTAL), "the bike changed: decided again");
    }

    @Test
    void aReturnBesideAnotherRentalLeavesItAndOnlyChecksItIsStillThere() {
        Bike returned = new RentalRules(30).giveBack(rented.withVersion(5), "c-1", "airport");

        TransactWriteItemsRequest request = RentalTransactions.returnRequest(TABLES, rented.withVersion(5), returned,
                NOW.plusSeconds(600), keyed, CustomerPart.LEAVES_OTHER_RENTAL);

        assertEquals("5", request.transactItems().get(RentalTransactions.BIKE).put().expressionAttributeValues()
                .get(":expected").n());
        var customer = request.transactItems().get(RentalTransactions.CUSTOMER);
        assertNull(customer.update(), "the other rental stays the customer's");
        assertEquals("activeRentalId <> :rental", customer.conditionCheck().conditionExpression());
        assertEquals("b-17@" + NOW, customer.conditionCheck().expressionAttributeValues().get(":rental").s());
        assertEquals("airport", request.transactItems().get(RentalTransactions.RENTAL).update().expressionAttributeValues()
                .get(":station").s());
        assertSame(record, request.transactItems().get(RentalTransactions.RECORD).put());
        assertNotEquals(RentalTransactions.returnRequest(TABLES, rented.withVersion(5), returned, NOW.plusSeconds(600),
                keyed, CustomerPart.CLEARS_RENTAL).clientRequestToken(), request.clientRequestToken(),
                "other items than the cancelled first try under the same key: a token of their own");
    }

    @Test
    void onAReturnBesideAnotherRentalAFailedCheckIsDecidedAgain() {
        RuntimeException answer = RentalTransactions.cancellationAnswer(cancelled("None", "ConditionalCheckFailed", "None"),
                "b-17", CustomerPart.LEAVES_OTHER_RENTAL);

        assertInstanceOf(VersionConflict.class, answer);
    }

    @Test
    void otherCancellationsAreNotDisguised() {
        TransactionCanceledException throttled = cancelled("ThrottlingError", "None", "None");

        assertSame(throttled, RentalTransactions.cancellationAnswer(throttled, "b-17", CustomerPart.TAKES_RENTAL));
    }

    private static TransactionCanceledException cancelled(String bike, String customer, String rental) {
        return TransactionCanceledException.builder()
                .cancellationReasons(List.of(reason(bike), reason(customer), reason(rental)))
                .build();
    }

    private static CancellationReason reason(String code) {
        return CancellationReason.builder().code(code).build();
    }
}
