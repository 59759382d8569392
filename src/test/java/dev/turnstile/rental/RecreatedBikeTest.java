package dev.turnstile.rental;

import static dev.turnstile.identity.Tokens.asCustomer;
import static dev.turnstile.identity.Tokens.asStaff;
import static dev.turnstile.rental.RentalHttp.unique;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * A bike deleted and created again under the same id starts again at version 1. A write prepared on its predecessor
 * at version 1 (a rent, an edit) named only the version in its condition, so it overwrote the new bike with the old
 * one, changed: the create was lost without a word. The condition names the generation too now: the write fails,
 * and the request reads again and decides on the bike that exists. The delete and create happen between the read
 * and the write through {@link ContendedBikeRepository}, with raw store calls; everything else is real.
 */
@QuarkusTest
class RecreatedBikeTest {

    @Inject
    ContendedBikeRepository repository;

    @Test
    void aRentPreparedOnADeletedBikeRentsItsSuccessorInsteadOfOverwritingIt() {
        String bikeId = unique("b");
        String customer = unique("c");
        BikeApiTest.create(bikeId, "harbour", 3);
        repository.recreateAfterNextRead(bikeId);

        asCustomer(customer).contentType(ContentType.JSON).body(BikeApiTest.rentBody(customer))
                .post("/bikes/" + bikeId + "/rent").then().statusCode(200).body("rentedBy", is(customer))
                .body("ridesSinceService", is(1)).header("ETag", is("\"2-recreated\""));
        asStaff().get("/bikes/" + bikeId).then().body("status", is("RENTED")).body("rentedBy", is(customer))
                .body("ridesSinceService", is(1)).body("version", is(2)).header("ETag", is("\"2-recreated\""));
    }

    /** The edit named the predecessor's ETag in If-Match: it is stale against the bike that exists now. */
    @Test
    void anEditPreparedOnADeletedBikeIsStaleAndLeavesItsSuccessorAlone() {
        String bikeId = unique("b");
        BikeApiTest.create(bikeId, "harbour", 3);
        String predecessor = BikeApiTest.etag(bikeId);
        repository.recreateAfterNextRead(bikeId);

        asStaff().contentType(ContentType.JSON).header("If-Match", predecessor).body("{\"note\":\"brakes checked\"}")
                .patch("/bikes/" + bikeId).then().statusCode(412).body("reason", is("STALE_VERSION"));
        asStaff().get("/bikes/" + bikeId).then().body("ridesSinceService", is(0)).body("version", is(1))
                .body("note", nullValue()).header("ETag", is("\"1-recreated\""));
    }
}
