package dev.turnstile.rental;

import java.util.List;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * The rental feature's DynamoDB tables. Names are configurable so that one AWS account can hold several stages;
 * the definitions here are what dev and test create, and deploy/ defines the same tables for production.
 */
@ConfigMapping(prefix = "turnstile.rental.tables")
public interface RentalTables {

    /** The bikes table's index for listings: partition key station, sort key bikeId, every attribute projected. */
    String STATION_INDEX = "station-index";

    @WithDefault("turnstile-bikes")
    String bikes();

    @WithDefault("turnstile-customers")
    String customers();

    @WithDefault("turnstile-rentals")
    String rentals();

    /** Idempotency records of rent, return and service, keyed by caller scope and Idempotency-Key. */
    @WithDefault("turnstile-idempotency")
    String idempotency();

    default List<CreateTableRequest> definitions() {
        return List.of(
                keyedBy(bikes(), "bikeId").toBuilder()
                        .attributeDefinitions(string("bikeId"), string("station"))
                        .globalSecondaryIndexes(GlobalSecondaryIndex.builder()
                                .indexName(STATION_INDEX)
                                .keySchema(key("station", KeyType.HASH), key("bikeId", KeyType.RANGE))
                                .projection(Projection.builder().projectionType(ProjectionType.ALL).build())
                                .build())
                        .build(),
                keyedBy(customers(), "customerId"),
                keyedBy(rentals(), "rentalId"),
                keyedBy(idempotency(), "id"));
    }

    private static CreateTableRequest keyedBy(String table, String partitionKey) {
        return CreateTableRequest.builder()
                .tableName(table)
                .attributeDefinitions(string(partitionKey))
                .keySchema(key(partitionKey, KeyType.HASH))
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .build();
    }

    private static AttributeDefinition string(String name) {
        return AttributeDefinition.builder().attributeName(name).attributeType(ScalarAttributeType.S).build();
    }

    private static KeySchemaElement key(String name, KeyType type) {
        return KeySchemaElement.builder().attributeName(name).keyType(type).build();
    }
}
