package dev.turnstile.json;

import static dev.turnstile.identity.Tokens.asCustomer;
import static dev.turnstile.identity.Tokens.asStaff;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.turnstile.LambdaMode;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

/**
 * The README's promise of strict input: no field is guessed (a number is not a string, a string is not a boolean),
 * no field is ignored, and the errors Vert.x answers before JAX-RS (body too large, a broken URL) are problem
 * documents like every other. Each refusal leaves the stored bike or fare as it was.
 */
@QuarkusTest
class StrictInputTest {

    private String bikeId;
    private String flightId;

    @BeforeEach
    void aBikeAndAFare() {
        bikeId = "strict-" + UUID.randomUUID();
        bikeJson("{\"bikeId\":\"" + bikeId + "\",\"station\":\"harbour\"}").post("/bikes").then().statusCode(201);
        flightId = "strict-" + UUID.randomUUID();
        staffJson("{\"seats\":5}").put(farePath()).then().statusCode(201);
    }

    @Test
    void aNumberIsNotACustomerId() {
        Map<String, Object> before = bike();
        refused(bikeJson("{\"customerId\":5}").post("/bikes/" + bikeId + "/rent"), "customerId");
        refused(bikeJson("{\"customerId\":5.5}").post("/bikes/" + bikeId + "/rent"), "customerId");
        refused(bikeJson("{\"customerId\":true}").post("/bikes/" + bikeId + "/rent"), "customerId");
        assertEquals(before, bike(), "a refused rent must not write");
    }

    @Test
    void aNumberIsNotAPassengerId() {
        Map<String, Object> before = fare();
        refused(passengerJson("{\"passengerId\":5}").post(farePath() + "/bookings"), "passengerId");
        assertEquals(before, fare(), "a refused booking must not sell a seat");
    }

    @Test
    void aBooleanIsNotAStringOrANumber() {
        Map<String, Object> before = fare();
        refused(passengerJson("{\"passengerId\":\"p-1\",\"elite\":\"true\"}").post(farePath() + "/bookings"), "elite");
        refused(passengerJson("{\"passengerId\":\"p-1\",\"elite\":1}").post(farePath() + "/bookings"), "elite");
        assertEquals(before, fare());
    }

    @Test
    void anUnknownFieldIsNamed() {
        Map<String, Object> bikeBefore = bike();
        refused(bikeJson("{\"customerId\":\"c-1\",\"customer\":\"c-1\"}").post("/bikes/" + bikeId + "/rent"), "customer");
        assertEquals(bikeBefore, bike());
        Map<String, Object> fareBefore = fare();
        refused(passengerJson("{\"passengerId\":\"p-1\",\"vip\":true}").post(farePath() + "/bookings"), "vip");
        refused(staffJson("{\"seats\":9,\"seat\":9}").put(farePath()), "seat");
        assertEquals(fareBefore, fare());
    }

    @Test
    void aNumberTooLargeForItsFieldIsCalledOutOfRange() {
        Map<String, Object> before = fare();
        staffJson("{\"seats\":99999999999}").put(farePath())
                .then().log().ifValidationFails().statusCode(400).contentType("application/problem+json")
                .body("reason", is("INVALID_REQUEST"))
                .body("errors[0].field", is("seats"))
                .body("errors[0].message", is("is out of range (expected an integer)"));
        assertEquals(before, fare(), "a refused reset must not change the fare");
    }

    /**
     * A number longer than Jackson reads (1 000 digits) is well-formed JSON: it was answered MALFORMED_JSON, "not valid
     * JSON". Jackson stops at the token without saying whose value it was, so the field cannot be named.
     */
    @Test
    void aNumberTooLongToReadIsAnInvalidRequestNotMalformedJson() {
        String tooLong = "1" + "0".repeat(1_100);
        Map<String, Object> fareBefore = fare();
        tooLarge(staffJson("{\"seats\":" + tooLong + "}").put(farePath()));
        tooLarge(passengerJson("{\"passengerId\":\"p-1\",\"elite\":" + tooLong + "}").post(farePath() + "/bookings"));
        assertEquals(fareBefore, fare(), "a refused request must not change the fare");
        Map<String, Object> bikeBefore = bike();
        tooLarge(bikeJson("{\"customerId\":" + tooLong + "}").post("/bikes/" + bikeId + "/rent"));
        assertEquals(bikeBefore, bike(), "a refused rent must not write");
    }

    private static void tooLarge(Response response) {
        response.then().log().ifValidationFails().statusCode(400).contentType("application/problem+json")
                .body("reason", is("INVALID_REQUEST"))
                .body("detail", containsString("a number of too many digits"));
    }

    /** Well-formed JSON of the wrong shape is an invalid request, not a malformed one. */
    @Test
    void aBodyThatIsNotAnObjectIsSaidToBeOne() {
        Map<String, Object> before = fare();
        for (String body : List.of("[]", "[{\"seats\":9}]", "9", "\"seats\"", "true")) {
            staffJson(body).put(farePath())
                    .then().log().ifValidationFails().statusCode(400).contentType("application/problem+json")
                    .body("reason", is("INVALID_REQUEST"))
                    .body("detail", is("The request body must be a JSON object"));
        }
        passengerJson("[]").post(farePath() + "/bookings")
                .then().statusCode(400).body("detail", is("The request body must be a JSON object"));
        assertEquals(before, fare(), "a refused request must not change the fare");
        staffJson("{\"seats\":").put(farePath()).then().statusCode(400).body("reason", is("MALFORMED_JSON"));
    }

    /**
     * JSON is UTF-8 (RFC 8259 8.1): a body with bytes that are not, such as a Latin-1 e-acute, is malformed, whatever
     * charset its Content-Type names. Before, it was "has the wrong type (expected another type)" on the field.
     */
    @Test
    void aBodyThatIsNotUtf8IsMalformed() {
        Assumptions.assumeFalse(LambdaMode.active(),
                "under -Plambda the mock event server carries the body as text: the bytes arrive already decoded, each bad one as U+FFFD");
        Map<String, Object> before = fare();
        byte[] latin1 = "{\"passengerId\":\"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1);
        for (String contentType : List.of("application/json", "application/json; charset=ISO-8859-1")) {
            asStaff().contentType(contentType).body(latin1).post(farePath() + "/bookings")
                    .then().log().ifValidationFails().statusCode(400).contentType("application/problem+json")
                    .body("reason", is("MALFORMED_JSON")).body("detail", containsString("UTF-8"));
        }
        Map<String, Object> bikeBefore = bike();
        asStaff().contentType(ContentType.JSON).header("If-Match", "*")
                .body("{\"note\":\"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1)).patch("/bikes/" + bikeId)
                .then().statusCode(400).body("reason", is("MALFORMED_JSON"));
        assertEquals(before, fare(), "a refused booking must not change the fare");
        assertEquals(bikeBefore, bike(), "a refused edit must not change the bike");
    }

    /**
     * A body that starts with NUL bytes is taken by Jackson's encoding detection for UTF-32, which fails with an I/O
     * error of its own (not a parse error): it was a 500 with an ERROR log line.
     */
    @Test
    void aBodyJacksonTakesForUtf32IsMalformed() {
        Assumptions.assumeFalse(LambdaMode.active(),
                "under -Plambda the mock event server carries the body as text: the bytes arrive already decoded");
        Map<String, Object> before = fare();
        Map<String, Object> bikeBefore = bike();
        for (byte[] body : List.of(new byte[] { 0, 0x7B, 0, 0 }, new byte[] { 0, 0, 0, 0x7B, 0 },
                new byte[] { 0, 0, 0, 0x7B, -1, -1, -1, -1 })) {
            asStaff().contentType(ContentType.JSON).body(body).post(farePath() + "/bookings")
                    .then().log().ifValidationFails().statusCode(400).contentType("application/problem+json")
                    .body("reason", is("MALFORMED_JSON"));
            asStaff().contentType(ContentType.JSON).header("If-Match", "*").body(body).patch("/bikes/" + bikeId)
                    .then().log().ifValidationFails().statusCode(400).body("reason", is("MALFORMED_JSON"));
        }
        assertEquals(before, fare(), "a refused booking must not change the fare");
        assertEquals(bikeBefore, bike(), "a refused edit must not change the bike");
    }

    /** Before, {"seats":8}{"seats":1000} reset the fare to 8 and {"seats":7,"seats":1} to 1, saying nothing. */
    @Test
    void aBodyMeansOneThing() {
        Map<String, Object> before = fare();
        for (String body : List.of("{\"seats\":8}{\"seats\":1000}", "{\"seats\":8} x", "{\"seats\":8},")) {
            staffJson(body).put(farePath())
                    .then().log().ifValidationFails().statusCode(400).contentType("application/problem+json")
                    .body("reason", is("MALFORMED_JSON"))
                    .body("detail", containsString("not valid JSON"));
        }
        refused(staffJson("{\"seats\":7,\"seats\":1}").put(farePath()), "seats");
        staffJson("{\"seats\":7,\"seats\":1}").put(farePath()).then().body("errors[0].message", is("appears more than once"));
        refused(passengerJson("{\"passengerId\":\"p-1\",\"passengerId\":\"p-2\"}").post(farePath() + "/bookings"), "passengerId");
        refused(bikeJson("{\"customerId\":\"c-1\",\"customerId\":\"c-2\"}").post("/bikes/" + bikeId + "/rent"), "customerId");
        assertEquals(before, fare(), "a refused request must not change the fare");
    }

    @Test
    void aBodyOverTheLimitIsAProblem() {
        Map<String, Object> before = bike();
        String huge = "x".repeat(65 * 1024);
        bikeJson("{\"customerId\":\"" + huge + "\"}").post("/bikes/" + bikeId + "/rent")
                .then().statusCode(413).contentType("application/problem+json")
                .body("status", is(413))
                .body("reason", is("PAYLOAD_TOO_LARGE"))
                .body("detail", containsString("64"));
        assertEquals(before, bike());
    }

    @Test
    void brokenPercentEncodingIsAProblem() throws IOException {
        // Under -Plambda the request reaches the function as an API Gateway event, not through the Vert.x route that
        // answers a broken URL; what Lambda answers to one is not checked here.
        Assumptions.assumeFalse(LambdaMode.active(), "a broken URL never reaches the Vert.x routes under -Plambda");
        for (String target : List.of("/bikes/%zz", "/flights/%E0%A4%A/fares/Y", "/bikes?station=%zz")) {
            String answer = rawGet(target);
            assertTrue(answer.startsWith("HTTP/1.1 400 "), target + " answered " + answer);
            assertTrue(answer.toLowerCase(Locale.ROOT).contains("content-type: application/problem+json"), answer);
            assertTrue(answer.contains("\"reason\":\"MALFORMED_URL\""), answer);
        }
    }

    /** rest-assured and java.net.URI refuse to send a broken escape, so this writes the request line itself. */
    private static String rawGet(String target) throws IOException {
        try (Socket socket = new Socket("localhost", RestAssured.port)) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static void refused(Response response, String field) {
        response.then().log().ifValidationFails().statusCode(400).contentType("application/problem+json")
                .body("reason", is("INVALID_REQUEST"))
                .body("errors[0].field", is(field))
                .body("detail", containsString(field));
    }

    private String farePath() {
        return "/flights/" + flightId + "/fares/Y";
    }

    private Map<String, Object> bike() {
        return asStaff().get("/bikes/" + bikeId).then().statusCode(200).extract().jsonPath().getMap("");
    }

    private Map<String, Object> fare() {
        return asStaff().get(farePath()).then().statusCode(200).extract().jsonPath().getMap("");
    }

    /** The rental routes need a token; staff may do all of them, for the customer the body names. */
    private static RequestSpecification bikeJson(String body) {
        return asStaff().contentType(ContentType.JSON).body(body);
    }

    /** A booking body sent by passenger p-1 with their own token. */
    private static RequestSpecification passengerJson(String body) {
        return asCustomer("p-1").contentType(ContentType.JSON).body(body);
    }

    private static RequestSpecification staffJson(String body) {
        return asStaff().contentType(ContentType.JSON).body(body);
    }
}
