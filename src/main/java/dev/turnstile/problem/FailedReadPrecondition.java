package dev.turnstile.problem;

import java.util.Map;

import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.MediaType;

import org.jboss.resteasy.reactive.server.ServerResponseFilter;

/**
 * A read under an If-Match that does not hold is refused by JAX-RS's {@code Request.evaluatePreconditions} with a
 * 412 and no body; every other refusal is a problem document with a stable reason, so this one is made one too. The
 * writes build their own 412 (the wings' STALE_VERSION, with what is current where they show it).
 */
public class FailedReadPrecondition {

    private static final MediaType PROBLEM = MediaType.valueOf(Problem.MEDIA_TYPE);

    @ServerResponseFilter
    public void describe(ContainerRequestContext request, ContainerResponseContext response) {
        if (response.getStatus() == 412 && !response.hasEntity() && HttpMethod.GET.equals(request.getMethod())) {
            response.setEntity(new Problem(412, "STALE_VERSION", "Precondition failed",
                    "The resource does not meet the If-Match sent (it changed since); GET it without and decide again.",
                    Map.of()), null, PROBLEM);
        }
    }
}
