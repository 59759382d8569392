package dev.turnstile.rental;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import io.smallrye.mutiny.helpers.test.UniAssertSubscriber;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * A customer who rented with transactions on and returned while they were off (an operator switched them off, then
 * on again) keeps the marker of that rental in the customer's item: a return without a transaction does not touch it.
 * Every later rent failed its customer condition, 409 CUSTOMER_HAS_ACTIVE_RENTAL, for good. Now a marker whose bike is
 * no longer rented under it is replaced, under a condition naming it. dynalite has no TransactWriteItems: this endpoint
 * answers as DynamoDB does (the customer's item in the cancellation reason, ALL_OLD) and serves the bike it names.
 */
class StaleCustomerMarkerTest {

    private static final Instant NOW = Instant.parse("2025-06-01T10:15:30Z");
    private static final Instant EARLIER = Instant.parse("2025-05-30T08:00:00Z");
    private static final String OLD_RENTAL = "b-1@" + EARLIER;

    private final RentalRules rules = new RentalRules(30);
    private final Bike read = new Bike("b-2", "harbour", BikeStatus.AVAILABLE, 3, null, null, null, 4, "g1", null,
            null, null, List.of());
    private final Bike rented = rules.rent(read, "c-1", null, NOW);

    @Test
    void aMarkerWhoseBikeWasReturnedIsReplacedAndTheRentGoesThrough() {
        Bike returned = new Bike("b-1", "airport", BikeStatus.AVAILABLE, 8, null, null, null, 12, "g2", null, null, null,
                List.of());
        Endpoint endpoint = new Endpoint(returned);
        RentalTransactions transactions = transactions(endpoint);

        Bike stored = transactions.rent(read, rented, NOW, Optional.empty()).await().atMost(Duration.ofSeconds(5));

        assertEquals(BikeStatus.RENTED, stored.status());
        assertEquals(2, endpoint.sent.size(), "sent again over the stale marker");
        var customer = endpoint.sent.get(1).transactItems().get(RentalTransactions.CUSTOMER).update();
        assertEquals("attribute_not_exists(activeRentalId) OR activeRentalId = :stale", customer.conditionExpression());
        assertEquals(OLD_RENTAL, customer.expressionAttributeValues().get(":stale").s());
        assertEquals(List.of("b-1"), endpoint.read);
    }

    @Test
    void aMarkerWhoseBikeIsStillRentedUnderItStaysAndTheRentIsRefused() {
        Bike stillRented = new Bike("b-1", "harbour", BikeStatus.RENTED, 8, "c-1", EARLIER, null, 12, "g2", null, null,
                null, List.of());
        Endpoint endpoint = new Endpoint(stillRented);

        Throwable failure = transactions(endpoint).rent(read, rented, NOW, Optional.empty())
                .subscribe().withSubscriber(UniAssertSubscriber.create()).awaitFailure(Duration.ofSeconds(5)).getFailure();

        assertInstanceOf(CustomerHasActiveRental.class, failure);
        assertEquals(1, endpoint.sent.size());
    }

    @Test
    void aReplacementThatFindsTheMarkerChangedIsRefusedOnce() {
        Endpoint endpoint = new Endpoint(null);
        endpoint.refuseReplacement = true;

        Throwable failure = transactions(endpoint).rent(read, rented, NOW, Optional.empty())
                .subscribe().withSubscriber(UniAssertSubscriber.create()).awaitFailure(Duration.ofSeconds(5)).getFailure();

        assertInstanceOf(CustomerHasActiveRental.class, failure);
        assertEquals(2, endpoint.sent.size(), "one replacement, not a loop");
        assertTrue(RentalTransactions.rentalOver(OLD_RENTAL, null), "a bike deleted since ends its rental");
    }

    @Test
    void aKeyedRentOverAStaleMarkerIsBuiltUnderATokenOfItsOwn() {
        Put record = Put.builder().tableName("t-idempotency").item(Map.of("id", AttributeValue.fromS("c-1|key-1"))).build();
        RentalTransactions.Keyed keyed = new RentalTransactions.Keyed(record);

        TransactWriteItemsRequest first = RentalTransactions.rentRequest(RentalTransactionsTest.TABLES, read, rented,
                Optional.of(keyed), Optional.empty());
        TransactWriteItemsRequest second = RentalTransactions.rentRequest(RentalTransactionsTest.TABLES, read, rented,
                Optional.of(keyed), Optional.of(OLD_RENTAL));

        assertNotEquals(first.clientRequestToken(), second.clientRequestToken(),
                "other items under the same token would be IdempotentParameterMismatch");
    }

    private static RentalTransactions transactions(DynamoDbAsyncClient endpoint) {
        return new RentalTransactions(endpoint, RentalTransactionsTest.TABLES, null, ReturnBesideAnotherRentalTest.transactionsOn());
    }

    /** Refuses a rent whose customer condition is the plain one, as the customer's item holds OLD_RENTAL. */
    private static final class Endpoint implements DynamoDbAsyncClient {
        final List<TransactWriteItemsRequest> sent = new ArrayList<>();
        final List<String> read = new ArrayList<>();
        boolean refuseReplacement;
        private final Bike named;

        Endpoint(Bike named) {
            this.named = named;
        }

        @Override
        public CompletableFuture<TransactWriteItemsResponse> transactWriteItems(TransactWriteItemsRequest request) {
            sent.add(request);
            var customer = request.transactItems().get(RentalTransactions.CUSTOMER).update();
            if (refuseReplacement || !customer.conditionExpression().contains(":stale")) {
                return CompletableFuture.failedFuture(TransactionCanceledException.builder().cancellationReasons(
                        CancellationReason.builder().code("None").build(),
                        CancellationReason.builder().code("ConditionalCheckFailed").item(Map.of(
                                "customerId", AttributeValue.fromS("c-1"),
                                "activeRentalId", AttributeValue.fromS(OLD_RENTAL),
                                "bikeId", AttributeValue.fromS("b-1"))).build(),
                        CancellationReason.builder().code("None").build()).build());
            }
            return CompletableFuture.completedFuture(TransactWriteItemsResponse.builder().build());
        }

        @Override
        public CompletableFuture<GetItemResponse> getItem(GetItemRequest request) {
            read.add(request.key().get(BikeItems.KEY).s());
            return CompletableFuture.completedFuture(named == null ? GetItemResponse.builder().build()
                    : GetItemResponse.builder().item(BikeItems.toItem(named)).build());
        }

        @Override
        public String serviceName() {
            return "dynamodb";
        }

        @Override
        public void close() {
        }
    }
}
