package dev.turnstile.idempotency;

import java.util.List;

import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import dev.turnstile.problem.ProblemException;
import io.vertx.core.http.HttpServerRequest;

/**
 * The {@code Idempotency-Key} header is sent once and not empty, or the request is refused before any resource runs.
 * The resources validate the key's shape (Bean Validation on the header parameter), but they never see these two
 * cases: JAX-RS hands a parameter the first of several values and an empty value as no header at all. So a client
 * whose key came out empty, or that sent two, got an unkeyed write, which a retry would repeat.
 */
public class KeyHeader {

    /** Reads the Vert.x headers in place: JAX-RS's header map would copy every header of every request first. */
    @ServerRequestFilter
    public void sentOnceAndNotEmpty(HttpServerRequest request) {
        if (!request.headers().contains(Idempotency.HEADER)) {
            return;
        }
        List<String> keys = request.headers().getAll(Idempotency.HEADER);
        if (keys.size() != 1 || keys.get(0).isEmpty()) {
            throw ProblemException.invalid(Idempotency.HEADER, "must be sent once, not empty");
        }
    }
}
