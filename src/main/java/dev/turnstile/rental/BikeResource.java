package dev.turnstile.rental;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.EntityTag;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Request;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

import org.eclipse.microprofile.openapi.annotations.enums.ParameterIn;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

import com.fasterxml.jackson.annotation.JsonInclude;

import dev.turnstile.idempotency.Idempotency;
import dev.turnstile.idempotency.Keyed;
import dev.turnstile.identity.AttemptLimits;
import dev.turnstile.identity.Caller;
import dev.turnstile.identity.Callers;
import dev.turnstile.identity.Roles;
import dev.turnstile.json.Identifier;
import dev.turnstile.problem.Problem;
import dev.turnstile.problem.ProblemException;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.mutiny.Uni;

/**
 * The bike rental HTTP API. It maps HTTP to {@link RentalService} and back: validation (Bean Validation), entity
 * tags (JAX-RS precondition evaluation, strong tag = version), status codes and the idempotency headers; the
 * decisions are the service's. Every error is {@code application/problem+json} ({@link Problem}).
 */
@Path("/bikes")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class BikeResource {

    private static final String LEASE_TOKEN = "Lease-Token";
    private static final java.util.regex.Pattern IDENTIFIER = java.util.regex.Pattern.compile(Identifier.PATTERN);
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    private final RentalService rentals;
    private final LeaseService leases;
    private final Callers callers;
    private final AttemptLimits limits;

    BikeResource(RentalService rentals, LeaseService leases, Callers callers, AttemptLimits limits) {
        this.rentals = rentals;
        this.leases = leases;
        this.callers = callers;
        this.limits = limits;
    }

    @POST
    @APIResponse(responseCode = "201", description = "Created; Location and ETag name the new bike",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Bike.class)))
    @APIResponse(responseCode = "400", description = "INVALID_REQUEST or MALFORMED_JSON",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "409", description = "BIKE_EXISTS: the stored bike is left as it was",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "503", description = "STORE_UNAVAILABLE, with Retry-After",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "401", description = "UNAUTHENTICATED: no valid bearer token (WWW-Authenticate: Bearer)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "403", description = "FORBIDDEN: staff only",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @RolesAllowed(Roles.STAFF)
    public Uni<Response> create(@Valid @NotNull BikeRequests.NewBike body, @Context UriInfo uri) {
        return rentals.create(body.toBike())
                .map(bike -> Response.created(uri.getAbsolutePathBuilder().path(bike.bikeId()).build())
                        .tag(tag(bike)).entity(bike).build());
    }

    @GET
    @Path("{bikeId}")
    @APIResponse(responseCode = "200", description = "The bike, with its ETag",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Bike.class)))
    @APIResponse(responseCode = "304", description = "If-None-Match names the current ETag")
    @APIResponse(responseCode = "412", description = "STALE_VERSION: If-Match was sent and does not name the current ETag",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "400", description = "INVALID_REQUEST",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "404", description = "BIKE_NOT_FOUND",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "503", description = "STORE_UNAVAILABLE, with Retry-After",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "401", description = "UNAUTHENTICATED: no valid bearer token (WWW-Authenticate: Bearer)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "403", description = "FORBIDDEN: neither customer nor staff",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @RolesAllowed({ Roles.CUSTOMER, Roles.STAFF })
    public Uni<Response> get(@PathParam("bikeId") @Identifier String bikeId, @Context Request request) {
        Caller caller = callers.current();
        return rentals.get(bikeId).map(bike -> {
            Response.ResponseBuilder unchanged = request.evaluatePreconditions(tag(bike));
            return (unchanged != null ? unchanged : Response.ok(shownTo(caller, bike))).tag(tag(bike)).build();
        });
    }

    /**
     * One page of a station's bikes. {@code cursor} is opaque to clients (base64url of where the page ended); a
     * page with a filter may hold fewer than {@code limit} bikes, even none, and still have a {@code next}.
     */
    @GET
    @APIResponse(responseCode = "200", description = "A page of bikes; Link rel=next when there may be more",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = StationPage.class)))
    @APIResponse(responseCode = "400", description = "INVALID_REQUEST (station, status, limit or cursor)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "503", description = "STORE_UNAVAILABLE, with Retry-After",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "401", description = "UNAUTHENTICATED: no valid bearer token (WWW-Authenticate: Bearer)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "403", description = "FORBIDDEN: neither customer nor staff",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @RolesAllowed({ Roles.CUSTOMER, Roles.STAFF })
    public Uni<Response> atStation(@QueryParam("station") @NotBlank @Identifier String station,
            @QueryParam("status") BikeStatus status,
            @QueryParam("limit") @DefaultValue("50") @Min(1) @Max(500) int limit,
            @QueryParam("cursor") @Size(max = 200) String cursor, @Context UriInfo uri) {
        Optional<String> after = Optional.ofNullable(cursor).map(BikeResource::afterBikeId);
        Caller caller = callers.current();
        return rentals.atStation(station, Optional.ofNullable(status), limit, after)
                .map(page -> {
                    List<Bike> shown = page.bikes().stream().map(bike -> shownTo(caller, bike)).toList();
                    Optional<String> next = page.lastBikeId().map(last -> ENCODER.encodeToString(
                            last.getBytes(StandardCharsets.UTF_8)));
                    Response.ResponseBuilder answer = Response.ok(new StationPage(shown, next.orElse(null)));
                    next.ifPresent(token -> answer.link(uri.getRequestUriBuilder().replaceQueryParam("cursor", token).build(), "next"));
                    return answer.build();
                });
    }

    /** The body of a station listing: the bikes, and the cursor of the next page when there may be one. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @RegisterForReflection
    public record StationPage(List<Bike> bikes, String next) {
    }

    private static String afterBikeId(String cursor) {
        try {
            String bikeId = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            if (IDENTIFIER.matcher(bikeId).matches()) {
                return bikeId;
            }
        } catch (IllegalArgumentException notBase64) {
            // answered below, like any other cursor that this API did not hand out
        }
        throw ProblemException.invalid("cursor", "is not a cursor from a next link");
    }

    @POST
    @Path("{bikeId}/rent")
    @APIResponse(responseCode = "200", description = "Rented; with an Idempotency-Key a replay carries Idempotent-Replayed: true",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Bike.class)))
    @APIResponse(responseCode = "400", description = "INVALID_REQUEST (an Idempotency-Key or If-Match with mode=condition too) or MALFORMED_JSON",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "404", description = "BIKE_NOT_FOUND",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "409", description = "NOT_AVAILABLE, SERVICE_DUE, LEASED, CUSTOMER_HAS_ACTIVE_RENTAL, "
            + "VERSION_CONFLICT or IDEMPOTENCY_IN_PROGRESS (with Retry-After)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "422", description = "IDEMPOTENCY_KEY_REUSED",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "503", description = "STORE_UNAVAILABLE, with Retry-After",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "401", description = "UNAUTHENTICATED: no valid bearer token (WWW-Authenticate: Bearer)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "403", description = "FORBIDDEN, or NOT_YOUR_ACCOUNT: a customer's body names another customer",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "429", description = "TOO_MANY_ATTEMPTS: the customer's attempts per second are used up, with Retry-After",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "412", description = "STALE_VERSION: If-Match did not hold (the bike changed since); the current bike, nothing written",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @RolesAllowed({ Roles.CUSTOMER, Roles.STAFF })
    public Uni<Response> rent(@PathParam("bikeId") @Identifier String bikeId,
            @QueryParam(RentMode.PARAMETER) @DefaultValue("read-decide-write")
            @Parameter(schema = @Schema(type = SchemaType.STRING, enumeration = { "condition", "read-decide-write" })) RentMode mode,
            @HeaderParam(Idempotency.HEADER) @Pattern(regexp = Idempotency.KEY_PATTERN, message = Idempotency.KEY_MESSAGE) String idempotencyKey,
            @HeaderParam(LEASE_TOKEN) @Size(max = 64) String leaseToken,
            @HeaderParam(HttpHeaders.IF_MATCH)
            @Parameter(description = "Rent only if the bike is still at this ETag (not with mode=condition)") String ifMatch,
            @HeaderParam(HttpHeaders.IF_NONE_MATCH)
            @Parameter(description = "Rent only if the bike is no longer at this ETag (not with mode=condition)") String ifNoneMatch,
            @Valid @NotNull BikeRequests.Rent body, @Context Request request) {
        Caller caller = callers.current();
        limits.admit(caller);
        String customerId = caller.actingFor(body.customerId());
        if (mode == RentMode.CONDITION) {
            // one UpdateItem cannot also write the key's record, nor does it read a version to test; the
            // read-decide-write path can do both
            if (idempotencyKey != null) {
                throw ProblemException.invalid(Idempotency.HEADER, "cannot be combined with mode=condition");
            }
            if (ifMatch != null) {
                throw ProblemException.invalid(HttpHeaders.IF_MATCH, "cannot be combined with mode=condition");
            }
            if (ifNoneMatch != null) {
                throw ProblemException.invalid(HttpHeaders.IF_NONE_MATCH, "cannot be combined with mode=condition");
            }
            return shownTo(caller, rentals.rentByCondition(bikeId, customerId, leaseToken).map(BikeResource::ok));
        }
        if (idempotencyKey == null) {
            return shownTo(caller, rentals.rent(bikeId, customerId, leaseToken, seen(request)).map(BikeResource::ok));
        }
        return shownTo(caller, rentals.rent(bikeId, customerId, leaseToken, seen(request), caller.scope(idempotencyKey))
                .map(BikeResource::keyed));
    }

    @POST
    @Path("{bikeId}/return")
    @APIResponse(responseCode = "200", description = "Returned; with an Idempotency-Key a replay carries Idempotent-Replayed: true",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Bike.class)))
    @APIResponse(responseCode = "400", description = "INVALID_REQUEST or MALFORMED_JSON",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "404", description = "BIKE_NOT_FOUND",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "409", description = "NOT_RENTED, WRONG_CUSTOMER, VERSION_CONFLICT or IDEMPOTENCY_IN_PROGRESS "
            + "(with Retry-After)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "422", description = "IDEMPOTENCY_KEY_REUSED",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "503", description = "STORE_UNAVAILABLE, with Retry-After",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "401", description = "UNAUTHENTICATED: no valid bearer token (WWW-Authenticate: Bearer)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "403", description = "FORBIDDEN, or NOT_YOUR_ACCOUNT: a customer's body names another customer",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "429", description = "TOO_MANY_ATTEMPTS: the customer's attempts per second are used up, with Retry-After",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "412", description = "STALE_VERSION: If-Match did not hold (the bike changed since); the current bike, nothing written",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @Parameter(name = HttpHeaders.IF_MATCH, in = ParameterIn.HEADER, required = false, schema = @Schema(type = SchemaType.STRING),
            description = "Act only if the bike is still at this ETag (from GET, or the answer of the last change)")
    @RolesAllowed({ Roles.CUSTOMER, Roles.STAFF })
    public Uni<Response> giveBack(@PathParam("bikeId") @Identifier String bikeId,
            @HeaderParam(Idempotency.HEADER) @Pattern(regexp = Idempotency.KEY_PATTERN, message = Idempotency.KEY_MESSAGE) String idempotencyKey,
            @Valid @NotNull BikeRequests.Return body, @Context Request request) {
        Caller caller = callers.current();
        limits.admit(caller);
        String customerId = caller.actingFor(body.customerId());
        if (idempotencyKey == null) {
            return shownTo(caller, rentals.giveBack(bikeId, customerId, body.station(), seen(request)).map(BikeResource::ok));
        }
        return shownTo(caller, rentals.giveBack(bikeId, customerId, body.station(), seen(request), caller.scope(idempotencyKey))
                .map(BikeResource::keyed));
    }

    @POST
    @Path("{bikeId}/service")
    @Consumes(MediaType.WILDCARD)
    @APIResponse(responseCode = "200", description = "Serviced; with an Idempotency-Key a replay carries Idempotent-Replayed: true",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Bike.class)))
    @APIResponse(responseCode = "400", description = "INVALID_REQUEST",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "404", description = "BIKE_NOT_FOUND",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "409", description = "NOT_IN_MAINTENANCE, LEASED, VERSION_CONFLICT or IDEMPOTENCY_IN_PROGRESS "
            + "(with Retry-After)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "422", description = "IDEMPOTENCY_KEY_REUSED",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "503", description = "STORE_UNAVAILABLE, with Retry-After",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "401", description = "UNAUTHENTICATED: no valid bearer token (WWW-Authenticate: Bearer)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "403", description = "FORBIDDEN: staff only",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "412", description = "STALE_VERSION: If-Match did not hold (the bike changed since); the current bike, nothing written",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @Parameter(name = HttpHeaders.IF_MATCH, in = ParameterIn.HEADER, required = false, schema = @Schema(type = SchemaType.STRING),
            description = "Act only if the bike is still at this ETag (from GET, or the answer of the last change)")
    @RolesAllowed(Roles.STAFF)
    public Uni<Response> service(@PathParam("bikeId") @Identifier String bikeId,
            @HeaderParam(Idempotency.HEADER) @Pattern(regexp = Idempotency.KEY_PATTERN, message = Idempotency.KEY_MESSAGE) String idempotencyKey,
            @HeaderParam(LEASE_TOKEN) @Size(max = 64) String leaseToken, @Context Request request) {
        if (idempotencyKey == null) {
            return rentals.service(bikeId, leaseToken, seen(request)).map(BikeResource::ok);
        }
        return rentals.service(bikeId, leaseToken, seen(request), callers.current().scope(idempotencyKey))
                .map(BikeResource::keyed);
    }

    @PATCH
    @Path("{bikeId}")
    @APIResponse(responseCode = "200", description = "The note is set; the new ETag",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Bike.class)))
    @APIResponse(responseCode = "400", description = "INVALID_REQUEST or MALFORMED_JSON",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "404", description = "BIKE_NOT_FOUND",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "409", description = "LEASED, or VERSION_CONFLICT when the current bike is not known",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "412", description = "STALE_VERSION, with the current bike as current",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "428", description = "PRECONDITION_REQUIRED: no If-Match",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "503", description = "STORE_UNAVAILABLE, with Retry-After",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "401", description = "UNAUTHENTICATED: no valid bearer token (WWW-Authenticate: Bearer)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "403", description = "FORBIDDEN: staff only",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @RolesAllowed(Roles.STAFF)
    public Uni<Response> annotate(@PathParam("bikeId") @Identifier String bikeId,
            @HeaderParam(HttpHeaders.IF_MATCH) String ifMatch, @HeaderParam(LEASE_TOKEN) @Size(max = 64) String leaseToken,
            @Valid @NotNull BikeRequests.Note body, @Context Request request) {
        requireIfMatch(ifMatch);
        return rentals.get(bikeId)
                .map(seen -> precondition(request, seen))
                .flatMap(seen -> rentals.annotate(seen, body.note(), leaseToken))
                .map(BikeResource::ok);
    }

    @DELETE
    @Path("{bikeId}")
    @APIResponse(responseCode = "204", description = "Deleted, with its lease if it had one")
    @APIResponse(responseCode = "400", description = "INVALID_REQUEST",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "404", description = "BIKE_NOT_FOUND",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "409", description = "BIKE_RENTED, LEASED, or VERSION_CONFLICT when the current bike is not known",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "412", description = "STALE_VERSION, with the current bike as current",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "428", description = "PRECONDITION_REQUIRED: no If-Match",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "503", description = "STORE_UNAVAILABLE, with Retry-After",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "401", description = "UNAUTHENTICATED: no valid bearer token (WWW-Authenticate: Bearer)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "403", description = "FORBIDDEN: staff only",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @RolesAllowed(Roles.STAFF)
    public Uni<Response> delete(@PathParam("bikeId") @Identifier String bikeId,
            @HeaderParam(HttpHeaders.IF_MATCH) String ifMatch, @HeaderParam(LEASE_TOKEN) @Size(max = 64) String leaseToken,
            @Context Request request) {
        requireIfMatch(ifMatch);
        return rentals.get(bikeId)
                .map(seen -> precondition(request, seen))
                .flatMap(seen -> rentals.delete(seen, leaseToken))
                .map(deleted -> Response.noContent().build());
    }

    @POST
    @Path("{bikeId}/lease")
    @APIResponse(responseCode = "201", description = "Leased: the token is the only way to use or release the lease early",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Lease.class)))
    @APIResponse(responseCode = "400", description = "INVALID_REQUEST or MALFORMED_JSON",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "404", description = "BIKE_NOT_FOUND",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "409", description = "LEASED (with holder and expiresAt) or VERSION_CONFLICT",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "503", description = "STORE_UNAVAILABLE, with Retry-After",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "401", description = "UNAUTHENTICATED: no valid bearer token (WWW-Authenticate: Bearer)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "403", description = "FORBIDDEN: staff only",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @RolesAllowed(Roles.STAFF)
    public Uni<Response> lease(@PathParam("bikeId") @Identifier String bikeId,
            @Valid @NotNull BikeRequests.LeaseTerms body) {
        return leases.acquire(bikeId, body.holder(), body.ttlSeconds())
                .map(lease -> Response.status(Response.Status.CREATED).entity(lease).build());
    }

    @DELETE
    @Path("{bikeId}/lease")
    @APIResponse(responseCode = "204", description = "Released")
    @APIResponse(responseCode = "400", description = "INVALID_REQUEST (no Lease-Token)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "409", description = "LEASE_NOT_HELD: wrong token or no lease; the lease stays",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "503", description = "STORE_UNAVAILABLE, with Retry-After",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "401", description = "UNAUTHENTICATED: no valid bearer token (WWW-Authenticate: Bearer)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "403", description = "FORBIDDEN: staff only",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @RolesAllowed(Roles.STAFF)
    public Uni<Response> release(@PathParam("bikeId") @Identifier String bikeId,
            @HeaderParam(LEASE_TOKEN) @NotBlank @Size(max = 64) String leaseToken) {
        return leases.release(bikeId, leaseToken).map(released -> Response.noContent().build());
    }

    private static void requireIfMatch(String ifMatch) {
        if (ifMatch == null || ifMatch.isBlank()) {
            throw RentalProblems.preconditionRequired();
        }
    }

    /** The request's If-Match / If-None-Match, for the service to test on each bike it reads (JAX-RS evaluates). */
    private static Predicate<String> seen(Request request) {
        return tag -> request.evaluatePreconditions(new EntityTag(tag)) == null;
    }

    private static Bike precondition(Request request, Bike seen) {
        if (request.evaluatePreconditions(tag(seen)) != null) {
            throw RentalProblems.staleVersion(seen);
        }
        return seen;
    }

    /** Who rents a bike is shown only to that customer and to staff. */
    private static Bike shownTo(Caller caller, Bike bike) {
        return caller.mayRead(bike.rentedBy()) ? bike : bike.withoutRenter();
    }

    /** The bike a refusal carries ({@link BikeProblem}) is shown as GET shows it. */
    private static Uni<Response> shownTo(Caller caller, Uni<Response> answer) {
        return answer.onFailure(BikeProblem.class)
                .transform(problem -> ((BikeProblem) problem).shownAs(bike -> shownTo(caller, bike)));
    }

    private static Response ok(Bike bike) {
        return Response.ok(bike).tag(tag(bike)).build();
    }

    /**
     * A keyed rent, return or service: 200 with the bike's JSON exactly as stored under the key, so that a replay
     * repeats the first answer byte for byte. A refusal is never stored (it frees the key), so a replay is a 200 too.
     */
    private static Response keyed(KeyedAnswer keyed) {
        Response.ResponseBuilder answer = Response.ok().type(MediaType.APPLICATION_JSON_TYPE).tag(new EntityTag(keyed.tag()));
        if (keyed.outcome() instanceof Keyed.Replay<String> replay) {
            return answer.entity(replay.stored().body()).header(Idempotency.REPLAYED_HEADER, "true").build();
        }
        return answer.entity(((Keyed.Fresh<String>) keyed.outcome()).value()).build();
    }

    private static EntityTag tag(Bike bike) {
        return new EntityTag(bike.tag());
    }
}
