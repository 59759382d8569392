package dev.turnstile.rental;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Destroyed;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import software.amazon.awssdk.crt.CRT;

/**
 * Keeps the aws-crt runtime up until the DynamoDB client has closed. aws-crt registers its own JVM shutdown hook,
 * which runs beside Quarkus's and tears the CRT's event loops down at once: on SIGTERM every DynamoDB call in flight,
 * and every one made while Quarkus still serves (quarkus.shutdown.delay, then the drain of quarkus.shutdown.timeout),
 * hung until the caller gave up, and readiness said DynamoDB was DOWN. aws-crt postpones that teardown while a
 * shutdown reference is held; this one is let go when the application context, the client's scope, is destroyed.
 */
@Singleton
class AwsCrtLifetime {

    private volatile boolean held;

    /** On a worker thread: the CRT class loads its native library (140-180 ms here), which need not delay the start. */
    void hold(@Observes StartupEvent start) {
        Infrastructure.getDefaultWorkerPool().execute(() -> {
            CRT.acquireShutdownRef();
            held = true;
        });
    }

    void release(@Observes @Destroyed(ApplicationScoped.class) Object context) {
        if (held) {
            held = false;
            CRT.releaseShutdownRef();
        }
    }
}
