package dev.turnstile.identity;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.Response;

/**
 * CORS as an operator turns it on for a browser tool on another origin (a staff console editing bikes with If-Match):
 * the preflight admits the methods and headers the API uses, a script can read the ETag it must send back, no cookies
 * are asked for, and a write from an origin not named is refused before it reaches the API.
 */
@QuarkusTest
@TestProfile(CrossOriginTest.ConsoleOrigin.class)
class CrossOriginTest {

    private static final String CONSOLE = "https://console.example";

    public static class ConsoleOrigin implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.http.cors.enabled", "true", "quarkus.http.cors.origins", CONSOLE);
        }
    }

    @Test
    void thePreflightOfAnEditAdmitsItsMethodAndHeadersWithoutCredentials() {
        Response preflight = given().header("Origin", CONSOLE).header("Access-Control-Request-Method", "PATCH")
                .header("Access-Control-Request-Headers", "authorization,if-match,content-type").options("/bikes/b-1");
        preflight.then().statusCode(200).header("Access-Control-Allow-Origin", CONSOLE)
                .header("Access-Control-Allow-Credentials", not(is("true")));
        assertThat(joined(preflight, "Access-Control-Allow-Methods"), containsString("PATCH"));
        assertThat(joined(preflight, "Access-Control-Allow-Headers"), containsString("if-match"));
    }

    @Test
    void aScriptMayReadTheHeadersItFollows() {
        String bikeId = "cors-" + UUID.randomUUID();
        Response created = Tokens.asStaff().header("Origin", CONSOLE).contentType(ContentType.JSON)
                .body("{\"bikeId\":\"" + bikeId + "\",\"station\":\"harbour\"}").post("/bikes");
        created.then().statusCode(201).header("Access-Control-Allow-Origin", CONSOLE);
        String exposed = joined(created, "Access-Control-Expose-Headers");
        for (String header : List.of("ETag", "Location", "Link", "Retry-After", "Idempotent-Replayed")) {
            assertThat(exposed, containsString(header));
        }
    }

    /** Under -Plambda the adapter sends each value of a multi-valued header on a line of its own. */
    private static String joined(Response answer, String header) {
        return String.join(",", answer.headers().getValues(header));
    }

    @Test
    void aWriteFromAnOriginNotNamedIsRefusedAndWritesNothing() {
        String bikeId = "cors-" + UUID.randomUUID();
        Tokens.asStaff().header("Origin", "https://elsewhere.example").contentType(ContentType.JSON)
                .body("{\"bikeId\":\"" + bikeId + "\",\"station\":\"harbour\"}").post("/bikes").then().statusCode(403)
                .header("Access-Control-Allow-Origin", nullValue());
        Tokens.asStaff().get("/bikes/" + bikeId).then().statusCode(404);
    }
}
