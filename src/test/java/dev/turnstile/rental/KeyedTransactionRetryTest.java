package dev.turnstile.rental;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import dev.turnstile.idempotency.StoredAnswer;
import dev.turnstile.rental.IdempotencyRecords.IdempotencyRecord;
import io.smallrye.mutiny.helpers.test.UniAssertSubscriber;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.IdempotentParameterMismatchException;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * A keyed rent whose transaction was cancelled (another transaction was writing the bike: TransactionConflict) is
 * decided again on a new read and sent again, with other items (a new rentedAt at least). Its client request token was
 * derived from the key alone, so the second transaction went out under the token of the first; DynamoDB answers a
 * token seen with other parameters within 10 minutes of the request that used it with IdempotentParameterMismatch,
 * which the service took for "another request has the key": 409 IDEMPOTENCY_IN_PROGRESS for a rent that wrote nothing,
 * and the same for every retry of the client under that key for 10 minutes. Whether DynamoDB keeps the token of a
 * cancelled request is not documented either way (its guide says the token is valid "after the request that uses it
 * finishes"); this endpoint assumes it does, as the customer-part tokens of {@link RentalTransactions} already did.
 * dynalite has no TransactWriteItems.
 */
class KeyedTransactionRetryTest {

    private static final Instant NOW = Instant.parse("2025-06-01T10:15:30Z");

    private final RentalRules rules = new RentalRules(30);
    private final Bike read = new Bike("b-4", "harbour", BikeStatus.AVAILABLE, 3, null, null, null, 4, "g1", null,
            null, null, List.of());

    @Test
    void aKeyedRentSentAgainAfterACancelledTryIsNotTakenForAnotherRequest() {
        Endpoint endpoint = new Endpoint();
        RentalTransactions transactions = transactions(endpoint);
        endpoint.conflictNext = true;

        Throwable first = transactions.rent(read, rules.rent(read, "c-1", null, NOW), NOW, record(NOW))
                .subscribe().withSubscriber(UniAssertSubscriber.create()).awaitFailure(Duration.ofSeconds(5)).getFailure();
        assertInstanceOf(VersionConflict.class, first, "a transaction conflict is a lost race, decided again");

        Instant later = NOW.plusMillis(40);
        Bike stored = transactions.rent(read, rules.rent(read, "c-1", null, later), later, record(later))
                .await().atMost(Duration.ofSeconds(5));

        assertEquals(BikeStatus.RENTED, stored.status());
        assertEquals(5, stored.version());
        assertEquals(2, endpoint.sent.size());
        assertNotEquals(endpoint.sent.get(0).clientRequestToken(), endpoint.sent.get(1).clientRequestToken());
    }

    private Optional<IdempotencyRecord> record(Instant now) {
        return Optional.of(records().intended("c-1|key-1", "fingerprint", "owner-1",
                new StoredAnswer(false, "{}"), "\"5-g1\"", now));
    }

    private static IdempotencyRecords records() {
        return new IdempotencyRecords(null, RentalTransactionsTest.TABLES, config());
    }

    private static RentalTransactions transactions(DynamoDbAsyncClient endpoint) {
        return new RentalTransactions(endpoint, RentalTransactionsTest.TABLES, records(), config());
    }

    private static RentalConfig config() {
        RentalConfig on = ReturnBesideAnotherRentalTest.transactionsOn();
        return new RentalConfig() {
            public int ridesUntilService() {
                return on.ridesUntilService();
            }

            public Transactions transactions() {
                return on.transactions();
            }

            public Idempotency idempotency() {
                return new Idempotency() {
                    public Duration ttl() {
                        return Duration.ofHours(24);
                    }

                    public Duration inProgressExpiry() {
                        return Duration.ofSeconds(10);
                    }
                };
            }

            public boolean createMissingTables() {
                return false;
            }
        };
    }

    /** Keeps, per client request token, the request that used it, cancelled or not, as DynamoDB does for 10 minutes. */
    private static final class Endpoint implements DynamoDbAsyncClient {
        final List<TransactWriteItemsRequest> sent = new ArrayList<>();
        final Map<String, TransactWriteItemsRequest> tokens = new HashMap<>();
        boolean conflictNext;

        @Override
        public CompletableFuture<TransactWriteItemsResponse> transactWriteItems(TransactWriteItemsRequest request) {
            sent.add(request);
            TransactWriteItemsRequest earlier = request.clientRequestToken() == null ? null
                    : tokens.putIfAbsent(request.clientRequestToken(), request);
            if (earlier != null && !earlier.equals(request)) {
                return CompletableFuture.failedFuture(IdempotentParameterMismatchException.builder()
                        .message("Request with same client token was already used with different parameters").build());
            }
            if (conflictNext) {
                conflictNext = false;
                List<CancellationReason> reasons = new ArrayList<>();
                for (int i = 0; i < request.transactItems().size(); i++) {
                    reasons.add(CancellationReason.builder().code(i == RentalTransactions.BIKE ? "TransactionConflict" : "None").build());
                }
                return CompletableFuture.failedFuture(TransactionCanceledException.builder().cancellationReasons(reasons)
                        .message("Transaction cancelled").build());
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
    }
}
