package dev.turnstile.problem;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

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

    /** One input field that was refused, and why ("must not exceed seats"). */
    public record FieldError(String field, String message) {
    }

    /**
     * The one way to say "400 INVALID_REQUEST": {@code errors[]} names every refused field, {@code detail} joins them,
     * {@code more} adds members (such as the allowed values).
     */
    public static ProblemException invalid(List<FieldError> errors, Map<String, Object> more) {
        Map<String, Object> extensions = new java.util.LinkedHashMap<>();
        extensions.put("errors", errors.stream().map(e -> Map.of("field", e.field(), "message", e.message())).toList());
        extensions.putAll(more);
        String detail = errors.stream().map(e -> e.field() + " " + e.message()).collect(Collectors.joining("; "));
        return new ProblemException(400, "INVALID_REQUEST", "Invalid request", detail, extensions);
    }

    public static ProblemException invalid(String field, String message) {
        return invalid(List.of(new FieldError(field, message)), Map.of());
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
