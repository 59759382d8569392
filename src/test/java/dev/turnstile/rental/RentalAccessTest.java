package dev.turnstile.rental;

import static dev.turnstile.identity.Tokens.as;
import static dev.turnstile.identity.Tokens.asCustomer;
import static dev.turnstile.identity.Tokens.asStaff;
import static dev.turnstile.rental.RentalHttp.unique;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.turnstile.LambdaMode;
import dev.turnstile.identity.Tokens;
import dev.turnstile.rental.RentalHttp.Answer;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;

/**
 * Who may do what on /bikes (docs/rental.md, "Who may do what"): every route needs a token, the fleet routes need
 * staff, and a customer acts only for themselves. Each refusal is checked against the stored bike: nothing changed.
 */
@QuarkusTest
class RentalAccessTest {

    private static String stored(String bikeId) {
        return asStaff().get("/bikes/" + bikeId).then().statusCode(200).extract().asString();
    }

    private static io.restassured.response.Response send(RequestSpecification request, String method, String path,
            String body) {
        RequestSpecification withHeaders = request.contentType(ContentType.JSON).header("If-Match", "*")
                .header("Lease-Token", "t");
        return (body.isEmpty() ? withHeaders : withHeaders.body(body)).request(method, path);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "POST   | /bikes                 | {\"bikeId\":\"%s-new\",\"station\":\"harbour\"}",
            "GET    | /bikes/%s              | ''",
            "GET    | /bikes?station=harbour | ''",
            "PATCH  | /bikes/%s              | {\"note\":\"flat tyre\"}",
            "DELETE | /bikes/%s              | ''",
            "POST   | /bikes/%s/rent         | {\"customerId\":\"c-1\"}",
            "POST   | /bikes/%s/return       | {\"customerId\":\"c-1\",\"station\":\"airport\"}",
            "POST   | /bikes/%s/service      | ''",
            "POST   | /bikes/%s/lease        | {\"holder\":\"w\",\"ttlSeconds\":60}",
            "DELETE | /bikes/%s/lease        | ''" })
    void everyRouteAnswersAnAnonymousCaller401AndChangesNothing(String method, String path, String body) {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 0);
        String before = stored(bikeId);

        send(given(), method, path.formatted(bikeId), body.formatted(bikeId))
                .then().statusCode(401).contentType("application/problem+json")
                .header("WWW-Authenticate", is("Bearer")).body("reason", is("UNAUTHENTICATED"));

        assertEquals(before, stored(bikeId));
        asStaff().get("/bikes/" + bikeId + "-new").then().statusCode(404);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "POST   | /bikes            | {\"bikeId\":\"%s-new\",\"station\":\"harbour\"}",
            "PATCH  | /bikes/%s         | {\"note\":\"flat tyre\"}",
            "DELETE | /bikes/%s         | ''",
            "POST   | /bikes/%s/service | ''",
            "POST   | /bikes/%s/lease   | {\"holder\":\"w\",\"ttlSeconds\":60}",
            "DELETE | /bikes/%s/lease   | ''" })
    void aCustomerOnAFleetRouteIs403AndTheBikeIsUnchanged(String method, String path, String body) {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 0);
        String before = stored(bikeId);

        send(asCustomer(unique("c")), method, path.formatted(bikeId), body.formatted(bikeId))
                .then().statusCode(403).contentType("application/problem+json").body("reason", is("FORBIDDEN"));

        assertEquals(before, stored(bikeId));
        asStaff().get("/bikes/" + bikeId + "-new").then().statusCode(404);
    }

    @Test
    void staffRunTheFleet() {
        String bikeId = unique("b");
        asStaff().contentType(ContentType.JSON).body("{\"bikeId\":\"" + bikeId + "\",\"station\":\"harbour\"}")
                .post("/bikes").then().statusCode(201);
        asStaff().contentType(ContentType.JSON).header("If-Match", BikeApiTest.etag(bikeId)).body("{\"note\":\"ok\"}")
                .patch("/bikes/" + bikeId).then().statusCode(200).body("note", is("ok"));
        String token = asStaff().contentType(ContentType.JSON).body("{\"holder\":\"w\",\"ttlSeconds\":60}")
                .post("/bikes/" + bikeId + "/lease").then().statusCode(201).extract().path("token");
        asStaff().header("Lease-Token", token).delete("/bikes/" + bikeId + "/lease").then().statusCode(204);
        asStaff().header("If-Match", BikeApiTest.etag(bikeId)).delete("/bikes/" + bikeId).then().statusCode(204);
        asStaff().get("/bikes/" + bikeId).then().statusCode(404);
    }

    @Test
    void theRenterIsShownOnlyToThemselvesAndToStaff() {
        String bikeId = unique("b");
        String station = unique("s");
        String renter = unique("c");
        BikeApiTest.create(bikeId, station, 0);
        asCustomer(renter).contentType(ContentType.JSON).body("{}").post("/bikes/" + bikeId + "/rent")
                .then().statusCode(200).body("rentedBy", is(renter));

        asCustomer(renter).get("/bikes/" + bikeId).then().statusCode(200).body("rentedBy", is(renter));
        asStaff().get("/bikes/" + bikeId).then().statusCode(200).body("rentedBy", is(renter));
        asCustomer(unique("c")).get("/bikes/" + bikeId).then().statusCode(200)
                .body("status", is("RENTED")).body("rentedBy", nullValue());

        asCustomer(renter).queryParam("station", station).get("/bikes").then().body("bikes[0].rentedBy", is(renter));
        asStaff().queryParam("station", station).get("/bikes").then().body("bikes[0].rentedBy", is(renter));
        asCustomer(unique("c")).queryParam("station", station).get("/bikes").then()
                .body("bikes[0].bikeId", is(bikeId)).body("bikes[0].rentedBy", nullValue());
    }

    @Test
    void aCustomerRentsOnlyForThemselves() {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 0);
        String before = stored(bikeId);

        asCustomer(unique("c")).contentType(ContentType.JSON).body(BikeApiTest.rentBody(unique("c")))
                .post("/bikes/" + bikeId + "/rent").then().statusCode(403).body("reason", is("NOT_YOUR_ACCOUNT"));
        asCustomer(unique("c")).contentType(ContentType.JSON).body(BikeApiTest.rentBody(unique("c")))
                .queryParam("mode", "condition").post("/bikes/" + bikeId + "/rent")
                .then().statusCode(403).body("reason", is("NOT_YOUR_ACCOUNT"));

        assertEquals(before, stored(bikeId));
    }

    @Test
    void staffRentAndReturnForTheCustomerTheyName() {
        String bikeId = unique("b");
        String customer = unique("c");
        BikeApiTest.create(bikeId, "harbour", 0);

        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody(customer)).post("/bikes/" + bikeId + "/rent")
                .then().statusCode(200).body("rentedBy", is(customer));
        asCustomer(customer).contentType(ContentType.JSON).body("{\"station\":\"airport\"}")
                .post("/bikes/" + bikeId + "/return").then().statusCode(200).body("station", is("airport"));
    }

    /**
     * Account ids are the issuer's subjects, and some issuers' have characters a bike id never needs (Auth0:
     * {@code auth0|5f7c...}, {@code google-oauth2|1047...}): such a customer names themselves, and staff name them.
     */
    @Test
    void staffActForACustomerWhoseSubjectHasAnIssuersPrefix() {
        String bikeId = unique("b");
        String customer = "auth0|" + unique("c");
        BikeApiTest.create(bikeId, "harbour", 0);

        asCustomer(customer).contentType(ContentType.JSON).body(BikeApiTest.rentBody(customer)).post("/bikes/" + bikeId + "/rent")
                .then().statusCode(200).body("rentedBy", is(customer));
        asStaff().contentType(ContentType.JSON).body("{\"customerId\":\"" + customer + "\",\"station\":\"airport\"}")
                .post("/bikes/" + bikeId + "/return").then().statusCode(200).body("station", is("airport"));
        asStaff().get("/bikes/" + bikeId).then().body("status", is("AVAILABLE"));
    }

    @Test
    void aStrangerCannotReturnSomeoneElsesBikeAndTheBikeDoesNotMove() {
        String bikeId = unique("b");
        String renter = unique("c");
        String stranger = unique("c");
        BikeApiTest.create(bikeId, "harbour", 0);
        asCustomer(renter).contentType(ContentType.JSON).body("{}").post("/bikes/" + bikeId + "/rent").then().statusCode(200);
        String before = stored(bikeId);

        asCustomer(stranger).contentType(ContentType.JSON)
                .body("{\"customerId\":\"" + renter + "\",\"station\":\"airport\"}")
                .post("/bikes/" + bikeId + "/return").then().statusCode(403).body("reason", is("NOT_YOUR_ACCOUNT"));
        asCustomer(stranger).contentType(ContentType.JSON).body("{\"station\":\"airport\"}")
                .post("/bikes/" + bikeId + "/return").then().statusCode(409).body("reason", is("WRONG_CUSTOMER"));
        asCustomer(stranger).contentType(ContentType.JSON).header("Idempotency-Key", unique("k"))
                .body("{\"station\":\"airport\"}")
                .post("/bikes/" + bikeId + "/return").then().statusCode(409).body("reason", is("WRONG_CUSTOMER"));

        assertEquals(before, stored(bikeId));
        asStaff().get("/bikes/" + bikeId).then().body("station", is("harbour")).body("status", is("RENTED"))
                .body("rentedBy", is(renter));
    }

    /**
     * 60 rent attempts of one customer at once, each on its own bike, against a limit of 20 per second: some are
     * refused with 429 and Retry-After, and a refused attempt left its bike as it was.
     */
    @Test
    void oneCustomersFloodOfRentAttemptsMeets429AndTheRefusedChangeNothing() throws Exception {
        Assumptions.assumeFalse(LambdaMode.active(), LambdaMode.NO_OVERLAP);
        String customer = unique("c");
        String token = Tokens.customer(customer);
        List<String> bikes = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            String bikeId = unique("b");
            BikeApiTest.create(bikeId, "harbour", 0);
            bikes.add(bikeId);
        }
        List<Callable<Answer>> attempts = new ArrayList<>();
        for (String bikeId : bikes) {
            attempts.add(() -> RentalHttp.post("/bikes/" + bikeId + "/rent", "{}", null, token));
        }

        List<Answer> answers = RentalHttp.allAtOnce(attempts);

        int refused = 0;
        for (int i = 0; i < answers.size(); i++) {
            Answer answer = answers.get(i);
            if (answer.status() == 429) {
                refused++;
                assertEquals("TOO_MANY_ATTEMPTS", answer.reason());
                assertTrue(answer.headers().firstValue("Retry-After").isPresent(), "Retry-After");
                as(RentalHttp.STAFF).get("/bikes/" + bikes.get(i)).then().statusCode(200)
                        .body("status", is("AVAILABLE")).body("version", is(1)).body("rentedBy", nullValue());
            } else {
                assertTrue(answer.status() == 200 || answer.reason().equals(RentalProblems.CUSTOMER_HAS_ACTIVE_RENTAL),
                        answer.body().toString());
            }
        }
        assertTrue(refused > 0, "60 attempts at once cannot all fit in 20 a second");
    }
}
