package dev.turnstile;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import dev.turnstile.rental.RentalTables;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/** The ground everything stands on: both stores answer, and both honour a conditional write. */
@QuarkusTest
class FoundationTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Inject
    DynamoDbAsyncClient dynamo;

    @Inject
    RentalTables tables;

    @Inject
    Pool pool;

    @Test
    void secondPutUnderAttributeNotExistsIsRejectedByDynalite() {
        String bikeId = "foundation-" + UUID.randomUUID();
        dynamo.putItem(createOnce(bikeId, "harbour")).join();

        var failure = assertThrows(Exception.class, () -> dynamo.putItem(createOnce(bikeId, "airport")).join());

        assertEquals(ConditionalCheckFailedException.class, failure.getCause().getClass());
        var stored = dynamo.getItem(GetItemRequest.builder().tableName(tables.bikes()).consistentRead(true)
                .key(Map.of("bikeId", AttributeValue.fromS(bikeId))).build()).join().item();
        assertEquals("harbour", stored.get("station").s(), "the first write must survive the rejected one");
    }

    @Test
    void updateWithStaleVersionChangesNoRow() {
        String flight = "FOUNDATION-" + UUID.randomUUID();
        pool.preparedQuery("INSERT INTO fares (flight_id, fare_class, seats_total) VALUES ($1, 'Y', 10)")
                .execute(Tuple.of(flight)).await().atMost(TIMEOUT);
        pool.preparedQuery("INSERT INTO flight_inventory (flight_id, fare_class, shard, seats_available) VALUES ($1, 'Y', 0, 10)")
                .execute(Tuple.of(flight)).await().atMost(TIMEOUT);
        String decrement = "UPDATE flight_inventory SET seats_available = seats_available - 1, version = version + 1"
                + " WHERE flight_id = $1 AND fare_class = 'Y' AND shard = 0 AND version = $2";

        int fresh = pool.preparedQuery(decrement).execute(Tuple.of(flight, 1L)).await().atMost(TIMEOUT).rowCount();
        int stale = pool.preparedQuery(decrement).execute(Tuple.of(flight, 1L)).await().atMost(TIMEOUT).rowCount();

        assertEquals(1, fresh);
        assertEquals(0, stale);
        var row = pool.preparedQuery("SELECT seats_available, version FROM flight_inventory WHERE flight_id = $1")
                .execute(Tuple.of(flight)).await().atMost(TIMEOUT).iterator().next();
        assertEquals(9, row.getInteger("seats_available"));
        assertEquals(2L, row.getLong("version"));
    }

    @Test
    void readinessReportsBothBackendsUp() {
        Management.given().when().get("/q/health/ready")
                .then().statusCode(200)
                .body("status", is("UP"))
                .body("checks.name", hasItems("DynamoDB", "Reactive PostgreSQL connections health check"))
                .body("checks.status", hasItems("UP"))
                .body("checks.findAll { it.status != 'UP' }.size()", is(0));
    }

    @Test
    void livenessOpenApiAndMetricsAnswer() {
        Management.given().when().get("/q/health/live").then().statusCode(200).body("status", is("UP"));
        Management.given().when().get("/q/openapi").then().statusCode(200);
        Management.given().when().get("/q/metrics").then().statusCode(200);
    }

    /** Health, metrics and the API description are for the cluster and its monitoring, not for API callers. */
    @Test
    void managementPathsAreNotOnTheApiPort() {
        Assumptions.assumeTrue(ConfigProvider.getConfig().getValue("quarkus.management.enabled", Boolean.class),
                "the Lambda build has no management interface");
        for (String path : List.of("/q/health/ready", "/q/health/live", "/q/metrics", "/q/openapi")) {
            given().when().get(path).then().statusCode(404);
        }
    }

    /** A client generator learns from /q/openapi that it needs a bearer token, and where a route asks for a role. */
    @Test
    void openApiDeclaresTheBearerSchemeOnRoutesThatAskForARole() {
        JsonPath document = Management.given().queryParam("format", "json").get("/q/openapi")
                .then().statusCode(200).extract().jsonPath();
        Map<String, Object> scheme = document.getMap("components.securitySchemes.bearer");
        assertEquals("http", scheme.get("type"));
        assertEquals("bearer", scheme.get("scheme"));
        assertEquals("JWT", scheme.get("bearerFormat"));
        String staffOnly = "paths.'/test-only/caller/staff'.get";
        assertEquals(List.of(Map.of("bearer", List.of("staff"))), document.getList(staffOnly + ".security"));
        Map<String, Object> responses = document.getMap(staffOnly + ".responses");
        assertTrue(responses.containsKey("401") && responses.containsKey("403"), "401 and 403 documented: " + responses.keySet());
    }

    private PutItemRequest createOnce(String bikeId, String station) {
        return PutItemRequest.builder()
                .tableName(tables.bikes())
                .item(Map.of("bikeId", AttributeValue.fromS(bikeId), "station", AttributeValue.fromS(station),
                        "version", AttributeValue.fromN("1")))
                .conditionExpression("attribute_not_exists(bikeId)")
                .build();
    }
}
