package dev.turnstile.problem;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * An RFC 9457 problem document. {@code reason} is Turnstile's stable, machine-readable code (clients switch on it,
 * never on {@code title} or {@code detail}); feature-specific members such as the current bike go in
 * {@code extensions} and are written at the top level, as the RFC asks.
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({ "type", "title", "status", "detail", "reason" })
public final class Problem {

    public static final String MEDIA_TYPE = "application/problem+json";

    private final String title;
    private final int status;
    private final String detail;
    private final String reason;
    private final Map<String, Object> extensions;

    public Problem(int status, String reason, String title, String detail, Map<String, Object> extensions) {
        this.status = status;
        this.reason = reason;
        this.title = title;
        this.detail = detail;
        this.extensions = new LinkedHashMap<>(extensions);
    }

    public String getType() {
        return "about:blank";
    }

    public String getTitle() {
        return title;
    }

    public int getStatus() {
        return status;
    }

    public String getDetail() {
        return detail;
    }

    public String getReason() {
        return reason;
    }

    @JsonAnyGetter
    public Map<String, Object> getExtensions() {
        return extensions;
    }
}
