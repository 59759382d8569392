package dev.turnstile.retry;

import java.time.Instant;
import java.util.function.Supplier;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.Cancellable;

/**
 * The attempts of one call that retries lost races, each traced as its own span ({@code <wing>.attempt}) under the
 * span that was current when the call began, so that the attempts Fault Tolerance runs later, from its own threads,
 * stay in the request's trace. What the attempt's own I/O does (DynamoDB calls, SQL statements) is traced under it.
 *
 * <p>Outcome ({@link #OUTCOME}): {@code won}; {@code retried} (lost a race, another attempt followed);
 * {@code exhausted} (lost a race, no attempt followed); {@code failed} (anything else, never retried). Whether a lost
 * race is retried is known only when the next attempt starts or the call ends, so that attempt's span is ended then,
 * with the time it lost at. One instance per call; Fault Tolerance runs its attempts one after the other.
 */
public final class RaceAttempts {

    public static final AttributeKey<String> WING = AttributeKey.stringKey("turnstile.wing");
    public static final AttributeKey<String> STRATEGY = AttributeKey.stringKey("turnstile.strategy");
    public static final AttributeKey<Long> NUMBER = AttributeKey.longKey("turnstile.attempt.number");
    public static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("turnstile.attempt.outcome");

    private final Tracer tracer;
    private final Context parent;
    private final String spanName;
    private final Attributes attributes;
    private final Class<? extends Throwable> lostRace;
    private int started;
    private Span lost;
    private Instant lostAt;

    RaceAttempts(Tracer tracer, String wing, Attributes attributes, Class<? extends Throwable> lostRace) {
        this.tracer = tracer;
        this.parent = Context.current();
        this.spanName = wing + ".attempt";
        this.attributes = attributes.toBuilder().put(WING, wing).build();
        this.lostRace = lostRace;
    }

    /** One attempt: {@code work} is called and subscribed to with the attempt's span current. */
    public <T> Uni<T> attempt(Supplier<Uni<T>> work) {
        return Uni.createFrom().<T>emitter(emitter -> {
            Span span = begin();
            try (Scope ignored = span.makeCurrent()) {
                Cancellable running = Uni.createFrom().deferred(work::get).subscribe().with(
                        item -> {
                            won(span);
                            emitter.complete(item);
                        },
                        failure -> {
                            ended(span, failure);
                            emitter.fail(failure);
                        });
                emitter.onTermination(running::cancel);
            }
        });
    }

    /** The whole call, all its attempts: when it ends, a lost race no attempt followed was the last one. */
    public <T> Uni<T> settle(Uni<T> call) {
        return call.onTermination().invoke(() -> settleLost("exhausted"));
    }

    /** True from the second attempt on (read inside {@link #attempt}'s work). */
    public synchronized boolean retrying() {
        return started > 1;
    }

    private synchronized Span begin() {
        settleLost("retried");
        started++;
        return tracer.spanBuilder(spanName).setParent(parent).setAllAttributes(attributes)
                .setAttribute(NUMBER, (long) started).startSpan();
    }

    private static void won(Span span) {
        span.setAttribute(OUTCOME, "won");
        span.end();
    }

    private synchronized void ended(Span span, Throwable failure) {
        if (lostRace.isInstance(failure)) {
            lost = span;
            lostAt = Instant.now();
            return;
        }
        span.setAttribute(OUTCOME, "failed");
        span.setStatus(StatusCode.ERROR, failure.getClass().getSimpleName());
        span.end();
    }

    private synchronized void settleLost(String outcome) {
        if (lost != null) {
            lost.setAttribute(OUTCOME, outcome);
            if (outcome.equals("exhausted")) {
                lost.setStatus(StatusCode.ERROR, "lost every race");
            }
            lost.end(lostAt);
            lost = null;
        }
    }
}
