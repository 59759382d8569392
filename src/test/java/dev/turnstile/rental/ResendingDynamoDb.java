package dev.turnstile.rental;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * The real client, except that one write on a bike in {@code resent} is sent twice, the same request both times,
 * and the caller gets the second answer: what the AWS SDK does when the first answer is lost on the way back (a
 * dropped connection, an attempt timeout, a 500 after the commit). dynalite applies or refuses each send for real.
 * {@code resent} maps a bike to the number of its writes to let pass first. A bike in {@code inTransaction} has its
 * next writes refused with TransactionConflictException, as DynamoDB refuses them while a transaction writes the
 * item (dynalite has no transactions); a bike in {@code resentIntoTransaction} has its next write applied and the
 * resend refused that way. Only the calls the bike repository makes are
 * passed on.
 */
final class ResendingDynamoDb implements DynamoDbAsyncClient {

    private final DynamoDbAsyncClient dynamo;
    private final Map<String, AtomicInteger> resent;
    private final Map<String, AtomicInteger> inTransaction;
    private final Set<String> resentIntoTransaction;
    private final Map<String, AtomicInteger> storeCalls;

    ResendingDynamoDb(DynamoDbAsyncClient dynamo, Map<String, AtomicInteger> resent,
            Map<String, AtomicInteger> inTransaction, Set<String> resentIntoTransaction,
            Map<String, AtomicInteger> storeCalls) {
        this.dynamo = dynamo;
        this.resent = resent;
        this.inTransaction = inTransaction;
        this.resentIntoTransaction = resentIntoTransaction;
        this.storeCalls = storeCalls;
    }

    @Override
    public CompletableFuture<PutItemResponse> putItem(PutItemRequest request) {
        return sent(request.item(), request, dynamo::putItem);
    }

    @Override
    public CompletableFuture<UpdateItemResponse> updateItem(UpdateItemRequest request) {
        return sent(request.key(), request, dynamo::updateItem);
    }

    @Override
    public CompletableFuture<DeleteItemResponse> deleteItem(DeleteItemRequest request) {
        return sent(request.key(), request, dynamo::deleteItem);
    }

    @Override
    public CompletableFuture<GetItemResponse> getItem(GetItemRequest request) {
        storeCalls.computeIfAbsent(request.key().get(BikeItems.KEY).s(), id -> new AtomicInteger()).incrementAndGet();
        return dynamo.getItem(request);
    }

    @Override
    public CompletableFuture<QueryResponse> query(QueryRequest request) {
        return dynamo.query(request);
    }

    private <Q, R> CompletableFuture<R> sent(Map<String, AttributeValue> key, Q request,
            Function<Q, CompletableFuture<R>> send) {
        AttributeValue bikeId = key.get(BikeItems.KEY);
        if (bikeId != null) {
            storeCalls.computeIfAbsent(bikeId.s(), id -> new AtomicInteger()).incrementAndGet();
        }
        if (bikeId != null && resentIntoTransaction.remove(bikeId.s())) {
            return send.apply(request).thenCompose(lost -> inTransaction());
        }
        AtomicInteger refusals = bikeId == null ? null : inTransaction.get(bikeId.s());
        if (refusals != null && refusals.getAndDecrement() > 0) {
            return inTransaction();
        }
        AtomicInteger before = bikeId == null ? null : resent.get(bikeId.s());
        if (before == null || before.getAndDecrement() > 0 || !resent.remove(bikeId.s(), before)) {
            return send.apply(request);
        }
        return send.apply(request).thenCompose(lost -> send.apply(request));
    }

    /** What DynamoDB answers, without applying the write, while a TransactWriteItems writes the item. */
    private static <R> CompletableFuture<R> inTransaction() {
        return CompletableFuture.failedFuture(TransactionConflictException.builder()
                .message("Transaction is ongoing for the item").build());
    }

    @Override
    public String serviceName() {
        return dynamo.serviceName();
    }

    @Override
    public void close() {
        // the real client belongs to the application
    }
}
