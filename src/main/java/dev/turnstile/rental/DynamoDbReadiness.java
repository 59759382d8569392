package dev.turnstile.rental;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;

/** Ready when the bikes table answers: that proves the endpoint, the credentials and the table at once. */
@Readiness
@ApplicationScoped
public class DynamoDbReadiness implements AsyncHealthCheck {

    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    private final DynamoDbAsyncClient dynamo;
    private final RentalTables tables;

    DynamoDbReadiness(DynamoDbAsyncClient dynamo, RentalTables tables) {
        this.dynamo = dynamo;
        this.tables = tables;
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        return StoreCalls.call(() -> dynamo.describeTable(DescribeTableRequest.builder().tableName(tables.bikes()).build()))
                .ifNoItem().after(TIMEOUT).fail()
                .map(described -> HealthCheckResponse.named("DynamoDB")
                        .up()
                        .withData("table", tables.bikes())
                        .withData("status", described.table().tableStatusAsString())
                        .build())
                .onFailure().recoverWithItem(failure -> HealthCheckResponse.named("DynamoDB")
                        .down()
                        .withData("table", tables.bikes())
                        .withData("error", String.valueOf(failure.getMessage()))
                        .build());
    }
}
