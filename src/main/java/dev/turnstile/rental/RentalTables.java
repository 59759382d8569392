package dev.turnstile.rental;

import java.util.List;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * The rental feature's DynamoDB tables. Names are configurable so that one AWS account can hold several stages;
 * the definitions here are what dev and test create, and deploy/ defines the same tables for production.
 */
@ConfigMapping(prefix = "turnstile.rental.tables")
public interface RentalTables {

    @WithDefault("turnstile-bikes")
    String bikes();

    @WithDefault("turnstile-customers")
    String customers();

    @WithDefault("turnstile-rentals")
    String rentals();

    @WithDefault("turnstile-leases")
    String leases();

    default List<CreateTableRequest> definitions() {
        return List.of(
                keyedBy(bikes(), "bikeId"),
                keyedBy(customers(), "customerId"),
                keyedBy(rentals(), "rentalId"),
                keyedBy(leases(), "leaseId"));
    }

    private static CreateTableRequest keyedBy(String table, String partitionKey) {
        return CreateTableRequest.builder()
                .tableName(table)
                .attributeDefinitions(AttributeDefinition.builder()
                        .attributeName(partitionKey).attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName(partitionKey).keyType(KeyType.HASH).build())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .build();
    }
}
