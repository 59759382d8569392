package dev.turnstile.booking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import dev.turnstile.identity.Tokens;
import io.restassured.RestAssured;
import io.vertx.core.json.JsonObject;

/** Every fare view is one snapshot: available + booked = total in each answer, even in the middle of a burst. */
@QuarkusTest
class FareSnapshotTest {

    @Test
    void twoHundredViewsDuringABurstAllAddUp() {
        String flight = "VIEW-" + UUID.randomUUID();
        BookingClient client = new BookingClient();
        client.putFare(flight, "Y", 400, 0, 4);
        String reader = Tokens.customer("fare-reader");
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        URI fare = URI.create(RestAssured.baseURI + ":" + RestAssured.port + "/flights/" + flight + "/fares/Y");

        client.mintTokens(IntStream.range(0, 300).mapToObj(i -> "p" + i).toList(), false);
        List<CompletableFuture<BookingClient.Answer>> burst = IntStream.range(0, 300)
                .mapToObj(i -> client.bookUntilFinal(flight, "Y", i % 2 == 0 ? "sharded" : "atomic", "p" + i, false)).toList();
        List<CompletableFuture<String>> views = IntStream.range(0, 200)
                .mapToObj(i -> http.sendAsync(HttpRequest.newBuilder(fare).header("Authorization", "Bearer " + reader).build(), HttpResponse.BodyHandlers.ofString())
                        .thenApply(response -> {
                            assertEquals(200, response.statusCode(), response.body());
                            return response.body();
                        }))
                .toList();
        burst.forEach(CompletableFuture::join);

        long inconsistent = views.stream().map(CompletableFuture::join).map(JsonObject::new)
                .filter(v -> v.getInteger("seatsAvailable") + v.getInteger("booked") != v.getInteger("seatsTotal")).count();
        assertEquals(0, inconsistent, "views where seatsAvailable + booked != seatsTotal");
        JsonObject last = new JsonObject(http.sendAsync(HttpRequest.newBuilder(fare).header("Authorization", "Bearer " + reader).build(), HttpResponse.BodyHandlers.ofString())
                .join().body());
        assertEquals(100, last.getInteger("seatsAvailable"));
        assertTrue(last.getInteger("booked") == 300);
    }
}
