package dev.turnstile.problem;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;

/**
 * RFC 9110 13.1.2: If-None-Match compares entity tags weakly, If-Match strongly. A proxy that compresses an answer
 * (nginx's gzip, many CDNs) turns its strong ETag into {@code W/"..."}, and clients revalidate with that: the weak
 * form must still name the current representation for If-None-Match, and never for If-Match.
 */
@QuarkusTest
class WeakEntityTagsTest {

    @Test
    void aWeakFormOfTheCurrentTagIsNotModifiedForEveryKindOfResource() {
        String bike = "/bikes/" + unique("weak-b");
        asStaff().contentType(ContentType.JSON).body("{\"bikeId\":\"" + bike.substring(7) + "\",\"station\":\"weak\"}")
                .post("/bikes").then().statusCode(201);
        String fare = "/flights/" + unique("WEAK") + "/fares/Y";
        asStaff().contentType(ContentType.JSON).body("{\"seats\":5}").put(fare).then().statusCode(201);
        String booking = asStaff().contentType(ContentType.JSON).body("{\"passengerId\":\"weak-p\"}")
                .post(fare + "/bookings").then().statusCode(201).extract().header("Location");

        for (String path : new String[] { bike, fare, booking.substring(booking.indexOf("/bookings/")) }) {
            notModifiedUnderItsWeakTag(path, 5);
            asStaff().header("If-None-Match", "W/\"other\"").get(path).then().statusCode(200);
        }
    }

    /**
     * A ticket worker may issue the booking's ticket between the read and the conditional reads, which changes its
     * tag: a 200 that names another tag than the one read is that, and the check is made again on the new tag.
     */
    private static void notModifiedUnderItsWeakTag(String path, int tries) {
        String tag = asStaff().get(path).then().statusCode(200).extract().header("ETag");
        for (String ifNoneMatch : new String[] { "W/" + tag, "\"other\", W/" + tag }) {
            Response answer = asStaff().header("If-None-Match", ifNoneMatch).get(path);
            if (answer.statusCode() == 200 && !tag.equals(answer.header("ETag")) && tries > 1) {
                notModifiedUnderItsWeakTag(path, tries - 1);
                return;
            }
            answer.then().statusCode(304).header("ETag", is(tag));
        }
    }

    @Test
    void aResetUnderIfNoneMatchWithTheWeakFormOfTheCurrentTagIsRefused() {
        String fare = "/flights/" + unique("WEAK") + "/fares/Y";
        String tag = asStaff().contentType(ContentType.JSON).body("{\"seats\":5}").put(fare)
                .then().statusCode(201).extract().header("ETag");

        asStaff().contentType(ContentType.JSON).header("If-None-Match", "W/" + tag).body("{\"seats\":9}").put(fare)
                .then().statusCode(412).body("reason", is("STALE_VERSION"));
        asStaff().get(fare).then().statusCode(200).body("seatsTotal", is(5));
    }

    @Test
    void ifMatchNeverTakesAWeakTag() {
        String bikeId = unique("weak-b");
        String tag = asStaff().contentType(ContentType.JSON).body("{\"bikeId\":\"" + bikeId + "\",\"station\":\"weak\"}")
                .post("/bikes").then().statusCode(201).extract().header("ETag");

        asStaff().contentType(ContentType.JSON).header("If-Match", "W/" + tag).body("{\"note\":\"weak\"}")
                .patch("/bikes/" + bikeId).then().statusCode(412).body("reason", is("STALE_VERSION"));
        asStaff().get("/bikes/" + bikeId).then().statusCode(200).header("ETag", is(tag)).body("note", nullValue());
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }
}
