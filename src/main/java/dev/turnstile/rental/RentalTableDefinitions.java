package dev.turnstile.rental;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Named;
import jakarta.inject.Singleton;

import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;

/**
 * The rental wing's tables as beans of the AWS SDK's own type, for whatever creates tables outside deploy/ (the
 * dev/test launcher looks them up without knowing this wing). Only that launcher asks for them: in a build without
 * it ArC removes these producers as unused.
 */
@Singleton
class RentalTableDefinitions {

    @Produces
    @Named("turnstile.rental.tables.bikes")
    CreateTableRequest bikes(RentalTables tables) {
        return definition(tables, tables.bikes());
    }

    @Produces
    @Named("turnstile.rental.tables.customers")
    CreateTableRequest customers(RentalTables tables) {
        return definition(tables, tables.customers());
    }

    @Produces
    @Named("turnstile.rental.tables.rentals")
    CreateTableRequest rentals(RentalTables tables) {
        return definition(tables, tables.rentals());
    }

    @Produces
    @Named("turnstile.rental.tables.idempotency")
    CreateTableRequest idempotency(RentalTables tables) {
        return definition(tables, tables.idempotency());
    }

    private static CreateTableRequest definition(RentalTables tables, String name) {
        return tables.definitions().stream().filter(table -> table.tableName().equals(name)).findFirst().orElseThrow();
    }
}
