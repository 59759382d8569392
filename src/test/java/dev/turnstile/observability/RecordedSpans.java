package dev.turnstile.observability;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.function.Predicate;

import jakarta.inject.Singleton;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;

/**
 * The tests' span exporter: keeps the most recent finished spans in memory, so a test can read the trace of its own
 * request. Bounded, because every @QuarkusTest of the suite runs with it (a bean in the test sources).
 */
@Singleton
public class RecordedSpans implements SpanExporter {

    private static final int KEPT = 20_000;

    private final Deque<SpanData> spans = new ArrayDeque<>();

    @Override
    public synchronized CompletableResultCode export(Collection<SpanData> finished) {
        for (SpanData span : finished) {
            if (spans.size() == KEPT) {
                spans.removeFirst();
            }
            spans.addLast(span);
        }
        return CompletableResultCode.ofSuccess();
    }

    public synchronized List<SpanData> matching(Predicate<SpanData> filter) {
        return spans.stream().filter(filter).toList();
    }

    public List<SpanData> trace(String traceId) {
        return matching(span -> span.getTraceId().equals(traceId));
    }

    @Override
    public CompletableResultCode flush() {
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
        return CompletableResultCode.ofSuccess();
    }
}
