package dev.turnstile.rental;

import static dev.turnstile.identity.Tokens.asStaff;
import static dev.turnstile.rental.RentalHttp.unique;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.Callable;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.turnstile.rental.RentalHttp.Answer;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/** The story of bike b-17 at harbour station, with truly parallel renters, on both rent paths. */
@QuarkusTest
class BikeStoryTest {

    @ParameterizedTest
    @ValueSource(strings = { "read-decide-write", "condition" })
    void twoRentersAtOnceOneWinsTheRideLimitSendsTheBikeToServiceAndServiceMakesItRentableAgain(String mode) throws Exception {
        String rent = "/rent?mode=" + mode;
        String bikeId = unique("b-17");
        BikeApiTest.create(bikeId, "harbour", 29);

        List<Callable<Answer>> renters = List.of(
                () -> RentalHttp.post("/bikes/" + bikeId + rent, BikeApiTest.rentBody("c-1")),
                () -> RentalHttp.post("/bikes/" + bikeId + rent, BikeApiTest.rentBody("c-2")));
        List<Answer> answers = RentalHttp.allAtOnce(renters);

        List<Answer> won = answers.stream().filter(answer -> answer.status() == 200).toList();
        List<Answer> lost = answers.stream().filter(answer -> answer.status() == 409).toList();
        assertEquals(1, won.size(), "exactly one rental confirmed: " + answers);
        assertEquals(1, lost.size(), "exactly one refused: " + answers);
        assertEquals("NOT_AVAILABLE", lost.get(0).reason(), "the loser gets the business answer: " + answers);
        String winner = won.get(0).body().path("rentedBy").asText();

        asStaff().get("/bikes/" + bikeId).then().statusCode(200)
                .body("status", is("RENTED")).body("rentedBy", is(winner))
                .body("ridesSinceService", is(30)).body("version", is(2));

        asStaff().contentType(ContentType.JSON).body("{\"customerId\":\"" + winner + "\",\"station\":\"harbour\"}")
                .post("/bikes/" + bikeId + "/return")
                .then().statusCode(200).body("status", is("MAINTENANCE")).body("rentedBy", nullValue()).body("version", is(3));

        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-3")).post("/bikes/" + bikeId + rent)
                .then().statusCode(409).body("reason", is("NOT_AVAILABLE"));

        asStaff().post("/bikes/" + bikeId + "/service")
                .then().statusCode(200).body("status", is("AVAILABLE")).body("ridesSinceService", is(0)).body("version", is(4));

        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-3")).post("/bikes/" + bikeId + rent)
                .then().statusCode(200).body("rentedBy", is("c-3")).body("ridesSinceService", is(1)).body("version", is(5));
    }
}
