package dev.turnstile.problem;

import java.net.URI;
import java.util.List;
import java.util.Objects;

import jakarta.ws.rs.core.UriInfo;

import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import io.vertx.core.http.HttpServerRequest;

/**
 * The X-Forwarded-* headers a proxy sends must name an address: Quarkus copies them into the request's address
 * unchecked, and the links the API hands out are built on it. A host or scheme that is not one failed a new bike's or
 * booking's Location after the write (a 500 for a bike that was stored or a seat that was taken), and a prefix that is
 * not a path made a booking's Location name another host ({@code //evil.example}) or carry a query. Such a request is
 * refused before any resource runs, naming the header. The headers are looked up on the Vert.x request in place, as
 * {@code KeyHeader} does: JAX-RS's header map would copy every header of every request first.
 */
public class ForwardedAddress {

    private static final String PREFIX = "X-Forwarded-Prefix";
    private static final List<String> ADDRESS = List.of("X-Forwarded-Proto", "X-Forwarded-Host", "X-Forwarded-Port");

    @ServerRequestFilter(preMatching = true)
    public void namesAnAddress(HttpServerRequest request, UriInfo uri) {
        List<String> sent = ADDRESS.stream().filter(name -> request.headers().contains(name)).toList();
        boolean prefixed = request.headers().contains(PREFIX);
        if (sent.isEmpty() && !prefixed) {
            return;
        }
        URI address;
        try {
            address = uri.getRequestUri();
        } catch (RuntimeException notAnAddress) {
            throw ProblemException.invalid(String.join(", ", sent.isEmpty() ? List.of(PREFIX) : sent), "do not name an address");
        }
        if (prefixed) {
            URI base = uri.getBaseUri();
            if (!Objects.equals(base.getScheme(), address.getScheme())
                    || !Objects.equals(base.getRawAuthority(), address.getRawAuthority())
                    || base.getRawQuery() != null || base.getRawFragment() != null) {
                throw ProblemException.invalid(PREFIX, "must be a path");
            }
        }
    }
}
