package dev.turnstile.idempotency;

import java.util.function.Function;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlConnection;

/**
 * The wing that keeps idempotency keys in PostgreSQL: its rows remember the key they were made under, in a UNIQUE
 * column, so a key that expired must be given up there before it is used again (taken over by a claim, or swept).
 * The wing names that table and column and the transactions the sweeper runs in (bounded by its timeouts); the
 * statements are written here, so that no wing touches {@code idempotency_keys}.
 */
public interface KeyHolder {

    /** The table whose rows keep their key, e.g. {@code bookings}. */
    String table();

    /** Its UNIQUE column holding the key. */
    String keyColumn();

    /** {@code work} in one transaction of the holder's own kind (committed when its Uni succeeds). */
    <T> Uni<T> inTransaction(Function<SqlConnection, Uni<T>> work);
}
