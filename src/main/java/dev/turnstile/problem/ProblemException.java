package dev.turnstile.problem;

import java.util.Map;

/**
 * A failure with a known HTTP answer. Services throw it (or a subclass) with a stable reason; the mapper turns it
 * into {@code application/problem+json}. It is an expected outcome, not a bug, so it carries no stack trace.
 */
public class ProblemException extends RuntimeException {

    private final int status;
    private final String reason;
    private final String title;
    private final Map<String, Object> extensions;
    private final long retryAfterSeconds;

    public ProblemException(int status, String reason, String title, String detail) {
        this(status, reason, title, detail, Map.of());
    }

    public ProblemException(int status, String reason, String title, String detail, Map<String, Object> extensions) {
        this(status, reason, title, detail, extensions, 0);
    }

    /**
     * A failure the same request may get past later: the answer carries {@code Retry-After} (RFC 9110) and the same
     * figure as {@code retryAfterSeconds} in the body, for clients that read only the body.
     */
    public ProblemException(int status, String reason, String title, String detail, Map<String, Object> extensions,
            long retryAfterSeconds) {
        super(detail, null, false, false);
        this.status = status;
        this.reason = reason;
        this.title = title;
        this.extensions = retryAfterSeconds > 0 ? withRetryAfter(extensions, retryAfterSeconds) : extensions;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    public int status() {
        return status;
    }

    public String reason() {
        return reason;
    }

    /** Seconds for {@code Retry-After}; 0 when the answer has none. */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    public Problem toProblem() {
        return new Problem(status, reason, title, getMessage(), extensions);
    }

    private static Map<String, Object> withRetryAfter(Map<String, Object> extensions, long seconds) {
        Map<String, Object> all = new java.util.LinkedHashMap<>(extensions);
        all.put("retryAfterSeconds", seconds);
        return all;
    }
}
