package dev.turnstile.problem;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.turnstile.Management;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.Response;

/**
 * A method the path does not have is a 405 that names the ones it has ({@code Allow}, RFC 9110 15.5.6), and OPTIONS
 * names exactly those: before, the 405 had no {@code Allow}, and OPTIONS listed every method of the resource class on
 * any path below it, a path of no resource included.
 */
@QuarkusTest
class AllowedMethodsTest {

    @Test
    void theTableIsTheApiTheOpenApiDocumentDescribes() {
        assertEquals(Management.documentedRoutes(), AllowedMethods.declared());
    }

    @Test
    void a405NamesTheMethodsThePathHasAndChangesNothing() {
        String bikeId = "allow-" + UUID.randomUUID();
        asStaff().contentType(ContentType.JSON).body("{\"bikeId\":\"" + bikeId + "\",\"station\":\"harbour\"}").post("/bikes")
                .then().statusCode(201);
        String before = asStaff().get("/bikes/" + bikeId).asString();

        refused("PUT", "/bikes/" + bikeId, "GET, HEAD, PATCH, DELETE, OPTIONS");
        refused("GET", "/bikes/" + bikeId + "/rent", "POST, OPTIONS");
        refused("PUT", "/bikes", "GET, HEAD, POST, OPTIONS");
        refused("GET", "/bikes/" + bikeId + "/lease", "POST, DELETE, OPTIONS");
        refused("DELETE", "/flights/F1/fares/Y", "GET, HEAD, PUT, OPTIONS");
        refused("POST", "/flights/F1/fares/Y/audit", "GET, HEAD, OPTIONS");
        refused("GET", "/flights/F1/fares/Y/bookings", "POST, OPTIONS");
        refused("PATCH", "/bookings/00000000-0000-4000-8000-000000000000", "GET, HEAD, DELETE, OPTIONS");
        refused("PUT", "/bikes/", "GET, HEAD, POST, OPTIONS");

        assertEquals(before, asStaff().get("/bikes/" + bikeId).asString(), "a refused method must not write");
    }

    @Test
    void optionsNamesThePathsOwnMethods() {
        assertEquals("GET, HEAD, OPTIONS", options("/flights/F1/fares/Y/audit"));
        assertEquals("GET, HEAD, PATCH, DELETE, OPTIONS", options("/bikes/b1"));
        assertEquals("POST, OPTIONS", options("/bikes/b1/return"));
        assertEquals("GET, HEAD, DELETE, OPTIONS", options("/bookings/b"));
        assertEquals("GET, HEAD, PATCH, DELETE, OPTIONS", options("/bikes/b1/"));

        for (String nowhere : new String[] { "/nope", "/flights/F1", "/bikes/b1/nope" }) {
            Response answer = RestAssured.given().request("OPTIONS", nowhere);
            assertEquals(404, answer.statusCode(), nowhere);
            assertTrue(answer.contentType().startsWith("application/problem+json"), nowhere);
            assertEquals("NOT_FOUND", answer.jsonPath().getString("reason"), nowhere);
            assertTrue(answer.headers().getValues("Allow").isEmpty(), nowhere);
        }
    }

    private static void refused(String method, String path, String allow) {
        Response answer = asStaff().contentType(ContentType.JSON).body("{}").request(method, path);
        assertEquals(405, answer.statusCode(), method + " " + path);
        assertEquals(allow, allow(answer), method + " " + path);
        assertTrue(answer.contentType().startsWith("application/problem+json"), method + " " + path);
        assertEquals("METHOD_NOT_ALLOWED", answer.jsonPath().getString("reason"), method + " " + path);
    }

    private static String options(String path) {
        Response answer = RestAssured.given().request("OPTIONS", path);
        assertEquals(204, answer.statusCode(), path);
        return allow(answer);
    }

    /** One list, however many lines carry it: the Lambda adapter sends each element of a list header on its own. */
    private static String allow(Response answer) {
        return String.join(", ", answer.headers().getValues("Allow"));
    }
}
