package dev.turnstile.problem;

import java.util.List;

import jakarta.ws.rs.core.HttpHeaders;

import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import io.vertx.core.http.HttpServerRequest;

/**
 * If-None-Match compares entity tags weakly (RFC 9110 13.1.2): {@code W/"x"} names the representation tagged
 * {@code "x"}. Quarkus REST's {@code Request.evaluatePreconditions} compares them strongly, so a client behind a proxy
 * that weakens the tags it passes on (nginx's gzip, many CDNs) never got a 304, and a fare reset sent under
 * If-None-Match with such a tag overwrote the fare it was meant to leave alone. Every tag this service sends is
 * strong, so dropping the weak marks from If-None-Match before a resource evaluates it is the weak comparison.
 * If-Match keeps its strong comparison: a weak tag there never matches.
 */
public class IfNoneMatchComparison {

    @ServerRequestFilter(preMatching = true)
    public void compareWeakly(HttpServerRequest request) {
        if (!request.headers().contains(HttpHeaders.IF_NONE_MATCH)) {
            return;
        }
        List<String> values = request.headers().getAll(HttpHeaders.IF_NONE_MATCH);
        if (values.stream().anyMatch(value -> value.contains("W/"))) {
            request.headers().set(HttpHeaders.IF_NONE_MATCH, values.stream().map(IfNoneMatchComparison::withoutWeakMarks).toList());
        }
    }

    /** The list with each {@code W/} in front of a tag removed; a {@code W/} inside a tag's quotes is its text. */
    static String withoutWeakMarks(String value) {
        StringBuilder strong = new StringBuilder(value.length());
        boolean quoted = false;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (!quoted && value.startsWith("W/\"", i)) {
                i++;
                continue;
            }
            if (c == '"') {
                quoted = !quoted;
            }
            strong.append(c);
        }
        return strong.toString();
    }
}
