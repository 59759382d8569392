package dev.turnstile.idempotency;

/**
 * What a request under an {@code Idempotency-Key} came to: done now ({@link Fresh}), or done before and answered
 * again from what was stored ({@link Replay}). Services return it; the resource alone turns it into a status, a body
 * and the {@code Idempotent-Replayed} header.
 */
public sealed interface Keyed<T> {

    static <T> Keyed<T> fresh(T value) {
        return new Fresh<>(value);
    }

    static <T> Keyed<T> replay(StoredAnswer stored) {
        return new Replay<>(stored);
    }

    record Fresh<T>(T value) implements Keyed<T> {
    }

    record Replay<T>(StoredAnswer stored) implements Keyed<T> {
    }
}
