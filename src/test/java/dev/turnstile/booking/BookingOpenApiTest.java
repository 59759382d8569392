package dev.turnstile.booking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import dev.turnstile.Management;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.json.JsonObject;

/** /q/openapi documents every status a booking operation can answer, errors as problem documents. */
@QuarkusTest
class BookingOpenApiTest {

    private static final Map<String, Map<String, Set<String>>> DOCUMENTED = Map.of(
            "/flights/{flightId}/fares/{fareClass}", Map.of(
                    "put", Set.of("200", "201", "400", "401", "403", "409", "412", "503"),
                    "get", Set.of("200", "304", "400", "401", "403", "404", "412", "503")),
            "/flights/{flightId}/fares/{fareClass}/audit", Map.of(
                    "get", Set.of("200", "400", "401", "403", "404", "503")),
            "/flights/{flightId}/fares/{fareClass}/bookings", Map.of(
                    "post", Set.of("201", "400", "401", "403", "404", "409", "422", "429", "503")),
            "/bookings/{bookingId}", Map.of(
                    "get", Set.of("200", "304", "400", "401", "403", "404", "412", "503"),
                    "delete", Set.of("204", "400", "401", "403", "404", "412", "422", "503")));

    @Test
    void everyBookingOperationDocumentsItsStatusesWithTheProblemSchemaForErrors() {
        JsonObject paths = new JsonObject(Management.given().get("/q/openapi?format=json").then().statusCode(200).extract().asString())
                .getJsonObject("paths");
        DOCUMENTED.forEach((path, operations) -> operations.forEach((method, statuses) -> {
            JsonObject operation = paths.getJsonObject(path).getJsonObject(method);
            assertNotNull(operation, method + " " + path);
            JsonObject responses = operation.getJsonObject("responses");
            assertEquals(new TreeSet<>(statuses), new TreeSet<>(responses.fieldNames()), method + " " + path);
            for (String status : statuses) {
                JsonObject content = responses.getJsonObject(status).getJsonObject("content");
                if (status.startsWith("4") || status.startsWith("5")) {
                    assertEquals(List.of("application/problem+json"), List.copyOf(content.fieldNames()), method + " " + path + " " + status);
                    assertEquals("#/components/schemas/Problem",
                            content.getJsonObject("application/problem+json").getJsonObject("schema").getString("$ref"),
                            method + " " + path + " " + status);
                }
            }
        }));
    }

    @Test
    void aBookingMadeNamesItsLocationAndEtag() {
        JsonObject created = new JsonObject(Management.given().get("/q/openapi?format=json").then().statusCode(200).extract().asString())
                .getJsonObject("paths").getJsonObject("/flights/{flightId}/fares/{fareClass}/bookings").getJsonObject("post")
                .getJsonObject("responses").getJsonObject("201");
        assertEquals(new TreeSet<>(Set.of("Location", "ETag", "Idempotent-Replayed")), new TreeSet<>(created.getJsonObject("headers").fieldNames()));
    }

    @Test
    void theStrategyParameterListsEveryStrategy() {
        JsonObject post = new JsonObject(Management.given().get("/q/openapi?format=json").then().statusCode(200).extract().asString())
                .getJsonObject("paths").getJsonObject("/flights/{flightId}/fares/{fareClass}/bookings").getJsonObject("post");
        JsonObject strategy = post.getJsonArray("parameters").stream().map(JsonObject.class::cast)
                .filter(parameter -> "strategy".equals(parameter.getString("name"))).findFirst().orElseThrow();
        assertEquals(Strategy.labels(EnumSet.allOf(Strategy.class)).stream().sorted().toList(),
                strategy.getJsonObject("schema").getJsonArray("enum").getList().stream().sorted().toList());
    }
}
