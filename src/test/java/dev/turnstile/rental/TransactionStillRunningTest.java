package dev.turnstile.rental;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import dev.turnstile.problem.StoreUnavailable;
import io.smallrye.mutiny.helpers.test.UniAssertSubscriber;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactionInProgressException;

/**
 * DynamoDB answers TransactionInProgressException to a TransactWriteItems whose client request token belongs to a
 * transaction it is still running. Without an Idempotency-Key the token is the SDK's own, the same for its resends of
 * one call: after a first attempt that timed out, the resend meets it; the SDK retries that as throttling, and when its
 * attempts run out on it the exception is the call's answer. That answered 500 (taken for a key's record, which a
 * keyless request has not); the rent may yet commit, so it is a 503 the client retries. dynalite has no
 * TransactWriteItems: this endpoint answers as DynamoDB does.
 */
class TransactionStillRunningTest {

    private static final Instant NOW = Instant.parse("2025-06-01T10:15:30Z");

    private final RentalTransactions transactions = new RentalTransactions(new DynamoDbAsyncClient() {
        @Override
        public CompletableFuture<TransactWriteItemsResponse> transactWriteItems(TransactWriteItemsRequest request) {
            return CompletableFuture.failedFuture(TransactionInProgressException.builder()
                    .message("Transaction is in progress").build());
        }

        @Override
        public String serviceName() {
            return "dynamodb";
        }

        @Override
        public void close() {
        }
    }, RentalTransactionsTest.TABLES, null, ReturnBesideAnotherRentalTest.transactionsOn());

    private final Bike read = new Bike("b-3", "harbour", BikeStatus.AVAILABLE, 3, null, null, null, 4, "g1", null,
            null, null, List.of());
    private final Bike rented = new RentalRules(30).rent(read, "c-1", null, NOW);

    @Test
    void aKeylessRentMeetingItsOwnRunningTransactionIsStoreUnavailable() {
        Throwable failure = transactions.rent(read, rented, NOW, Optional.empty())
                .subscribe().withSubscriber(UniAssertSubscriber.create()).awaitFailure(Duration.ofSeconds(5)).getFailure();

        StoreUnavailable answer = assertInstanceOf(StoreUnavailable.class, failure);
        assertEquals(503, answer.status());
    }

    @Test
    void aKeylessReturnMeetingItsOwnRunningTransactionIsStoreUnavailable() {
        Bike returned = new RentalRules(30).giveBack(rented.withVersion(5), "c-1", "airport");

        Throwable failure = transactions.giveBack(rented.withVersion(5), returned, NOW.plusSeconds(60), Optional.empty())
                .subscribe().withSubscriber(UniAssertSubscriber.create()).awaitFailure(Duration.ofSeconds(5)).getFailure();

        assertInstanceOf(StoreUnavailable.class, failure);
    }
}
