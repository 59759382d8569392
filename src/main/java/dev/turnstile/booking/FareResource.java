package dev.turnstile.booking;

import java.util.function.Predicate;

import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.EntityTag;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Request;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.enums.ParameterIn;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import dev.turnstile.identity.Roles;
import dev.turnstile.json.Identifier;
import dev.turnstile.problem.Problem;
import io.smallrye.mutiny.Uni;

/** HTTP for fare administration; the rules live in {@link FareService}. */
@Tag(name = "Fares")
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class FareResource {

    private final FareService service;

    FareResource(FareService service) {
        this.service = service;
    }

    @PUT
    @RolesAllowed(Roles.STAFF)
    @APIResponse(responseCode = "401", description = "UNAUTHENTICATED: no valid bearer token (the answer carries WWW-Authenticate: Bearer)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "403", description = "FORBIDDEN: staff only",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "201", description = "The fare was created",
            headers = @Header(name = "ETag", description = "Changes with every booking, cancel and reset",
                    schema = @Schema(type = SchemaType.STRING)),
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = FareView.class)))
    @APIResponse(responseCode = "200", description = "The fare was reset to the new capacity, keeping its confirmed bookings",
            headers = @Header(name = "ETag", description = "Changes with every booking, cancel and reset",
                    schema = @Schema(type = SchemaType.STRING)),
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = FareView.class)))
    @APIResponse(responseCode = "400", description = "Invalid path, query, header or body; errors[] names each field",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "409", description = "SEATS_BELOW_BOOKED: fewer seats than confirmed bookings",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "412", description = "STALE_VERSION: If-Match or If-None-Match did not hold; nothing was written",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "503", description = "STORE_UNAVAILABLE or BUSY: retry after Retry-After",
            headers = @Header(name = "Retry-After", description = "Seconds", schema = @Schema(type = SchemaType.INTEGER)),
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @Parameter(name = HttpHeaders.IF_MATCH, in = ParameterIn.HEADER, required = false, schema = @Schema(type = SchemaType.STRING),
            description = "Reset only if the fare is still at this ETag (or exists, with *); the ETag moves with every booking too")
    @Parameter(name = HttpHeaders.IF_NONE_MATCH, in = ParameterIn.HEADER, required = false, schema = @Schema(type = SchemaType.STRING),
            description = "* creates the fare only if it does not exist yet, never resetting one")
    @Path("flights/{flightId}/fares/{fareClass}")
    public Uni<Response> put(@PathParam("flightId") @Identifier String flightId,
            @PathParam("fareClass") @Pattern(regexp = FareKey.FARE_CLASS) String fareClass,
            @NotNull @Valid FareRequest fare, @Context Request request) {
        FareKey key = new FareKey(flightId, fareClass);
        // JAX-RS evaluates the conditional headers (RFC 9110 13.2: strong comparison, *, lists); the service asks
        // it with the tag it reads under the write's locks. No fare yet: the no-argument form (If-Match fails).
        Predicate<String> preconditionHolds = current -> (current == null
                ? request.evaluatePreconditions()
                : request.evaluatePreconditions(new EntityTag(current))) == null;
        return service.put(key, fare.seats(), fare.eliteReserveOrZero(), fare.shardsOrOne(), preconditionHolds)
                .map(put -> Response.status(put.created() ? 201 : 200)
                        .entity(put.snapshot().view()).tag(new EntityTag(put.snapshot().entityTag())).build());
    }

    @GET
    @Path("flights/{flightId}/fares/{fareClass}")
    @RolesAllowed({ Roles.CUSTOMER, Roles.STAFF })
    @APIResponse(responseCode = "401", description = "UNAUTHENTICATED: no valid bearer token (the answer carries WWW-Authenticate: Bearer)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "403", description = "FORBIDDEN: the token is neither customer nor staff",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "200", description = "The fare",
            headers = @Header(name = "ETag", description = "Changes with every booking, cancel and reset",
                    schema = @Schema(type = SchemaType.STRING)),
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = FareView.class)))
    @APIResponse(responseCode = "304", description = "If-None-Match names the current ETag")
    @APIResponse(responseCode = "412", description = "STALE_VERSION: If-Match was sent and does not name the current ETag",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "400", description = "Invalid path, query, header or body; errors[] names each field",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "404", description = "FARE_NOT_FOUND",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "503", description = "STORE_UNAVAILABLE or BUSY: retry after Retry-After",
            headers = @Header(name = "Retry-After", description = "Seconds", schema = @Schema(type = SchemaType.INTEGER)),
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public Uni<Response> fare(@PathParam("flightId") @Identifier String flightId,
            @PathParam("fareClass") @Pattern(regexp = FareKey.FARE_CLASS) String fareClass, @Context Request request) {
        return service.view(new FareKey(flightId, fareClass)).map(snapshot -> {
            EntityTag tag = new EntityTag(snapshot.entityTag());
            Response.ResponseBuilder unchanged = request.evaluatePreconditions(tag);
            return (unchanged != null ? unchanged : Response.ok(snapshot.view()).tag(tag)).build();
        });
    }

    @GET
    @Path("flights/{flightId}/fares/{fareClass}/audit")
    @RolesAllowed(Roles.STAFF)
    @APIResponse(responseCode = "401", description = "UNAUTHENTICATED: no valid bearer token (the answer carries WWW-Authenticate: Bearer)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "403", description = "FORBIDDEN: staff only",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "200", description = "The invariant seatsTotal = seatsAvailable + confirmedBookings, read in one snapshot",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = AuditView.class)))
    @APIResponse(responseCode = "400", description = "Invalid path, query, header or body; errors[] names each field",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "404", description = "FARE_NOT_FOUND",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "503", description = "STORE_UNAVAILABLE or BUSY: retry after Retry-After",
            headers = @Header(name = "Retry-After", description = "Seconds", schema = @Schema(type = SchemaType.INTEGER)),
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public Uni<AuditView> audit(@PathParam("flightId") @Identifier String flightId,
            @PathParam("fareClass") @Pattern(regexp = FareKey.FARE_CLASS) String fareClass) {
        return service.audit(new FareKey(flightId, fareClass));
    }
}
