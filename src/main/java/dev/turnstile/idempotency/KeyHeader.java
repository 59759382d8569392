package dev.turnstile.idempotency;

import java.util.List;

import jakarta.ws.rs.container.ContainerRequestContext;

import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import dev.turnstile.problem.ProblemException;

/**
 * The {@code Idempotency-Key} header is sent once and not empty, or the request is refused before any resource runs.
 * The resources validate the key's shape (Bean Validation on the header parameter), but they never see these two
 * cases: JAX-RS hands a parameter the first of several values and an empty value as no header at all. So a client
 * whose key came out empty, or that sent two, got an unkeyed write, which a retry would repeat.
 */
public class KeyHeader {

    @ServerRequestFilter
    public void sentOnceAndNotEmpty(ContainerRequestContext request) {
        List<String> keys = request.getHeaders().get(Idempotency.HEADER);
        if (keys != null && (keys.size() != 1 || keys.get(0).isEmpty())) {
            throw ProblemException.invalid("idempotencyKey", "must be sent once, not empty");
        }
    }
}
