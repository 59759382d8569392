package dev.turnstile.local;

/**
 * A local backend (PostgreSQL, dynalite) the dev or test profile needs is not there. The message says what to start
 * or which variable to set; a stack trace would only bury that sentence, so this exception carries none.
 */
public final class LocalBackendUnavailable extends RuntimeException {

    public LocalBackendUnavailable(String message) {
        super(message, null, false, false);
    }
}
