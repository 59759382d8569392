package dev.turnstile.rental;

import java.util.concurrent.ScheduledThreadPoolExecutor;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClientBuilder;

/**
 * The DynamoDB client as the extension configures it, with a timer of its own for the SDK's deadlines.
 *
 * <p>The SDK arms two timers per call ({@code api-call-timeout} and {@code api-call-attempt-timeout}) from the
 * request's event loop and cancels them when the answer comes. The extension hands it Quarkus' executor for them,
 * which keeps a cancelled timer queued until its time would have come, and with it the context of the request that
 * armed it (its Vert.x context and request-scoped beans): at about 5 000 reads/s and the prod deadlines of 5 s and 2 s,
 * some 21 000 timers held half the 96 MB heap's live set (45-48 MB after a full collection, 21 MB without them), and
 * a full collection of about 100 ms every 3 s set the reads' p99 (docs/rental.md, "Deadline timers"). A
 * {@link ScheduledThreadPoolExecutor} that removes a timer when it is cancelled holds only the calls in flight, and
 * captures no context. Producing the client from the builder the extension configured is its documented way to change
 * a client it builds; everything else of that configuration is kept. The SDK also starts its delayed retries (throttling,
 * 5xx) from this executor; one thread is enough, as each task only aborts a call or sends the next attempt, whose I/O
 * is the CRT's. A singleton: a client proxy of this class would make an executor of its own.
 */
@Singleton
public class DynamoDbDeadlines {

    private final ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1, task -> {
        Thread thread = new Thread(task, "dynamodb-deadlines");
        thread.setDaemon(true);
        return thread;
    });

    DynamoDbDeadlines() {
        timers.setRemoveOnCancelPolicy(true);
    }

    @Produces
    @ApplicationScoped
    DynamoDbAsyncClient client(DynamoDbAsyncClientBuilder configured) {
        ClientOverrideConfiguration overrides = configured.overrideConfiguration();
        return configured.overrideConfiguration(overrides.toBuilder().scheduledExecutorService(timers).build()).build();
    }

    void close(@Disposes DynamoDbAsyncClient client) {
        client.close();
        timers.shutdownNow();
    }

    /** Timers armed and not yet fired or cancelled: one or two per call in flight. */
    public int armed() {
        return timers.getQueue().size();
    }
}
