package dev.turnstile.rental;

import static dev.turnstile.identity.Tokens.asStaff;
import static dev.turnstile.rental.RentalHttp.unique;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;

/**
 * The transaction path end to end. It needs an endpoint with TransactWriteItems (real DynamoDB, or another emulator
 * set with QUARKUS_DYNAMODB_ENDPOINT_OVERRIDE); against dynalite these tests are reported as skipped.
 */
@QuarkusTest
class RentalTransactionsEndpointTest {

    @Inject
    RentalTransactions transactions;

    @Inject
    DynamoDbAsyncClient dynamo;

    @Inject
    RentalTables tables;

    @BeforeEach
    void onlyWhereTheEndpointHasTransactions() {
        Assumptions.assumeTrue(transactions.enabled().await().atMost(Duration.ofSeconds(10)),
                "SKIPPED: the DynamoDB endpoint has no TransactWriteItems (dynalite), or turnstile.rental.transactions=off");
    }

    @Test
    void aCustomerHoldsAtMostOneBikeAndReturningFreesThem() {
        String customer = unique("c");
        String first = unique("b");
        String second = unique("b");
        BikeApiTest.create(first, "harbour", 0);
        BikeApiTest.create(second, "harbour", 0);

        asStaff().contentType(ContentType.JSON).header("Idempotency-Key", unique("k")).body(BikeApiTest.rentBody(customer))
                .post("/bikes/" + first + "/rent").then().statusCode(200).body("version", is(2));
        assertEquals(first, customerItem(customer).get("bikeId").s());

        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody(customer)).post("/bikes/" + second + "/rent")
                .then().statusCode(409).body("reason", is("CUSTOMER_HAS_ACTIVE_RENTAL"));
        asStaff().get("/bikes/" + second).then().body("status", is("AVAILABLE")).body("version", is(1));

        asStaff().contentType(ContentType.JSON).body("{\"customerId\":\"" + customer + "\",\"station\":\"airport\"}")
                .post("/bikes/" + first + "/return").then().statusCode(200).body("version", is(3));
        assertFalse(customerItem(customer).containsKey("activeRentalId"));

        asStaff().contentType(ContentType.JSON).body(BikeApiTest.rentBody(customer)).post("/bikes/" + second + "/rent")
                .then().statusCode(200).body("rentedBy", is(customer));
    }

    private Map<String, AttributeValue> customerItem(String customerId) {
        return dynamo.getItem(GetItemRequest.builder().tableName(tables.customers()).consistentRead(true)
                .key(Map.of("customerId", AttributeValue.fromS(customerId))).build()).join().item();
    }
}
