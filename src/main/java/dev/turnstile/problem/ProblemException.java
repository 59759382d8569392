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

    public ProblemException(int status, String reason, String title, String detail) {
        this(status, reason, title, detail, Map.of());
    }

    public ProblemException(int status, String reason, String title, String detail, Map<String, Object> extensions) {
        super(detail, null, false, false);
        this.status = status;
        this.reason = reason;
        this.title = title;
        this.extensions = extensions;
    }

    public int status() {
        return status;
    }

    public String reason() {
        return reason;
    }

    public Problem toProblem() {
        return new Problem(status, reason, title, getMessage(), extensions);
    }
}
