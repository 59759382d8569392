package dev.turnstile.problem;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Response;

import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * The methods each path of the API answers, for the {@code Allow} header of a 405 and of an OPTIONS answer. Written
 * here because Quarkus REST gets both wrong: its 405 carries no {@code Allow} (RFC 9110, 15.5.6: the server MUST
 * send one), and it answers OPTIONS with every method of the resource class whatever the path below it, so
 * {@code OPTIONS /flights/F/fares/Y/audit} listed PUT, POST and DELETE, and {@code OPTIONS /nope} answered 200.
 * {@code AllowedMethodsTest} holds this table to the OpenAPI document, so a new route cannot be left out.
 */
public class AllowedMethods {

    private static final List<Route> ROUTES = List.of(
            new Route("/bikes", HttpMethod.GET, HttpMethod.POST),
            new Route("/bikes/{bikeId}", HttpMethod.GET, HttpMethod.PATCH, HttpMethod.DELETE),
            new Route("/bikes/{bikeId}/rent", HttpMethod.POST),
            new Route("/bikes/{bikeId}/return", HttpMethod.POST),
            new Route("/bikes/{bikeId}/service", HttpMethod.POST),
            new Route("/bikes/{bikeId}/lease", HttpMethod.POST, HttpMethod.DELETE),
            new Route("/flights/{flightId}/fares/{fareClass}", HttpMethod.GET, HttpMethod.PUT),
            new Route("/flights/{flightId}/fares/{fareClass}/audit", HttpMethod.GET),
            new Route("/flights/{flightId}/fares/{fareClass}/bookings", HttpMethod.POST),
            new Route("/bookings/{bookingId}", HttpMethod.GET, HttpMethod.DELETE));

    /** The API's paths and the methods their resources declare (without the HEAD and OPTIONS every one answers). */
    static Map<String, Set<String>> declared() {
        return ROUTES.stream().collect(Collectors.toUnmodifiableMap(Route::template, Route::methods));
    }

    /** The {@code Allow} value for a request path, empty when no route of the API has that path. */
    static Optional<String> allowFor(String path) {
        String[] segments = segments(path);
        return ROUTES.stream().filter(route -> route.matches(segments)).findFirst().map(Route::allow);
    }

    /** OPTIONS, answered before Quarkus REST's own handler can list methods the path does not have. */
    @ServerRequestFilter(preMatching = true)
    public Optional<Response> options(ContainerRequestContext request) {
        if (!HttpMethod.OPTIONS.equals(request.getMethod())) {
            return Optional.empty();
        }
        Optional<String> allow = allowFor(request.getUriInfo().getPath());
        if (allow.isEmpty()) {
            throw new ProblemException(404, "NOT_FOUND", "Not Found", "No resource has this path");
        }
        return Optional.of(Response.noContent().header("Allow", allow.get()).build());
    }

    /** Quarkus REST routes {@code /bikes/} as {@code /bikes}: so does this. */
    private static String[] segments(String path) {
        String trimmed = path.startsWith("/") ? path.substring(1) : path;
        trimmed = trimmed.endsWith("/") ? trimmed.substring(0, trimmed.length() - 1) : trimmed;
        return trimmed.isEmpty() ? new String[0] : trimmed.split("/", -1);
    }

    private record Route(String template, Set<String> methods) {

        Route(String template, String... methods) {
            this(template, Set.of(methods));
        }

        boolean matches(String[] path) {
            String[] parts = segments(template);
            if (parts.length != path.length) {
                return false;
            }
            for (int i = 0; i < parts.length; i++) {
                boolean variable = parts[i].startsWith("{");
                if (variable ? path[i].isEmpty() : !parts[i].equals(path[i])) {
                    return false;
                }
            }
            return true;
        }

        String allow() {
            Set<String> allowed = new LinkedHashSet<>();
            for (String method : Arrays.asList(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.POST, HttpMethod.PUT,
                    HttpMethod.PATCH, HttpMethod.DELETE)) {
                if (methods.contains(method) || (method.equals(HttpMethod.HEAD) && methods.contains(HttpMethod.GET))) {
                    allowed.add(method);
                }
            }
            allowed.add(HttpMethod.OPTIONS);
            return String.join(", ", allowed);
        }
    }
}
