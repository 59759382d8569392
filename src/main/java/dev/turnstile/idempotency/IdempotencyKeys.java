package dev.turnstile.idempotency;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Idempotency keys stored next to the data they protect (table {@code idempotency_keys}; every statement on it is
 * here). The key is claimed with an insert in the caller's own transaction: a concurrent request with the same key
 * blocks on the uncommitted unique entry until the first transaction ends, then either sees the stored answer
 * (commit) or claims the key itself (rollback). So at most one request ever does the work, and every other one
 * replays its answer. Transient failures roll back and free the key.
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
                ON CONFLICT (key) DO UPDATE SET request_hash = EXCLUDED.request_hash, status_code = NULL, refused = NULL,
                    response_body = NULL, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
                WHERE k.expires_at <= now()
                RETURNING k.key)
            SELECT EXISTS (SELECT 1 FROM expired) AS reclaimed FROM claimed""";
    /** Keys stored before the {@code refused} column (until they expire) say it with their HTTP status. */
    private static final String STORED = """
            SELECT request_hash, COALESCE(refused, status_code >= 400) AS refused, response_body::text AS body
            FROM idempotency_keys WHERE key = $1""";
    private static final String STORE = """
            UPDATE idempotency_keys SET refused = $2, response_body = $3
            WHERE key = $1 RETURNING response_body::text AS body""";

    private final long ttlMillis;
    /** An expired key may be used again: the row made under it keeps its data but gives up the key. */
    private final String release;
    /**
     * One bounded batch of the sweep. SKIP LOCKED: a key a claim is taking over right now, or one a concurrent sweep
     * holds, is left for later instead of waited for. ORDER BY expires_at takes the batch off the expiry index, oldest
     * first: a bare LIMIT may pick a sequential scan that reads past the rows every earlier batch deleted.
     */
    private final String forgetExpired;

    IdempotencyKeys(KeyHolder holder, IdempotencyConfig config) {
        this.ttlMillis = config.ttl().toMillis();
        String table = holder.table();
        String column = holder.keyColumn();
        this.release = "UPDATE " + table + " SET " + column + " = NULL WHERE " + column + " = $1";
        this.forgetExpired = """
                WITH expired AS (
                    SELECT key FROM idempotency_keys WHERE expires_at <= now() ORDER BY expires_at LIMIT $1
                    FOR UPDATE SKIP LOCKED),
                gone AS (DELETE FROM idempotency_keys WHERE key IN (SELECT key FROM expired) RETURNING key),
                freed AS (UPDATE %s SET %s = NULL WHERE %s IN (SELECT key FROM gone))
                SELECT count(*) FROM gone""".formatted(table, column, column);
    }

    /** What claiming a key found. */
    public sealed interface Claim {

        /** This transaction owns the key (an expired one was taken over and given up by its holder): do the work. */
        Claim OWNED = new Owned();

        record Owned() implements Claim {
        }

        /**
         * The key holds the answer to another request than the claimant's (another fingerprint): the claimant is
         * refused, and a request that asks what the stored one asked is that one's replay.
         */
        record Reused(String fingerprint, StoredAnswer answer) implements Claim {
        }

        /** An earlier request with this key and fingerprint was answered: its answer, to replay. */
        record Answered(StoredAnswer answer) implements Claim {
        }
    }

    /** Claims {@code key} inside the caller's transaction; it must run before any other write in it. */
    public Uni<Claim> claim(SqlConnection connection, String key, String fingerprint) {
        return connection.preparedQuery(CLAIM).execute(Tuple.of(key, fingerprint, ttlMillis)).chain(claimed -> {
            if (claimed.size() > 0) {
                return claimed.iterator().next().getBoolean("reclaimed")
                        ? connection.preparedQuery(release).execute(Tuple.of(key)).replaceWith(Claim.OWNED)
                        : Uni.createFrom().item(Claim.OWNED);
            }
            return connection.preparedQuery(STORED).execute(Tuple.of(key)).map(rows -> stored(rows.iterator().next(), fingerprint));
        });
    }

    /**
     * Stores the owning transaction's answer, done with {@code value} (null when there is none), and returns it as it
     * will be replayed, byte for byte.
     */
    public Uni<StoredAnswer> done(SqlConnection connection, String key, JsonObject value) {
        return store(connection, key, false, value);
    }

    /** Stores the owning transaction's answer, a final refusal with its problem document; returned as replayed. */
    public Uni<StoredAnswer> refused(SqlConnection connection, String key, JsonObject problem) {
        return store(connection, key, true, problem);
    }

    /** Deletes at most {@code batch} expired keys in one statement and frees them on their holders; returns how many. */
    Uni<Integer> forgetExpired(SqlClient client, int batch) {
        return client.preparedQuery(forgetExpired).execute(Tuple.of(batch)).map(rows -> rows.iterator().next().getInteger(0));
    }

    private Uni<StoredAnswer> store(SqlConnection connection, String key, boolean refused, JsonObject body) {
        return connection.preparedQuery(STORE).execute(Tuple.of(key, refused, body))
                .map(rows -> new StoredAnswer(refused, rows.iterator().next().getString("body")));
    }

    private static Claim stored(Row stored, String fingerprint) {
        StoredAnswer answer = new StoredAnswer(stored.getBoolean("refused"), stored.getString("body"));
        String storedFingerprint = stored.getString("request_hash");
        return storedFingerprint.equals(fingerprint) ? new Claim.Answered(answer) : new Claim.Reused(storedFingerprint, answer);
    }
}
