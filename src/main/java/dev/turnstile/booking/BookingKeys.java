package dev.turnstile.booking;

import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;

import dev.turnstile.idempotency.KeyHolder;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlConnection;

/** A booking keeps the idempotency key it was made under ({@code bookings.idempotency_key}, UNIQUE). */
@ApplicationScoped
class BookingKeys implements KeyHolder {

    private final BoundedTransactions transactions;

    BookingKeys(BoundedTransactions transactions) {
        this.transactions = transactions;
    }

    @Override
    public String table() {
        return "bookings";
    }

    @Override
    public String keyColumn() {
        return "idempotency_key";
    }

    /** The sweeper's transactions: background work, which no caller waits for. */
    @Override
    public <T> Uni<T> inTransaction(Function<SqlConnection, Uni<T>> work) {
        return transactions.runInBackground(work);
    }
}
