package dev.turnstile.problem;

import java.util.Map;

/**
 * A store (PostgreSQL, DynamoDB) that is restarting, unreachable, throttling or too slow to answer. It is a transient
 * fault, never a 500: the client should retry after {@code Retry-After}, with the same {@code Idempotency-Key} where
 * it sent one, because the request may or may not have taken effect.
 */
public final class StoreUnavailable extends ProblemException {

    public static final String REASON = "STORE_UNAVAILABLE";

    public StoreUnavailable(String store, long retryAfterSeconds) {
        super(503, REASON, "Store unavailable", store + " could not be reached in time; retry shortly "
                + "(with the same Idempotency-Key, if the request had one).", Map.of(), retryAfterSeconds);
    }
}
