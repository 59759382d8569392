package dev.turnstile.problem;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.runtime.configuration.MemorySize;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * The two refusals that Quarkus's HTTP layer answers before any JAX-RS resource or exception mapper runs, and would
 * answer with an empty body: a body over {@code quarkus.http.limits.max-body-size} (413) and a URL whose percent-encoding does not
 * decode (400). Here they become problem documents like every other error.
 */
@ApplicationScoped
public class HttpEdgeProblems {

    private static final Logger LOG = Logger.getLogger(HttpEdgeProblems.class);
    /** Read once by Quarkus's HTTP recorder when its class loads, so only a launch flag (-D) can set it. */
    static final String URI_CHECK_OFF = "vertx.disableURIValidation";

    private final ObjectMapper json;
    private final Optional<MemorySize> maxBodySize;

    HttpEdgeProblems(ObjectMapper json,
            @ConfigProperty(name = "quarkus.http.limits.max-body-size") Optional<MemorySize> maxBodySize) {
        this.json = json;
        this.maxBodySize = maxBodySize;
    }

    void install(@Observes Router router) {
        maxBodySize.ifPresent(limit -> router.route().order(RouteConstants.ROUTE_ORDER_UPLOAD_LIMIT - 1)
                .handler(context -> refuseOversized(context, limit.asLongValue())));
        router.route().order(Integer.MIN_VALUE).handler(this::refuseMalformedUrl);
    }

    /**
     * Quarkus's own limit check, one route later, ends the exchange with a bare 413; this one answers first when the
     * declared length is over the limit. A chunked body has no declared length and still meets Quarkus's check.
     */
    private void refuseOversized(RoutingContext context, long limit) {
        String declared = context.request().getHeader(HttpHeaders.CONTENT_LENGTH);
        if (declared == null || !isOver(declared, limit)) {
            context.next();
            return;
        }
        // the body is left unread, so the connection cannot carry another request
        context.response().putHeader(HttpHeaders.CONNECTION, "close");
        write(context, new Problem(413, "PAYLOAD_TOO_LARGE", "Payload too large",
                "The request body is larger than the " + size(limit) + " this service accepts.", Map.of()));
    }

    /**
     * Quarkus checks every request URI with {@link URI} before any route runs, and answers a broken one ({@code %zz},
     * {@code %A/}) with a bare 400; the launch switches that check off ({@value #URI_CHECK_OFF}=true, see
     * docs/ship.md) so that this route makes the same check and answers a problem document. Without the switch the
     * answer is still a 400, only without a body.
     */
    private void refuseMalformedUrl(RoutingContext context) {
        try {
            new URI(context.request().uri());
        } catch (URISyntaxException malformed) {
            LOG.debugf("Refused a malformed URL: %s", malformed.getMessage());
            write(context, new Problem(400, "MALFORMED_URL", "Malformed URL",
                    "The request URL is not validly percent-encoded: " + malformed.getReason() + ".", Map.of()));
            return;
        }
        context.next();
    }

    private void write(RoutingContext context, Problem problem) {
        String body;
        try {
            body = json.writeValueAsString(problem);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("A problem document always serialises", e);
        }
        context.response().setStatusCode(problem.getStatus())
                .putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE)
                .end(body);
    }

    private static boolean isOver(String declared, long limit) {
        try {
            return Long.parseLong(declared.trim()) > limit;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static String size(long bytes) {
        return bytes % 1024 == 0 ? bytes / 1024 + " KiB" : bytes + " bytes";
    }
}
