package dev.turnstile.rental;

import static dev.turnstile.identity.Tokens.asStaff;
import static dev.turnstile.rental.RentalHttp.unique;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.turnstile.LambdaMode;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/** Listings come from the station index page by page; 1,000 bikes at one station are seen exactly once each. */
@QuarkusTest
class StationPagingTest {

    @Inject
    DynamoDbAsyncClient dynamo;

    @Inject
    RentalTables tables;

    @Test
    void aThousandBikesPagedByAHundredAreEachListedExactlyOnce() {
        String station = unique("crowded");
        Set<String> created = stock(station, 1000);
        // the Lambda mock event server stalls on answers over ~8 KB: smaller pages there
        int limit = LambdaMode.active() ? 20 : 100;

        List<String> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            var request = asStaff().queryParam("station", station).queryParam("limit", limit);
            Response page = (cursor == null ? request : request.queryParam("cursor", cursor)).get("/bikes");
            page.then().statusCode(200);
            List<String> ids = page.path("bikes.bikeId");
            assertTrue(ids.size() <= limit);
            seen.addAll(ids);
            cursor = page.path("next");
            if (cursor != null) {
                String link = page.header("Link");
                assertNotNull(link, "a next page is linked");
                assertTrue(link.contains("cursor=" + cursor) && link.contains("rel=\"next\""), link);
                assertTrue(link.contains("limit=" + limit) && link.contains("station=" + station), link);
            } else {
                assertNull(page.header("Link"));
            }
            pages++;
        } while (cursor != null && pages < 1000);

        assertEquals(1000, seen.size(), "no bike twice");
        assertEquals(created, new HashSet<>(seen), "every bike");
        assertTrue(pages >= 1000 / limit && pages <= 1000 / limit + 1, "pages: " + pages);
    }

    @Test
    void theDefaultLimitIs50AndTheStatusFilterIsPartOfTheQuery() {
        String station = unique("busy");
        stock(station, 60);
        Response first = asStaff().queryParam("station", station).get("/bikes");
        first.then().statusCode(200).body("bikes", hasSize(50));
        asStaff().queryParam("station", station).queryParam("cursor", (String) first.path("next")).get("/bikes")
                .then().statusCode(200).body("bikes", hasSize(10));

        String rented = first.path("bikes[7].bikeId");
        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody("c-1")).post("/bikes/" + rented + "/rent")
                .then().statusCode(200);
        asStaff().queryParam("station", station).queryParam("status", "RENTED").queryParam("limit", 500).get("/bikes")
                .then().statusCode(200).body("bikes.bikeId", is(List.of(rented))).body("next", nullValue());
    }

    @Test
    void limitsAndCursorsOutsideTheContractAre400() {
        String station = unique("s");
        asStaff().queryParam("station", station).queryParam("limit", 501).get("/bikes").then().statusCode(400)
                .body("errors[0].field", is("limit"));
        asStaff().queryParam("station", station).queryParam("limit", 0).get("/bikes").then().statusCode(400);
        for (String notAnInteger : new String[] { "abc", "1.5", "99999999999" }) {
            asStaff().queryParam("station", station).queryParam("limit", notAnInteger).get("/bikes").then().statusCode(400)
                    .body("reason", is("INVALID_REQUEST")).body("errors[0].field", is("limit"))
                    .body("errors[0].message", is("must be an integer"));
        }
        asStaff().queryParam("station", station).queryParam("cursor", "!!not-a-cursor").get("/bikes").then().statusCode(400)
                .body("errors[0].field", is("cursor"));
        asStaff().queryParam("station", station).queryParam("cursor", "bm90IGFuIGlk").get("/bikes").then().statusCode(400);
    }

    /** Writes bikes straight to the table (BatchWriteItem, 25 a call): the listing is under test, not creation. */
    private Set<String> stock(String station, int count) {
        Set<String> ids = new HashSet<>();
        List<CompletableFuture<?>> writes = new ArrayList<>();
        List<WriteRequest> batch = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Bike bike = Bike.newAt(station + "-" + i, station, 0, BikeStatus.AVAILABLE);
            ids.add(bike.bikeId());
            batch.add(WriteRequest.builder().putRequest(PutRequest.builder().item(BikeItems.toItem(bike)).build()).build());
            if (batch.size() == 25 || i == count - 1) {
                writes.add(dynamo.batchWriteItem(BatchWriteItemRequest.builder()
                        .requestItems(java.util.Map.of(tables.bikes(), List.copyOf(batch))).build())
                        .thenAccept(done -> assertTrue(done.unprocessedItems().isEmpty(), "dynalite processes every item")));
                batch.clear();
            }
        }
        CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).join();
        return ids;
    }
}
