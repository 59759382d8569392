package dev.turnstile.local;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;

import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.ListTablesRequest;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;

/**
 * Dev and test only: creates the DynamoDB tables that are missing, as the features define them (every
 * {@link CreateTableRequest} bean). Production tables come from deploy/, so a cold start never pays for this.
 */
@ApplicationScoped
public class LocalDynamoDbTables {

    private static final Logger LOG = Logger.getLogger(LocalDynamoDbTables.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final DynamoDbAsyncClient dynamo;
    private final Instance<CreateTableRequest> tables;
    private final boolean create;

    LocalDynamoDbTables(DynamoDbAsyncClient dynamo, @Any Instance<CreateTableRequest> tables, LocalDynamoDbConfig config) {
        this.dynamo = dynamo;
        this.tables = tables;
        this.create = config.createTables();
    }

    void createMissing(@Observes @Priority(1) StartupEvent startup) {
        if (!create) {
            return;
        }
        Set<String> existing;
        try {
            existing = new HashSet<>(Uni.createFrom()
                    .completionStage(() -> dynamo.listTables(ListTablesRequest.builder().limit(100).build()))
                    .await().atMost(TIMEOUT).tableNames());
        } catch (RuntimeException e) {
            throw new LocalBackendUnavailable("DynamoDB does not answer at the configured endpoint ("
                    + e.getMessage() + "): let the dev/test profile start dynalite (turnstile.local-dynamodb.enabled=true, "
                    + "Node.js 20+), or set QUARKUS_DYNAMODB_ENDPOINT_OVERRIDE to a running DynamoDB.");
        }
        for (CreateTableRequest definition : tables) {
            if (!existing.contains(definition.tableName())) {
                create(definition);
            }
        }
    }

    private void create(CreateTableRequest definition) {
        try {
            Uni.createFrom().completionStage(() -> dynamo.createTable(definition)).await().atMost(TIMEOUT);
            LOG.infof("Created DynamoDB table %s", definition.tableName());
        } catch (ResourceInUseException createdMeanwhile) {
            LOG.debugf("DynamoDB table %s was created meanwhile", definition.tableName());
        }
    }
}
