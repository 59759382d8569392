package dev.turnstile.observability;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import dev.turnstile.retry.RaceAttempts;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * A booking is one trace too: its attempt span (with the strategy) under the server span, and its SQL statements
 * under the attempt, also when the booking waited for a connection (and at its fare's gate: {@link
 * GatedBookingSpanTreeTest}, since the test profile turns the gate off). Statements are traced
 * without their parameter values. And without a collector endpoint (as in tests) the spans go nowhere but
 * where a bean takes them: {@link NoCollector} stands in for the OTLP exporter, which would dial localhost:4317.
 */
@QuarkusTest
class BookingSpanTreeTest {

    private static final AttributeKey<String> URL_PATH = AttributeKey.stringKey("url.path");
    /** The statement text with its parameters as placeholders: the values (a passenger, a key) are not in the trace. */
    private static final AttributeKey<String> DB_STATEMENT = AttributeKey.stringKey("db.statement");

    @Inject
    RecordedSpans recorded;

    @ConfigProperty(name = "quarkus.datasource.reactive.max-size")
    int connections;

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

        assertStatementsUnderTheAttempt(server);
        List<SpanData> statements = recorded.matching(span -> span.getAttributes().get(DB_STATEMENT) != null);
        assertFalse(statements.isEmpty(), "SQL statements are traced");
        assertFalse(statements.stream().anyMatch(span -> span.getAttributes().get(DB_STATEMENT).contains("p-span")),
                "no traced statement carries a parameter value (the passenger id)");
    }

    /**
     * More bookings at once than the pool has connections: those that wait for a connection get it from the pool's
     * callback, and their statements were traced beside their attempt, under the server span, until
     * {@code BoundedTransactions} carried the attempt's trace context over to it.
     */
    @Test
    void bookingsThatWaitForAConnectionKeepTheirStatementsUnderTheirAttempt() throws Exception {
        String flight = "SPAN-" + UUID.randomUUID();
        List<String> paths = new ArrayList<>();
        for (int fare = 0; fare < 2 * connections; fare++) {
            asStaff().contentType(ContentType.JSON).body("{\"seats\":1,\"eliteReserve\":0,\"shards\":1}")
                    .put("/flights/" + flight + "/fares/Y" + fare).then().statusCode(201);
            paths.add("/flights/" + flight + "/fares/Y" + fare + "/bookings");
        }
        bookAtOnce(paths);
        assertEachBookingsStatementsUnderItsAttempt(paths);
    }

    /** One pessimistic booking per path, each a passenger of its own, all sent before any is answered: all 201. */
    static void bookAtOnce(List<String> paths) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(paths.size());
        try {
            List<Future<Integer>> answers = new ArrayList<>();
            for (int i = 0; i < paths.size(); i++) {
                String body = "{\"passengerId\":\"p-span-" + i + "\"}";
                String path = paths.get(i);
                answers.add(clients.submit(() -> asStaff().contentType(ContentType.JSON).body(body)
                        .post(path + "?strategy=pessimistic").statusCode()));
            }
            for (Future<Integer> answer : answers) {
                assertEquals(201, answer.get(30, TimeUnit.SECONDS));
            }
        } finally {
            clients.shutdownNow();
        }
    }

    /** One server span per path (a path twice: two bookings), each with its statements under its attempt. */
    void assertEachBookingsStatementsUnderItsAttempt(List<String> paths) throws InterruptedException {
        List<SpanData> servers = awaitAll(paths.size(), () -> recorded.matching(span -> span.getKind() == SpanKind.SERVER
                && paths.contains(span.getAttributes().get(URL_PATH))));
        assertEquals(paths.size(), servers.size());
        for (SpanData server : servers) {
            assertStatementsUnderTheAttempt(server);
        }
    }

    @Test
    void withoutACollectorEndpointNoCollectorTakesTheSpans() {
        List<String> beans = exporters.stream().map(exporter -> exporter.getClass().getName()).toList();
        assertTrue(beans.stream().anyMatch(type -> type.startsWith(NoCollector.class.getName())), beans.toString());
        assertFalse(exporters.isUnsatisfied());
    }

    /** The booking's locking read and its take are in the request's trace, each under the attempt that sent it. */
    private void assertStatementsUnderTheAttempt(SpanData server) {
        // its statements ended before it did, so they were exported with it or before it
        List<SpanData> trace = recorded.trace(server.getTraceId());
        Set<String> attempts = trace.stream().filter(span -> span.getName().equals("booking.attempt"))
                .map(SpanData::getSpanId).collect(Collectors.toSet());
        List<SpanData> statements = trace.stream().filter(span -> !statement(span).isEmpty()).toList();
        assertEquals(1, statements.stream().filter(span -> statement(span).contains("FOR UPDATE")).count(),
                "one locking read in the trace of " + server.getSpanId() + ": " + names(statements));
        assertEquals(1, statements.stream().filter(span -> statement(span).contains("INSERT INTO bookings")).count(),
                "one take in the trace of " + server.getSpanId() + ": " + names(statements));
        for (SpanData statement : statements) {
            assertTrue(attempts.contains(statement.getParentSpanId()),
                    "statement under an attempt of its own request: " + statement(statement) + ", found under "
                            + trace.stream().filter(span -> span.getSpanId().equals(statement.getParentSpanId()))
                                    .map(SpanData::getName).findFirst().orElse("a span not in this trace"));
        }
    }

    private static String statement(SpanData span) {
        String statement = span.getAttributes().get(DB_STATEMENT);
        return statement == null ? "" : statement;
    }

    private static String names(List<SpanData> spans) {
        return spans.stream().map(span -> statement(span).lines().findFirst().orElse("")).toList().toString();
    }

    /** At least {@code count} spans, once recorded. */
    private static List<SpanData> awaitAll(int count, Spans spans) throws InterruptedException {
        for (int polls = 0; polls < 200; polls++) {
            List<SpanData> found = spans.find();
            if (found.size() >= count) {
                return found;
            }
            Thread.sleep(25);
        }
        return fail("fewer than " + count + " spans recorded");
    }

    private interface Spans {
        List<SpanData> find();
    }

    /** The first span found; spans reach the recorder in batches, a few milliseconds after they end. */
    private static SpanData await(Spans spans) throws InterruptedException {
        return awaitAll(1, spans).get(0);
    }
}
