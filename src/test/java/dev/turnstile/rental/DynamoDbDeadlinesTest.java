package dev.turnstile.rental;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.common.vertx.VertxContext;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * The SDK arms deadline timers per call and cancels them when the answer comes: the scheduler it is given must let
 * go of a cancelled timer and of the request that armed it, or every finished request stays in the heap until its
 * deadline (5 s in prod), which at a few thousand reads a second was half the heap's live set and a full collection
 * every few seconds ({@link DynamoDbDeadlines}). The first test failed with Quarkus' executor, the extension's default.
 */
@QuarkusTest
class DynamoDbDeadlinesTest {

    @Inject
    DynamoDbAsyncClient dynamo;

    @Inject
    DynamoDbDeadlines deadlines;

    @Inject
    Vertx vertx;

    @Test
    void aCancelledDeadlineKeepsNothingOfItsRequest() throws InterruptedException {
        ScheduledExecutorService timers = dynamo.serviceClientConfiguration().overrideConfiguration()
                .scheduledExecutorService().orElseThrow();
        WeakReference<Object> request = armAndCancel(timers);
        for (int collections = 0; collections < 20 && request.get() != null; collections++) {
            System.gc();
            Thread.sleep(50);
        }
        assertTrue(request.get() == null, "the cancelled deadline still holds its request: " + timers.getClass().getName());
    }

    @Test
    void theTimersOfFinishedCallsAreGone() {
        String bike = RentalHttp.unique("deadline");
        BikeApiTest.create(bike, "harbour", 0);
        for (int read = 0; read < 50; read++) {
            asStaff().get("/bikes/" + bike).then().statusCode(200);
        }
        // two per call in flight: here none, or a readiness check's
        assertTrue(deadlines.armed() <= 4, "timers still armed after 51 finished calls: " + deadlines.armed());
    }

    /**
     * A deadline for a call an hour away, armed on a request's Vert.x context (where the SDK arms it: the call is made
     * from the event loop) and cancelled at once, as the SDK does when the answer comes first. What the request's
     * context holds stands for the call and its request.
     */
    private WeakReference<Object> armAndCancel(ScheduledExecutorService timers) throws InterruptedException {
        Object request = new byte[1 << 20];
        Context context = VertxContext.getOrCreateDuplicatedContext(vertx.getOrCreateContext());
        context.putLocal("request", request);
        CountDownLatch cancelled = new CountDownLatch(1);
        context.runOnContext(ignored -> {
            timers.schedule(() -> { }, 1, TimeUnit.HOURS).cancel(false);
            cancelled.countDown();
        });
        assertTrue(cancelled.await(10, TimeUnit.SECONDS));
        return new WeakReference<>(request);
    }
}
