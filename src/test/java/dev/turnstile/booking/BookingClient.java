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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import dev.turnstile.identity.Tokens;
import io.restassured.RestAssured;
import io.vertx.core.json.JsonObject;

/**
 * Real parallel HTTP for the concurrency tests: requests are all in flight at once, each on its own connection. Each
 * booking carries its passenger's own customer token (an elite one for an elite passenger), so the seat rules see the
 * token's elite status as in production; fares are put by staff.
 */
final class BookingClient {

    /**
     * Answers a client may retry: the service said "not now", not "no". STORE_UNAVAILABLE too: with hundreds of
     * ungated buyers on one row, a retry queued behind them can wait out the pool's acquire timeout on a loaded
     * machine, and nothing was written then (these tests inject no store fault).
     */
    private static final Set<String> TRANSIENT = Set.of("CONTENTION", "BUSY", "TIMEOUT", "STORE_UNAVAILABLE");
    /** The per-account attempt limit: a passenger retrying under heavy contention waits out Retry-After, as a client would. */
    private static final String TOO_MANY_ATTEMPTS = "TOO_MANY_ATTEMPTS";

    private final String staffToken = Tokens.staff("booking-client");
    private final Map<String, String> customerTokens = new ConcurrentHashMap<>();

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
                .header("Authorization", "Bearer " + staffToken).header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(body)).build()).join();
        if (answer.status() != 201 && answer.status() != 200) {
            throw new AssertionError("PUT fare answered " + answer.status() + " " + answer.body());
        }
    }

    /**
     * Mints the tokens of these passengers now, so that a burst that follows spends no time signing (about 1 ms
     * each).
     */
    void mintTokens(List<String> passengerIds, boolean elite) {
        passengerIds.forEach(passengerId -> token(passengerId, elite));
    }

    /** The passenger's own customer token: elite status comes from the token, the body's elite is ignored. */
    String token(String passengerId, boolean elite) {
        return customerTokens.computeIfAbsent((elite ? "elite:" : "plain:") + passengerId,
                ignored -> elite ? Tokens.eliteCustomer(passengerId) : Tokens.customer(passengerId));
    }

    /** One booking request as the passenger; {@code idempotencyKey} may be null. */
    CompletableFuture<Answer> book(String flightId, String fareClass, String strategy, String passengerId, boolean elite,
            String idempotencyKey) {
        String body = new JsonObject(Map.of("passengerId", passengerId, "elite", elite)).encode();
        HttpRequest.Builder request = HttpRequest.newBuilder(uri("/flights/" + flightId + "/fares/" + fareClass
                + "/bookings" + (strategy == null ? "" : "?strategy=" + strategy)))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token(passengerId, elite)).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (idempotencyKey != null) {
            request.header("Idempotency-Key", idempotencyKey);
        }
        return send(request.build());
    }

    /** {@code GET path} as staff. */
    CompletableFuture<Answer> get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + staffToken).GET().build());
    }

    /** Books, and retries CONTENTION/BUSY/TIMEOUT (after a short random pause) until a final answer. */
    CompletableFuture<Answer> bookUntilFinal(String flightId, String fareClass, String strategy, String passengerId,
            boolean elite) {
        return bookUntilFinal(flightId, fareClass, strategy, passengerId, elite, 1);
    }

    private CompletableFuture<Answer> bookUntilFinal(String flightId, String fareClass, String strategy, String passengerId,
            boolean elite, int attempt) {
        return book(flightId, fareClass, strategy, passengerId, elite, null).thenCompose(answer -> {
            boolean limited = answer.status() == 429 && TOO_MANY_ATTEMPTS.equals(answer.reason());
            if (answer.status() >= 400 && (limited || TRANSIENT.contains(answer.reason())) && attempt < 200) {
                long pause = limited ? 1000 + ThreadLocalRandom.current().nextLong(0, 50)
                        : ThreadLocalRandom.current().nextLong(5, 50);
                return CompletableFuture.supplyAsync(() -> null, CompletableFuture.delayedExecutor(pause, TimeUnit.MILLISECONDS))
                        .thenCompose(ignored -> bookUntilFinal(flightId, fareClass, strategy, passengerId, elite, attempt + 1));
            }
            return CompletableFuture.completedFuture(new Answer(answer.status(), answer.body(), attempt));
        });
    }

    /** Starts all {@code count} bookings before waiting for any, then waits for all final answers. */
    List<Answer> flashSale(String flightId, String fareClass, String strategy, int count) {
        List<String> passengers = IntStream.range(0, count).mapToObj(i -> "passenger-" + i).toList();
        mintTokens(passengers, false);
        List<CompletableFuture<Answer>> inFlight = passengers.stream()
                .map(passenger -> bookUntilFinal(flightId, fareClass, strategy, passenger, false)).toList();
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
