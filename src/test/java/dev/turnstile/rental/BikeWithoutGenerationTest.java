package dev.turnstile.rental;

import static dev.turnstile.identity.Tokens.asCustomer;
import static dev.turnstile.identity.Tokens.asStaff;
import static dev.turnstile.rental.RentalHttp.unique;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * A bike item written before generations existed has no {@code generation} attribute; it is read as generation "0".
 * The write condition then asked for {@code #generation = "0"}, false on such an item: every return, rent, edit and
 * delete of it failed its condition for good (409 VERSION_CONFLICT, 412 with the very tag the client sent), and a
 * ride on it could not end. The item is written here as it was then, with a raw PutItem.
 */
@QuarkusTest
class BikeWithoutGenerationTest {

    @Inject
    DynamoDbAsyncClient dynamo;

    @Inject
    RentalTables tables;

    @Test
    void aRideOnABikeWrittenBeforeGenerationsCanEnd() throws Exception {
        String bikeId = unique("b");
        String customer = unique("c");
        Map<String, AttributeValue> item = new HashMap<>(legacy(bikeId, "RENTED", 3));
        item.put("rentedBy", AttributeValue.fromS(customer));
        item.put("rentedAt", AttributeValue.fromS(Instant.now().minusSeconds(600).toString()));
        put(item);

        asCustomer(customer).contentType(ContentType.JSON).body("{\"station\":\"airport\"}")
                .post("/bikes/" + bikeId + "/return").then().statusCode(200).body("status", is("AVAILABLE"))
                .body("station", is("airport")).header("ETag", is("\"4-0\""));

        Map<String, AttributeValue> stored = stored(bikeId);
        assertEquals("AVAILABLE", stored.get("status").s());
        assertEquals("4", stored.get("version").n());
        assertEquals("0", stored.get("generation").s(), "written from then on with the generation it was read as");
    }

    @Test
    void aBikeWrittenBeforeGenerationsCanBeRentedAndEdited() throws Exception {
        String bikeId = unique("b");
        String customer = unique("c");
        put(legacy(bikeId, "AVAILABLE", 7));

        asStaff().contentType(ContentType.JSON).header("If-Match", "\"7-0\"").body("{\"note\":\"new saddle\"}")
                .patch("/bikes/" + bikeId).then().statusCode(200).body("note", is("new saddle"));
        asCustomer(customer).contentType(ContentType.JSON).body(BikeApiTest.rentBody(customer))
                .post("/bikes/" + bikeId + "/rent").then().statusCode(200).body("rentedBy", is(customer));

        Map<String, AttributeValue> stored = stored(bikeId);
        assertEquals("RENTED", stored.get("status").s());
        assertEquals("9", stored.get("version").n());
        assertEquals("new saddle", stored.get("note").s());
    }

    @Test
    void aBikeWrittenBeforeGenerationsCanBeDeleted() throws Exception {
        String bikeId = unique("b");
        put(legacy(bikeId, "AVAILABLE", 2));

        asStaff().header("If-Match", "\"2-0\"").delete("/bikes/" + bikeId).then().statusCode(204);

        asStaff().get("/bikes/" + bikeId).then().statusCode(404).body("reason", is("BIKE_NOT_FOUND"));
    }

    private static Map<String, AttributeValue> legacy(String bikeId, String status, long version) {
        return Map.of(BikeItems.KEY, AttributeValue.fromS(bikeId), "station", AttributeValue.fromS("harbour"),
                "status", AttributeValue.fromS(status), "ridesSinceService", BikeItems.number(1),
                "version", BikeItems.number(version));
    }

    private void put(Map<String, AttributeValue> item) throws Exception {
        dynamo.putItem(PutItemRequest.builder().tableName(tables.bikes()).item(item).build())
                .get(Duration.ofSeconds(5).toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    private Map<String, AttributeValue> stored(String bikeId) throws Exception {
        return dynamo.getItem(GetItemRequest.builder().tableName(tables.bikes()).consistentRead(true)
                        .key(Map.of(BikeItems.KEY, AttributeValue.fromS(bikeId))).build())
                .get(Duration.ofSeconds(5).toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS).item();
    }
}
