package dev.turnstile.rental;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.turnstile.identity.Tokens;
import io.restassured.RestAssured;

/**
 * Truly parallel HTTP for the concurrency tests: one thread per request, all released by one start gate. Every request
 * carries a bearer token: staff's unless the test names its caller.
 */
final class RentalHttp {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private RentalHttp() {
    }

    record Answer(int status, JsonNode body, java.net.http.HttpHeaders headers) {

        String reason() {
            return body.path("reason").asText();
        }
    }

    static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Staff acting for the body's customer: not rate-limited, so hot loops of one account stay fast. */
    static final String STAFF = Tokens.staff("staff-test");

    static Answer post(String path, String json) {
        return post(path, json, null);
    }

    static Answer post(String path, String json, String idempotencyKey) {
        return post(path, json, idempotencyKey, STAFF);
    }

    /** A POST with {@code token} as the bearer (mint it before a burst: signing costs about a millisecond). */
    static Answer post(String path, String json, String idempotencyKey, String token) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://localhost:" + RestAssured.port + path))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        HttpRequest request = (idempotencyKey == null ? builder : builder.header("Idempotency-Key", idempotencyKey)).build();
        try {
            HttpResponse<String> response = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.body().isEmpty() ? JSON.nullNode() : JSON.readTree(response.body()),
                    response.headers());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Runs every call at the same moment (as far as the threads allow) and returns the answers in call order. */
    static <T> List<T> allAtOnce(List<Callable<T>> calls) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(calls.size());
        try {
            CountDownLatch ready = new CountDownLatch(calls.size());
            CountDownLatch start = new CountDownLatch(1);
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> call : calls) {
                futures.add(pool.submit(() -> {
                    ready.countDown();
                    start.await();
                    return call.call();
                }));
            }
            ready.await(10, TimeUnit.SECONDS);
            start.countDown();
            List<T> answers = new ArrayList<>();
            for (Future<T> future : futures) {
                answers.add(future.get(60, TimeUnit.SECONDS));
            }
            return answers;
        } finally {
            pool.shutdownNow();
        }
    }
}
