package dev.turnstile.observability;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import java.util.UUID;

import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.turnstile.retry.RaceAttempts;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * A booking is one trace too: its attempt span (with the strategy) under the server span. Its SQL statements are
 * traced without their parameter values. (They usually hang under the attempt, but not always: see docs/ship.md,
 * "Observability".) And without a collector endpoint (as in tests) the spans go nowhere but
 * where a bean takes them: {@link NoCollector} stands in for the OTLP exporter, which would dial localhost:4317.
 */
@QuarkusTest
class BookingSpanTreeTest {

    private static final AttributeKey<String> URL_PATH = AttributeKey.stringKey("url.path");
    /** The statement text with its parameters as placeholders: the values (a passenger, a key) are not in the trace. */
    private static final AttributeKey<String> DB_STATEMENT = AttributeKey.stringKey("db.statement");

    @Inject
    RecordedSpans recorded;

    @Inject
    @Any
    Instance<SpanExporter> exporters;

    @Test
    void aBookingIsOneTraceWithItsAttemptAndItsStatementsKeepNoValues() throws InterruptedException {
        String flight = "SPAN-" + UUID.randomUUID();
        asStaff().contentType(ContentType.JSON).body("{\"seats\":2,\"eliteReserve\":0,\"shards\":1}")
                .put("/flights/" + flight + "/fares/Y").then().statusCode(201);
        String path = "/flights/" + flight + "/fares/Y/bookings";
        asStaff().contentType(ContentType.JSON).body("{\"passengerId\":\"p-span\"}").post(path + "?strategy=pessimistic")
                .then().statusCode(201);

        SpanData server = await(() -> recorded.matching(span -> span.getKind() == SpanKind.SERVER
                && path.equals(span.getAttributes().get(URL_PATH))));
        SpanData attempt = await(() -> recorded.matching(span -> span.getName().equals("booking.attempt")
                && span.getTraceId().equals(server.getTraceId())));
        assertEquals(server.getSpanId(), attempt.getParentSpanId());
        assertEquals("pessimistic", attempt.getAttributes().get(RaceAttempts.STRATEGY));
        assertEquals("won", attempt.getAttributes().get(RaceAttempts.OUTCOME));
        assertEquals(1L, attempt.getAttributes().get(RaceAttempts.NUMBER));

        List<SpanData> statements = recorded.matching(span -> span.getAttributes().get(DB_STATEMENT) != null);
        assertFalse(statements.isEmpty(), "SQL statements are traced");
        assertFalse(statements.stream().anyMatch(span -> span.getAttributes().get(DB_STATEMENT).contains("p-span")),
                "no traced statement carries a parameter value (the passenger id)");
    }

    @Test
    void withoutACollectorEndpointNoCollectorTakesTheSpans() {
        List<String> beans = exporters.stream().map(exporter -> exporter.getClass().getName()).toList();
        assertTrue(beans.stream().anyMatch(type -> type.startsWith(NoCollector.class.getName())), beans.toString());
        assertFalse(exporters.isUnsatisfied());
    }

    private interface Spans {
        List<SpanData> find();
    }

    /** The first span found; spans reach the recorder in batches, a few milliseconds after they end. */
    private static SpanData await(Spans spans) throws InterruptedException {
        for (int polls = 0; polls < 200; polls++) {
            List<SpanData> found = spans.find();
            if (!found.isEmpty()) {
                return found.get(0);
            }
            Thread.sleep(25);
        }
        return fail("span not recorded");
    }
}
