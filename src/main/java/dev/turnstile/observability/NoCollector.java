package dev.turnstile.observability;

import java.util.Collection;

import jakarta.inject.Singleton;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.quarkus.arc.lookup.LookupIfProperty;

/**
 * Where finished spans go when no collector is named: nowhere. Quarkus' OTLP exporter steps aside for any span exporter
 * bean and would otherwise send to its default, localhost:4317, so dev, tests and a prod without a collector would try
 * that port and log every failure. Spans are still made: their trace ids are in the logs (docs/ship.md,
 * "Observability").
 *
 * <p>This bean exists only while neither endpoint is set ({@code quarkus.otel.exporter.otlp.endpoint}, which
 * {@code OTEL_EXPORTER_OTLP_ENDPOINT} feeds, or {@code ...traces.endpoint}): an empty value is no value to SmallRye
 * Config, so {@code stringValue = ""} never matches a set endpoint and only {@code lookupIfMissing} lets it in.
 */
@Singleton
@LookupIfProperty(name = "quarkus.otel.exporter.otlp.endpoint", stringValue = "", lookupIfMissing = true)
@LookupIfProperty(name = "quarkus.otel.exporter.otlp.traces.endpoint", stringValue = "", lookupIfMissing = true)
public class NoCollector implements SpanExporter {

    @Override
    public CompletableResultCode export(Collection<SpanData> spans) {
        return CompletableResultCode.ofSuccess();
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
