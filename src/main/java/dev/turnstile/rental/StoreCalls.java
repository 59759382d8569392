package dev.turnstile.rental;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * DynamoDB calls as {@link Uni}s that come back on the caller's Vert.x context.
 *
 * <p>The prod profile lets the AWS SDK complete its futures on the aws-crt I/O thread that read the answer
 * ({@code use-future-completion-thread-pool=false}) instead of handing each one to the worker pool, from where
 * SmallRye Fault Tolerance and Quarkus REST each hopped back to the event loop. Nothing of ours may then run on
 * that I/O thread: the next call of a read-decide-write would be made from it, and the SDK warns that it may block
 * there, which stalls every connection that thread serves. So every call captures the context it is subscribed on
 * and emits there: one hop, I/O thread to event loop. Subscribed outside any context (start-up, a test's own
 * thread) it emits on the worker pool, as the SDK's default did.
 */
final class StoreCalls {

    private StoreCalls() {
    }

    static <T> Uni<T> call(Supplier<? extends CompletionStage<T>> request) {
        return Uni.createFrom().deferred(() -> {
            Context caller = Vertx.currentContext();
            Executor back = caller != null ? task -> caller.runOnContext(ignored -> task.run())
                    : Infrastructure.getDefaultWorkerPool();
            return Uni.createFrom().completionStage(request).emitOn(back);
        });
    }
}
