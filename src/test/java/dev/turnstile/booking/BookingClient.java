package dev.turnstile.booking;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.restassured.RestAssured;
import io.vertx.core.json.JsonObject;

/** Real parallel HTTP for the concurrency tests: requests are all in flight at once, each on its own connection. */
final class BookingClient {

    /** Answers a client may retry: the service said "not now", not "no". */
    private static final Set<String> TRANSIENT = Set.of("CONTENTION", "BUSY", "TIMEOUT");

    private final URI base;
    private final HttpClient http = HttpClient.newBuilder()
            // HTTP/1.1: one connection per request in flight; an h2c upgrade would multiplex them onto a few
            // connections and hit the server's stream limit.
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    /** Where RestAssured points: the HTTP server, or the Lambda mock event server under -Plambda. */
    BookingClient() {
        this.base = URI.create(RestAssured.baseURI + ":" + RestAssured.port + "/");
    }

    record Answer(int status, String body, int attempts) {
        JsonObject json() {
            return new JsonObject(body);
        }

        String reason() {
            return status >= 400 ? json().getString("reason") : null;
        }
    }

    void putFare(String flightId, String fareClass, int seats, int eliteReserve, int shards) {
        String body = new JsonObject(Map.of("seats", seats, "eliteReserve", eliteReserve, "shards", shards)).encode();
        Answer answer = send(HttpRequest.newBuilder(uri("/flights/" + flightId + "/fares/" + fareClass))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(body)).build()).join();
        if (answer.status() != 201 && answer.status() != 200) {
            throw new AssertionError("PUT fare answered " + answer.status() + " " + answer.body());
        }
    }

    /** One booking request; {@code idempotencyKey} may be null. */
    CompletableFuture<Answer> book(String flightId, String fareClass, String strategy, String passengerId, boolean elite,
            String idempotencyKey) {
        String body = new JsonObject(Map.of("passengerId", passengerId, "elite", elite)).encode();
        HttpRequest.Builder request = HttpRequest.newBuilder(uri("/flights/" + flightId + "/fares/" + fareClass
                + "/bookings" + (strategy == null ? "" : "?strategy=" + strategy)))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (idempotencyKey != null) {
            request.header("Idempotency-Key", idempotencyKey);
        }
        return send(request.build());
    }

    /** Books, and retries CONTENTION/BUSY/TIMEOUT (after a short random pause) until a final answer. */
    CompletableFuture<Answer> bookUntilFinal(String flightId, String fareClass, String strategy, String passengerId,
            boolean elite) {
        return bookUntilFinal(flightId, fareClass, strategy, passengerId, elite, 1);
    }

    private CompletableFuture<Answer> bookUntilFinal(String flightId, String fareClass, String strategy, String passengerId,
            boolean elite, int attempt) {
        return book(flightId, fareClass, strategy, passengerId, elite, null).thenCompose(answer -> {
            if (answer.status() >= 400 && TRANSIENT.contains(answer.reason()) && attempt < 200) {
                return CompletableFuture.supplyAsync(() -> null, CompletableFuture.delayedExecutor(
                        ThreadLocalRandom.current().nextLong(5, 50), TimeUnit.MILLISECONDS))
                        .thenCompose(ignored -> bookUntilFinal(flightId, fareClass, strategy, passengerId, elite, attempt + 1));
            }
            return CompletableFuture.completedFuture(new Answer(answer.status(), answer.body(), attempt));
        });
    }

    /** Starts all {@code count} bookings before waiting for any, then waits for all final answers. */
    List<Answer> flashSale(String flightId, String fareClass, String strategy, int count) {
        List<CompletableFuture<Answer>> inFlight = IntStream.range(0, count)
                .mapToObj(i -> bookUntilFinal(flightId, fareClass, strategy, "passenger-" + i, false)).toList();
        return inFlight.stream().map(f -> f.orTimeout(90, TimeUnit.SECONDS).join()).toList();
    }

    private CompletableFuture<Answer> send(HttpRequest request) {
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                .thenApply(response -> new Answer(response.statusCode(), response.body(), 1));
    }

    private URI uri(String path) {
        return base.resolve(path);
    }
}
