package dev.turnstile.rental;

/**
 * A transaction did not run because its idempotency record was already there (or DynamoDB saw the same client
 * request token with other items): the stored record decides the answer. Only for keyed requests; never reaches a
 * client.
 */
final class IdempotencyKeyTaken extends RuntimeException {

    IdempotencyKeyTaken() {
        super(null, null, false, false);
    }
}
