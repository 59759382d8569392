package dev.turnstile.rental;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * A customer who rents a second bike with {@code ?mode=condition} (one UpdateItem, no customer item) while the
 * customer's item names the first one must still be able to return the second. On real DynamoDB every attempt's
 * customer condition failed and the rider heard 409 VERSION_CONFLICT until the other bike was back. dynalite has no
 * TransactWriteItems, so this endpoint answers the transactions as DynamoDB does for that customer item: the first
 * try (which clears the customer's rental) is cancelled on its customer condition, any other try commits.
 */
class ReturnBesideAnotherRentalTest {

    private static final Instant NOW = Instant.parse("2025-06-01T10:15:30Z");

    @Test
    void aReturnWhileTheCustomerItemNamesAnotherRentalGoesThroughAndLeavesIt() {
        List<TransactWriteItemsRequest> sent = new ArrayList<>();
        DynamoDbAsyncClient endpoint = new DynamoDbAsyncClient() {
            @Override
            public CompletableFuture<TransactWriteItemsResponse> transactWriteItems(TransactWriteItemsRequest request) {
                sent.add(request);
                if (request.transactItems().get(RentalTransactions.CUSTOMER).update() != null) {
                    return CompletableFuture.failedFuture(TransactionCanceledException.builder().cancellationReasons(
                            reason("None"), reason("ConditionalCheckFailed"), reason("None")).build());
                }
                return CompletableFuture.completedFuture(TransactWriteItemsResponse.builder().build());
            }

            @Override
            public String serviceName() {
                return "dynamodb";
            }

            @Override
            public void close() {
            }
        };
        RentalTransactions transactions = new RentalTransactions(endpoint, RentalTransactionsTest.TABLES, null,
                transactionsOn());
        RentalRules rules = new RentalRules(30);
        Bike rented = rules.rent(new Bike("b-2", "harbour", BikeStatus.AVAILABLE, 3, null, null, null, 4, "g1", null,
                null, null, List.of()), "c-1", null, NOW).withVersion(5);
        Bike returned = rules.giveBack(rented, "c-1", "airport");

        Bike stored = transactions.giveBack(rented, returned, NOW.plusSeconds(600), Optional.empty())
                .await().atMost(Duration.ofSeconds(5));

        assertEquals(6, stored.version());
        assertEquals(BikeStatus.AVAILABLE, stored.status());
        assertEquals(2, sent.size(), "the return goes through again, leaving the other rental");
        assertNull(sent.get(1).transactItems().get(RentalTransactions.CUSTOMER).update());
        assertNotNull(sent.get(1).transactItems().get(RentalTransactions.CUSTOMER).conditionCheck());
    }

    private static CancellationReason reason(String code) {
        return CancellationReason.builder().code(code).build();
    }

    static RentalConfig transactionsOn() {
        return new RentalConfig() {
            public int ridesUntilService() {
                return 30;
            }

            public Transactions transactions() {
                return Transactions.ON;
            }

            public Idempotency idempotency() {
                return null;
            }

            public boolean createMissingTables() {
                return false;
            }
        };
    }
}
