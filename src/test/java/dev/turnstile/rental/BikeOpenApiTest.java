package dev.turnstile.rental;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import dev.turnstile.Management;
import io.quarkus.test.junit.QuarkusTest;

/**
 * /q/openapi is a contract a client generator can use: every /bikes operation documents each status it can answer,
 * successes as JSON and every error as application/problem+json with the Problem schema.
 */
@QuarkusTest
class BikeOpenApiTest {

    /** Method and path -> the statuses the operation can give (besides 500). */
    private static final Map<String, Set<String>> STATUSES = new TreeMap<>(Map.of(
            "post /bikes", Set.of("201", "400", "401", "403", "409", "503"),
            "get /bikes", Set.of("200", "400", "401", "403", "503"),
            "get /bikes/{bikeId}", Set.of("200", "304", "400", "401", "403", "404", "412", "503"),
            "patch /bikes/{bikeId}", Set.of("200", "400", "401", "403", "404", "409", "412", "428", "503"),
            "delete /bikes/{bikeId}", Set.of("204", "400", "401", "403", "404", "409", "412", "428", "503"),
            "post /bikes/{bikeId}/rent", Set.of("200", "400", "401", "403", "404", "409", "412", "422", "429", "503"),
            "post /bikes/{bikeId}/return", Set.of("200", "400", "401", "403", "404", "409", "412", "422", "429", "503"),
            "post /bikes/{bikeId}/service", Set.of("200", "400", "401", "403", "404", "409", "412", "422", "503"),
            "post /bikes/{bikeId}/lease", Set.of("201", "400", "401", "403", "404", "409", "503"),
            "delete /bikes/{bikeId}/lease", Set.of("204", "400", "401", "403", "409", "503")));

    @Test
    @SuppressWarnings("unchecked")
    void everyBikeOperationDocumentsItsStatusesAndEveryErrorIsAProblem() {
        Map<String, Object> paths = Management.given().queryParam("format", "json").get("/q/openapi")
                .then().statusCode(200).extract().jsonPath().getMap("paths");

        STATUSES.forEach((operation, statuses) -> {
            String[] methodAndPath = operation.split(" ");
            Map<String, Object> path = (Map<String, Object>) paths.get(methodAndPath[1]);
            assertTrue(path != null && path.containsKey(methodAndPath[0]), operation + " is documented");
            Map<String, Object> responses = (Map<String, Object>) ((Map<String, Object>) path.get(methodAndPath[0])).get("responses");
            assertEquals(statuses, responses.keySet(), operation);
            responses.forEach((status, response) -> {
                Map<String, Object> content = (Map<String, Object>) ((Map<String, Object>) response).get("content");
                if (status.startsWith("4") || status.startsWith("5")) {
                    Map<String, Object> problem = (Map<String, Object>) content.get("application/problem+json");
                    assertEquals(Set.of("application/problem+json"), content.keySet(), operation + " " + status);
                    assertEquals("#/components/schemas/Problem", ((Map<String, Object>) problem.get("schema")).get("$ref"),
                            operation + " " + status);
                } else if (status.equals("204") || status.equals("304")) {
                    assertTrue(content == null || content.isEmpty(), operation + " " + status + " has no body");
                } else {
                    assertEquals(Set.of("application/json"), content.keySet(), operation + " " + status);
                }
            });
        });
    }

    @Test
    void rentReturnAndServiceDocumentIfMatch() {
        for (String action : List.of("rent", "return", "service")) {
            List<String> headers = Management.given().queryParam("format", "json").get("/q/openapi")
                    .then().statusCode(200).extract().jsonPath()
                    .getList("paths.'/bikes/{bikeId}/" + action + "'.post.parameters.findAll { it.in == 'header' }.name");
            assertTrue(headers.contains("If-Match"), action + " documents If-Match: " + headers);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void theRentModeIsDocumentedByItsValues() {
        List<Map<String, Object>> parameters = Management.given().queryParam("format", "json").get("/q/openapi")
                .then().statusCode(200).extract().jsonPath().getList("paths.'/bikes/{bikeId}/rent'.post.parameters");
        Map<String, Object> mode = parameters.stream().filter(p -> "mode".equals(p.get("name"))).findFirst().orElseThrow();

        List<String> values = (List<String>) ((Map<String, Object>) mode.get("schema")).get("enum");
        assertEquals(List.of("condition", "read-decide-write"), values);
        assertFalse(values.contains("CONDITION"));
    }
}
