package dev.turnstile.idempotency;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Idempotency keys stored next to the data they protect. The key is claimed with an insert in the caller's own
 * transaction: a concurrent request with the same key blocks on the uncommitted unique entry until the first
 * transaction ends, then either sees the stored answer (commit) or claims the key itself (rollback). So at most one
 * request ever does the work, and every other one replays its answer. Transient failures roll back and free the key.
 */
@ApplicationScoped
public class IdempotencyKeys {

    /**
     * Portable SQL (no {@code xmax}, which CockroachDB and YugabyteDB lack): whether the key was an expired one taken
     * over is read from the statement's snapshot next to the upsert. A row is returned only when this transaction owns
     * the key.
     */
    private static final String CLAIM = """
            WITH expired AS (
                SELECT 1 FROM idempotency_keys WHERE key = $1 AND expires_at <= now()),
            claimed AS (
                INSERT INTO idempotency_keys AS k (key, request_hash, created_at, expires_at)
                VALUES ($1, $2, now(), now() + $3 * interval '1 millisecond')
                ON CONFLICT (key) DO UPDATE SET request_hash = EXCLUDED.request_hash, status_code = NULL,
                    response_body = NULL, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
                WHERE k.expires_at <= now()
                RETURNING k.key)
            SELECT EXISTS (SELECT 1 FROM expired) AS reclaimed FROM claimed""";
    private static final String STORED = "SELECT request_hash, status_code, response_body::text AS body FROM idempotency_keys WHERE key = $1";
    private static final String STORE = """
            UPDATE idempotency_keys SET status_code = $2, response_body = $3
            WHERE key = $1 RETURNING response_body::text AS body""";

    private final long ttlMillis;

    IdempotencyKeys(@ConfigProperty(name = "turnstile.idempotency.ttl", defaultValue = "24H") Duration ttl) {
        this.ttlMillis = ttl.toMillis();
    }

    /** The result of claiming a key: either this transaction owns it, or an earlier request's answer to replay. */
    public record Claim(boolean owned, boolean reclaimed, StoredResponse replay) {
    }

    /**
     * Claims {@code key} inside the caller's transaction (must run before any other write in it). An expired key is
     * taken over ({@link Claim#reclaimed()}); a live key with another fingerprint is a client error.
     */
    public Uni<Claim> claim(SqlConnection connection, String key, String fingerprint) {
        return connection.preparedQuery(CLAIM).execute(Tuple.of(key, fingerprint, ttlMillis)).chain(claimed -> {
            if (claimed.size() > 0) {
                return Uni.createFrom().item(new Claim(true, claimed.iterator().next().getBoolean("reclaimed"), null));
            }
            return connection.preparedQuery(STORED).execute(Tuple.of(key)).map(rows -> replay(rows.iterator().next(), fingerprint));
        });
    }

    /** Stores the answer of the owning transaction and returns it as it will be replayed, byte for byte. */
    public Uni<StoredResponse> store(SqlConnection connection, String key, int status, JsonObject body) {
        return connection.preparedQuery(STORE).execute(Tuple.of(key, status, body))
                .map(rows -> new StoredResponse(status, rows.iterator().next().getString("body")));
    }

    private static Claim replay(Row stored, String fingerprint) {
        if (!stored.getString("request_hash").equals(fingerprint)) {
            throw Idempotency.keyReused();
        }
        return new Claim(false, false, new StoredResponse(stored.getInteger("status_code"), stored.getString("body")));
    }
}
