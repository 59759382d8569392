package dev.turnstile.problem;

import java.io.CharConversionException;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import jakarta.validation.ConstraintViolation;
import jakarta.validation.ConstraintViolationException;
import jakarta.validation.ElementKind;
import jakarta.validation.Path;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import io.vertx.ext.web.RoutingContext;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * Every error leaves Turnstile as {@code application/problem+json}. Input errors name the field, so that a client
 * can point at it; anything unexpected is a 500 with a log line and no internals in the body.
 */
public class ProblemMappers {

    private static final Logger LOG = Logger.getLogger(ProblemMappers.class);

    private final CurrentVertxRequest current;

    ProblemMappers(CurrentVertxRequest current) {
        this.current = current;
    }

    @ServerExceptionMapper
    public Response known(ProblemException e) {
        Response response = respond(e.toProblem());
        return e.retryAfterSeconds() > 0
                ? Response.fromResponse(response).header("Retry-After", e.retryAfterSeconds()).build()
                : response;
    }

    @ServerExceptionMapper
    public Response invalid(ConstraintViolationException e) {
        return known(ProblemException.invalid(e.getConstraintViolations().stream()
                .map(v -> new ProblemException.FieldError(field(v), v.getMessage()))
                .sorted(Comparator.comparing(ProblemException.FieldError::field))
                .toList(), Map.of()));
    }

    @ServerExceptionMapper
    public Response unreadable(JsonProcessingException e) {
        if (e instanceof JsonMappingException mapping && !mapping.getPath().isEmpty()) {
            String field = jsonPath(mapping);
            String detail;
            if (mapping instanceof UnrecognizedPropertyException) {
                detail = "is not a known field";
            } else if (mapping.getCause() instanceof InputCoercionException range) {
                detail = "is out of range (expected " + expected(range.getTargetType()) + ")";
            } else if (mapping.getCause() instanceof StreamReadException unreadableValue) {
                // a parse error met while binding the field (bytes that are not UTF-8 inside its string): malformed
                // input, though Jackson reports it with the field's path
                return malformed(unreadableValue);
            } else if (mapping instanceof InvalidFormatException wrong) {
                detail = "cannot be " + describe(wrong.getValue()) + " (expected " + expected(wrong.getTargetType()) + ")";
            } else if (mapping instanceof MismatchedInputException mismatched && mismatched.getTargetType() != null) {
                detail = "has the wrong type (expected " + expected(mismatched.getTargetType()) + ")";
            } else {
                detail = "has the wrong type (expected " + expected(mapping) + ")";
            }
            return known(ProblemException.invalid(field, detail));
        }
        if (e instanceof StreamConstraintsException tooLarge) {
            // well-formed JSON with a value past the parser's limits (a number of over 1 000 digits), raised while
            // reading the token: the exception carries neither the parser nor a path, so the field cannot be named
            return respond(new Problem(400, "INVALID_REQUEST", "Invalid request",
                    "A value of the request body is too large to read" + (tooLarge.getOriginalMessage() != null
                            && tooLarge.getOriginalMessage().startsWith("Number value length") ? " (a number of too many digits)" : "")
                            + location(e), Map.of()));
        }
        // STRICT_DUPLICATE_DETECTION raises a parse error, told only by its message; the parser stands on the name
        if (e instanceof StreamReadException read && read.getProcessor() != null
                && e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Duplicate field")) {
            return known(ProblemException.invalid(read.getProcessor().getParsingContext().getCurrentName(), "appears more than once"));
        }
        // Jackson tells a second value after the first (FAIL_ON_TRAILING_TOKENS) only by its message
        boolean trailing = e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Trailing token");
        if (e instanceof MismatchedInputException && !trailing) {
            // well-formed JSON whose top level is no object: every request body of this API is one
            return respond(new Problem(400, "INVALID_REQUEST", "Invalid request", "The request body must be a JSON object", Map.of()));
        }
        return malformed(e);
    }

    /**
     * Jackson's encoding detection takes a body that starts with NUL bytes for UTF-32 and fails with an I/O error of
     * its own, which Quarkus REST's reader does not wrap as a parse error.
     */
    @ServerExceptionMapper
    public Response unreadable(CharConversionException e) {
        return respond(new Problem(400, "MALFORMED_JSON", "Malformed JSON",
                "The request body is not valid UTF-8, which JSON must be", Map.of()));
    }

    private Response malformed(JsonProcessingException e) {
        // RFC 8259 8.1: JSON between systems is UTF-8, whatever charset the Content-Type names
        boolean notUtf8 = e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Invalid UTF-8");
        return respond(new Problem(400, "MALFORMED_JSON", "Malformed JSON",
                (notUtf8 ? "The request body is not valid UTF-8, which JSON must be" : "The request body is not valid JSON")
                        + location(e), Map.of()));
    }

    /** Quarkus ships its own mapper for this subtype; being as specific keeps type errors in problem+json. */
    @ServerExceptionMapper
    public Response mismatched(MismatchedInputException e) {
        return unreadable(e);
    }

    @ServerExceptionMapper
    public Response http(WebApplicationException e, UriInfo uri) {
        if (e.getCause() instanceof JsonProcessingException json) {
            return unreadable(json);
        }
        // A ParamConverter's refusal, which JAX-RS wraps in a 404 (query and path parameters) or a 400
        if (e.getCause() instanceof ProblemException problem) {
            return known(problem);
        }
        int status = e.getResponse().getStatus();
        Response.Status known = Response.Status.fromStatusCode(status);
        String title = known == null ? "HTTP " + status : known.getReasonPhrase();
        String reason = known == null ? "HTTP_" + status : known.name();
        Response problem = respond(new Problem(status, reason, title, e.getMessage(), Map.of()));
        if (status != 405) {
            return problem;
        }
        return AllowedMethods.allowFor(uri.getPath())
                .map(allow -> Response.fromResponse(problem).header("Allow", allow).build()).orElse(problem);
    }

    // --- Identity: authentication runs when a route asks for a role (quarkus.http.auth.proactive=false), so its
    // failures reach these mappers and leave as problem+json like every other error ---

    /** No token, or one that is expired, wrongly signed, from another issuer or audience, or unsigned. */
    @ServerExceptionMapper({ AuthenticationFailedException.class, UnauthorizedException.class })
    public Response unauthenticated(RuntimeException e) {
        return Response.fromResponse(respond(new Problem(401, "UNAUTHENTICATED", "Unauthenticated",
                "A valid bearer token is required", Map.of()))).header("WWW-Authenticate", "Bearer").build();
    }

    @ServerExceptionMapper
    public Response forbidden(ForbiddenException e) {
        return respond(new Problem(403, "FORBIDDEN", "Forbidden", "The token's roles do not allow this", Map.of()));
    }

    // --- DynamoDB (AWS SDK) faults: unreachable, timing out or throttling is transient, a 503 the client retries ---

    private static final Set<String> DYNAMODB_THROTTLING = Set.of("ProvisionedThroughputExceededException",
            "RequestLimitExceeded", "ThrottlingException", "InternalServerError", "ServiceUnavailable");

    /** The SDK's client-side failures (ApiCallTimeoutException, ApiCallAttemptTimeoutException, no connection). */
    @ServerExceptionMapper
    public Response sdkClient(SdkClientException e) {
        LOG.warnf("DynamoDB unavailable: %s", e.getMessage());
        return known(new StoreUnavailable("DynamoDB", 1));
    }

    /** Cancellation reasons of a TransactWriteItems that say an item's partition was throttled, not refused. */
    private static final Set<String> TRANSACTION_THROTTLING = Set.of("ThrottlingError", "ProvisionedThroughputExceeded");

    @ServerExceptionMapper
    public Response awsService(AwsServiceException e) {
        if (e.isThrottlingException() || e.statusCode() >= 500 || (e.awsErrorDetails() != null
                && DYNAMODB_THROTTLING.contains(e.awsErrorDetails().errorCode()))
                || (e instanceof TransactionCanceledException cancelled && cancelled.hasCancellationReasons()
                        && cancelled.cancellationReasons().stream().anyMatch(reason -> TRANSACTION_THROTTLING.contains(reason.code())))) {
            LOG.warnf("DynamoDB throttling or unavailable: %s", e.getMessage());
            return known(new StoreUnavailable("DynamoDB", 1));
        }
        return unexpected(e);
    }

    @ServerExceptionMapper(priority = jakarta.ws.rs.Priorities.USER + 1000)
    public Response unexpected(Throwable e) {
        RoutingContext exchange = current.getCurrent();
        if (exchange != null && exchange.response().ended()) {
            // the layer that failed has answered already: Quarkus's size check, with its 413, ends a chunked body over
            // the limit and then fails the body's read; any client could fill the log with that as an error
            LOG.debugf("Failure after the answer was sent (%d): %s", exchange.response().getStatusCode(), e.toString());
            return Response.status(exchange.response().getStatusCode()).build();
        }
        LOG.error("Unexpected failure", e);
        return respond(new Problem(500, "INTERNAL_ERROR", "Internal error",
                "The request failed unexpectedly; it has been logged.", Map.of()));
    }

    public static Response respond(Problem problem) {
        return Response.status(problem.getStatus()).type(Problem.MEDIA_TYPE).entity(problem).build();
    }

    private static String field(ConstraintViolation<?> violation) {
        String last = null;
        for (Path.Node node : violation.getPropertyPath()) {
            if (node.getKind() == ElementKind.PROPERTY || node.getKind() == ElementKind.PARAMETER) {
                last = node.getName();
            }
        }
        return last == null ? violation.getPropertyPath().toString() : last;
    }

    private static String jsonPath(JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                path.append(path.isEmpty() ? "" : ".").append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                path.append('[').append(ref.getIndex()).append(']');
            }
        }
        return path.toString();
    }

    private static String expected(JsonMappingException e) {
        String message = e.getOriginalMessage();
        int at = message == null ? -1 : message.indexOf("of type `");
        if (at < 0) {
            return "another type";
        }
        String type = message.substring(at + 9, message.indexOf('`', at + 9));
        return simple(type);
    }

    private static String expected(Class<?> type) {
        if (type.isPrimitive() || Number.class.isAssignableFrom(type) || type == Boolean.class || type == String.class) {
            return simple(type.getName());
        }
        if (type.isEnum()) {
            return "one of " + List.of(type.getEnumConstants());
        }
        return simple(type.getName());
    }

    private static String simple(String type) {
        return switch (type) {
            case "int", "long", "java.lang.Integer", "java.lang.Long" -> "an integer";
            case "boolean", "java.lang.Boolean" -> "true or false";
            case "java.lang.String" -> "a string";
            default -> type.substring(type.lastIndexOf('.') + 1);
        };
    }

    private static String describe(Object value) {
        return value instanceof String s ? "\"" + s + "\"" : String.valueOf(value);
    }

    private static String location(JsonProcessingException e) {
        return e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
    }
}
