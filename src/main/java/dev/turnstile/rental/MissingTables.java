package dev.turnstile.rental;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.ListTablesRequest;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;

/**
 * Opt-in ({@code turnstile.rental.create-missing-tables}): creates the rental tables that are missing at start, as
 * {@link RentalTables#definitions()} defines them. For ephemeral stores only (dev, test, a benchmark's dynalite):
 * production tables come from deploy/, so a cold start never pays for this. It lives in the wing, not in the dev/test
 * launchers, because packaged benchmark runs against a throw-away dynalite need it too.
 */
@ApplicationScoped
class MissingTables {

    private static final Logger LOG = Logger.getLogger(MissingTables.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final DynamoDbAsyncClient dynamo;
    private final RentalTables tables;
    private final boolean create;

    MissingTables(DynamoDbAsyncClient dynamo, RentalTables tables, RentalConfig config) {
        this.dynamo = dynamo;
        this.tables = tables;
        this.create = config.createMissingTables();
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
            throw new IllegalStateException("DynamoDB does not answer at the configured endpoint (" + e.getMessage()
                    + "): in dev/test let the profile start dynalite (turnstile.local-dynamodb.enabled=true, Node.js 20+), "
                    + "or set QUARKUS_DYNAMODB_ENDPOINT_OVERRIDE to a running DynamoDB.", e);
        }
        for (CreateTableRequest definition : tables.definitions()) {
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
