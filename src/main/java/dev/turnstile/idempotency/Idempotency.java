package dev.turnstile.idempotency;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

import dev.turnstile.problem.ProblemException;

/**
 * The idempotency vocabulary both wings speak (the semantics of Stripe and Powertools for AWS Lambda); each wing keeps
 * its keys in its own store. A key is scoped to its caller. The same key with the same fingerprint replays the stored
 * answer (same status, same body, plus {@code Idempotent-Replayed: true}); the same key with another fingerprint is
 * {@code 422 IDEMPOTENCY_KEY_REUSED}; a duplicate of a request still running is {@code 409 IDEMPOTENCY_IN_PROGRESS}
 * with {@code Retry-After}.
 *
 * <p>Fingerprint rule: the operation (what it does and what it acts on, with any mode or strategy that changes what
 * it does) and the request values that decide the outcome, in a fixed order; never headers, never the key itself.
 */
public final class Idempotency {

    public static final String HEADER = "Idempotency-Key";
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";
    /**
     * Printable ASCII without spaces, as the IETF Idempotency-Key draft and the usual SDKs produce, and without commas:
     * HTTP lets any hop join repeated header lines with commas (RFC 9110, 5.3; API Gateway does), so a key with one
     * could not be told from two keys.
     */
    public static final String KEY_PATTERN = "[\\x21-\\x2B\\x2D-\\x7E]{1,255}";
    /** What a key that does not match {@link #KEY_PATTERN} is told. */
    public static final String KEY_MESSAGE = "must be 1-255 printable ASCII characters without spaces or commas";

    public static final String KEY_REUSED = "IDEMPOTENCY_KEY_REUSED";
    public static final String IN_PROGRESS = "IDEMPOTENCY_IN_PROGRESS";

    private Idempotency() {
    }

    /**
     * SHA-256 (hex) over what makes two requests "the same", in the operation's own terms: its name and the values
     * that decide its outcome, in a fixed order (each length-prefixed, so no two lists of values read alike).
     */
    public static String fingerprintOf(String operation, Object... values) {
        StringBuilder text = new StringBuilder(operation);
        for (Object value : values) {
            String part = String.valueOf(value);
            text.append('\n').append(part.length()).append(':').append(part);
        }
        return sha256Hex(text.toString());
    }

    public static String sha256Hex(String text) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(sha.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JRE", e);
        }
    }

    public static ProblemException keyReused() {
        return new ProblemException(422, KEY_REUSED, "Idempotency key reused",
                "This Idempotency-Key was already used for a different request; use a new key for a new request.",
                Map.of("field", HEADER));
    }

    public static ProblemException inProgress(long retryAfterSeconds) {
        return new ProblemException(409, IN_PROGRESS, "Request in progress",
                "A request with this Idempotency-Key is still being processed; retry after a moment to get its answer.",
                Map.of("field", HEADER), retryAfterSeconds);
    }
}
