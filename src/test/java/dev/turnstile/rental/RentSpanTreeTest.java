package dev.turnstile.rental;

import static dev.turnstile.identity.Tokens.asStaff;
import static dev.turnstile.rental.RentalHttp.unique;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.turnstile.observability.RecordedSpans;
import dev.turnstile.retry.RaceAttempts;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * The trace of one rent that lost a race once ({@link ContendedBikeRepository} lets a real writer change the bike
 * after the first read): one trace, the server span at its root, two attempt spans under it (retried, then won), and
 * the DynamoDB calls of each attempt under that attempt.
 */
@QuarkusTest
class RentSpanTreeTest {

    private static final AttributeKey<String> URL_PATH = AttributeKey.stringKey("url.path");
    private static final AttributeKey<String> RPC_METHOD = AttributeKey.stringKey("rpc.method");

    @Inject
    ContendedBikeRepository repository;

    @Inject
    RecordedSpans recorded;

    @Test
    void aRentThatLostARaceOnceIsOneTraceWithTwoAttempts() throws InterruptedException {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 4);
        repository.contend(bikeId, 1);

        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-1")).post("/bikes/" + bikeId + "/rent")
                .then().statusCode(200).body("rentedBy", is("c-1")).body("version", is(3));

        SpanData server = serverSpan("/bikes/" + bikeId + "/rent");
        List<SpanData> trace = settledTrace(server.getTraceId());
        assertFalse(server.getParentSpanContext().isValid(), "the server span is the root");

        List<SpanData> attempts = trace.stream().filter(span -> span.getName().equals("rental.attempt"))
                .sorted(Comparator.comparing(span -> span.getAttributes().get(RaceAttempts.NUMBER))).toList();
        assertEquals(2, attempts.size(), render(trace));
        for (SpanData attempt : attempts) {
            assertEquals(server.getSpanId(), attempt.getParentSpanId(), "every attempt hangs from the request");
            assertEquals("rental", attempt.getAttributes().get(RaceAttempts.WING));
        }
        assertEquals("retried", attempts.get(0).getAttributes().get(RaceAttempts.OUTCOME));
        assertEquals("won", attempts.get(1).getAttributes().get(RaceAttempts.OUTCOME));
        assertTrue(attempts.get(0).getEndEpochNanos() <= attempts.get(1).getStartEpochNanos(),
                "the lost attempt ended before the next began");

        for (SpanData attempt : attempts) {
            List<String> calls = children(trace, attempt).stream()
                    .filter(span -> span.getKind() == SpanKind.CLIENT)
                    .map(span -> span.getAttributes().get(RPC_METHOD)).toList();
            assertTrue(calls.contains("GetItem"), "attempt " + attempt.getAttributes().get(RaceAttempts.NUMBER)
                    + " reads the bike under its own span:\n" + render(trace));
        }
    }

    private SpanData serverSpan(String path) throws InterruptedException {
        for (int polls = 0; polls < 200; polls++) {
            List<SpanData> found = recorded.matching(span -> span.getKind() == SpanKind.SERVER
                    && path.equals(span.getAttributes().get(URL_PATH)));
            if (!found.isEmpty()) {
                return found.get(0);
            }
            Thread.sleep(25);
        }
        return fail("no server span for " + path);
    }

    /** The trace once no span has been added to it for a while: spans arrive in batches. */
    private List<SpanData> settledTrace(String traceId) throws InterruptedException {
        List<SpanData> trace = recorded.trace(traceId);
        for (int stable = 0; stable < 4; ) {
            Thread.sleep(50);
            List<SpanData> now = recorded.trace(traceId);
            stable = now.size() == trace.size() ? stable + 1 : 0;
            trace = now;
        }
        return trace;
    }

    private static List<SpanData> children(List<SpanData> trace, SpanData parent) {
        return trace.stream().filter(span -> span.getParentSpanId().equals(parent.getSpanId())).toList();
    }

    private static String render(List<SpanData> trace) {
        Map<String, SpanData> byId = trace.stream().collect(Collectors.toMap(SpanData::getSpanId, Function.identity()));
        StringBuilder out = new StringBuilder();
        trace.stream().filter(span -> !byId.containsKey(span.getParentSpanId()))
                .forEach(root -> render(trace, root, 0, out));
        return out.toString();
    }

    private static void render(List<SpanData> trace, SpanData span, int depth, StringBuilder out) {
        out.append("  ".repeat(depth)).append(span.getName()).append(' ').append(span.getKind())
                .append(' ').append(span.getAttributes().asMap()).append('\n');
        children(trace, span).stream().sorted(Comparator.comparingLong(SpanData::getStartEpochNanos))
                .forEach(child -> render(trace, child, depth + 1, out));
    }
}
