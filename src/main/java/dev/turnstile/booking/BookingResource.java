package dev.turnstile.booking;

import java.util.UUID;
import java.util.function.Function;
import java.util.function.Predicate;

import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
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
import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import dev.turnstile.booking.BookingService.BookingCommand;
import dev.turnstile.idempotency.Idempotency;
import dev.turnstile.idempotency.Keyed;
import dev.turnstile.idempotency.StoredAnswer;
import dev.turnstile.identity.AttemptLimits;
import dev.turnstile.identity.Caller;
import dev.turnstile.identity.Callers;
import dev.turnstile.identity.Roles;
import dev.turnstile.json.Identifier;
import dev.turnstile.problem.Problem;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonObject;

/** HTTP for bookings; the rules live in {@link BookingService}. */
@Tag(name = "Bookings")
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class BookingResource {

    static final String BOOKING_ID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";

    private final BookingService service;
    private final Callers callers;
    private final AttemptLimits limits;

    BookingResource(BookingService service, Callers callers, AttemptLimits limits) {
        this.service = service;
        this.callers = callers;
        this.limits = limits;
    }

    @POST
    @Path("flights/{flightId}/fares/{fareClass}/bookings")
    @RolesAllowed({ Roles.CUSTOMER, Roles.STAFF })
    @APIResponse(responseCode = "401", description = "UNAUTHENTICATED: no valid bearer token (the answer carries WWW-Authenticate: Bearer)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "403", description = "FORBIDDEN (the token is neither customer nor staff) or NOT_YOUR_ACCOUNT (a customer named another passenger)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "429", description = "TOO_MANY_ATTEMPTS: the account made too many booking attempts this second; retry after Retry-After",
            headers = @Header(name = "Retry-After", description = "Seconds", schema = @Schema(type = SchemaType.INTEGER)),
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "201", description = "Booked; Location and ETag name the booking as GET shows it",
            headers = {
                    @Header(name = HttpHeaders.LOCATION, description = "The booking's URI", schema = @Schema(type = SchemaType.STRING)),
                    @Header(name = HttpHeaders.ETAG, description = "For If-Match on DELETE", schema = @Schema(type = SchemaType.STRING)),
                    @Header(name = Idempotency.REPLAYED_HEADER, description = "true on an answer replayed under an Idempotency-Key",
                            schema = @Schema(type = SchemaType.STRING)) },
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = BookingView.class)))
    @APIResponse(responseCode = "400", description = "Invalid path, body or Idempotency-Key, or a strategy that is unknown or not "
            + "allowed (errors[] names strategy, allowed lists the values)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "404", description = "FARE_NOT_FOUND",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "409", description = "SOLD_OUT, ELITE_RESERVE, ALREADY_BOOKED (names the bookingId) or CONTENTION "
            + "(retries ran out)",
            headers = @Header(name = Idempotency.REPLAYED_HEADER, description = "true on an answer replayed under an Idempotency-Key",
                    schema = @Schema(type = SchemaType.STRING)),
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "422", description = "IDEMPOTENCY_KEY_REUSED: the key was used for another request",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "503", description = "BUSY (the fare is locked, or too many bookings wait), TIMEOUT or "
            + "STORE_UNAVAILABLE: retry after Retry-After",
            headers = @Header(name = "Retry-After", description = "Seconds", schema = @Schema(type = SchemaType.INTEGER)),
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public Uni<Response> book(@PathParam("flightId") @Identifier String flightId,
            @PathParam("fareClass") @Pattern(regexp = FareKey.FARE_CLASS) String fareClass,
            @QueryParam("strategy") @Parameter(description = "How the seat is taken (docs/booking.md); none: the default",
                    schema = @Schema(type = SchemaType.STRING, enumeration = { "optimistic", "pessimistic", "nowait",
                            "atomic", "serializable", "sharded", "batched" })) Strategy strategy,
            @HeaderParam(Idempotency.HEADER) @Pattern(regexp = Idempotency.KEY_PATTERN, message = Idempotency.KEY_MESSAGE) String idempotencyKey,
            @NotNull @Valid BookingRequest booking, @Context UriInfo uri) {
        Caller caller = callers.current();
        limits.admit(caller);
        // A customer's elite status is the token's; a body that claims it is ignored. Staff booking for a passenger
        // state the passenger's status themselves (an agent who checked it), so their body's elite is honoured.
        boolean elite = caller.staff() ? booking.isElite() : caller.elite();
        BookingCommand command = new BookingCommand(new FareKey(flightId, fareClass), strategy,
                caller.actingFor(booking.passengerId()), elite);
        if (idempotencyKey == null) {
            return service.book(command).map(view -> created(uri, view.bookingId()).tag(new EntityTag(view.entityTag()))
                    .entity(view).build());
        }
        return service.book(command, caller.scope(idempotencyKey)).map(keyed -> answer(keyed, stored -> {
            JsonObject view = new JsonObject(stored);
            Response.ResponseBuilder created = created(uri, view.getString("bookingId")).type(MediaType.APPLICATION_JSON).entity(stored);
            // an answer stored before bookings had a ticket status (2026-12-03) lacks half of the tag: it names none
            return view.containsKey("ticketStatus")
                    ? created.tag(new EntityTag(BookingView.entityTag(view.getString("status"), view.getString("ticketStatus"))))
                    : created;
        }));
    }

    @GET
    @Path("bookings/{bookingId}")
    @RolesAllowed({ Roles.CUSTOMER, Roles.STAFF })
    @APIResponse(responseCode = "401", description = "UNAUTHENTICATED: no valid bearer token (the answer carries WWW-Authenticate: Bearer)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "403", description = "FORBIDDEN: the token is neither customer nor staff",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "200", description = "The booking, with its ticket status, and its ETag (it moves on a cancel or a ticket issued)",
            headers = @Header(name = HttpHeaders.ETAG, description = "For If-None-Match here and If-Match on DELETE", schema = @Schema(type = SchemaType.STRING)),
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = BookingView.class)))
    @APIResponse(responseCode = "304", description = "Not modified: If-None-Match names the current ETag")
    @APIResponse(responseCode = "412", description = "STALE_VERSION: If-Match was sent and does not name the current ETag",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "400", description = "bookingId is not a UUID",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "404", description = "BOOKING_NOT_FOUND: no such booking, or another customer's",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "503", description = "STORE_UNAVAILABLE or BUSY: retry after Retry-After",
            headers = @Header(name = "Retry-After", description = "Seconds", schema = @Schema(type = SchemaType.INTEGER)),
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public Uni<Response> booking(@PathParam("bookingId") @Pattern(regexp = BOOKING_ID) String bookingId,
            @Context Request request) {
        return service.booking(UUID.fromString(bookingId), callers.current()).map(view -> {
            EntityTag tag = new EntityTag(view.entityTag());
            Response.ResponseBuilder unchanged = request.evaluatePreconditions(tag);
            return (unchanged != null ? unchanged : Response.ok(view)).tag(tag).build();
        });
    }

    @DELETE
    @Path("bookings/{bookingId}")
    @RolesAllowed({ Roles.CUSTOMER, Roles.STAFF })
    @APIResponse(responseCode = "401", description = "UNAUTHENTICATED: no valid bearer token (the answer carries WWW-Authenticate: Bearer)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "403", description = "FORBIDDEN: the token is neither customer nor staff",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "204", description = "Cancelled, the seat given back (also when it was cancelled already)",
            headers = @Header(name = Idempotency.REPLAYED_HEADER, description = "true on an answer replayed under an Idempotency-Key",
                    schema = @Schema(type = SchemaType.STRING)))
    @APIResponse(responseCode = "400", description = "bookingId is not a UUID, or a bad Idempotency-Key",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "404", description = "BOOKING_NOT_FOUND: no such booking, or another customer's",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "412", description = "STALE_VERSION: If-Match did not hold (cancelled or ticketed since); nothing changed",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "422", description = "IDEMPOTENCY_KEY_REUSED: the key was used for another request",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "503", description = "STORE_UNAVAILABLE, BUSY or TIMEOUT: retry after Retry-After",
            headers = @Header(name = "Retry-After", description = "Seconds", schema = @Schema(type = SchemaType.INTEGER)),
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @Parameter(name = HttpHeaders.IF_MATCH, in = ParameterIn.HEADER, required = false, schema = @Schema(type = SchemaType.STRING),
            description = "Cancel only if the booking is still at this ETag (for example: not ticketed yet)")
    public Uni<Response> cancel(@PathParam("bookingId") @Pattern(regexp = BOOKING_ID) String bookingId,
            @HeaderParam(Idempotency.HEADER) @Pattern(regexp = Idempotency.KEY_PATTERN, message = Idempotency.KEY_MESSAGE) String idempotencyKey,
            @Context Request request) {
        Caller caller = callers.current();
        // JAX-RS evaluates the request's preconditions; the service asks it with the tag it reads under its lock
        Predicate<String> seen = tag -> request.evaluatePreconditions(new EntityTag(tag)) == null;
        if (idempotencyKey == null) {
            return service.cancel(UUID.fromString(bookingId), caller, seen).map(done -> Response.noContent().build());
        }
        return service.cancel(UUID.fromString(bookingId), caller, seen, caller.scope(idempotencyKey))
                .map(keyed -> answer(keyed, nothing -> Response.noContent()));
    }

    /**
     * A new booking's answer names where it lives and, with its ETag as GET gives it, lets a client cancel it under
     * If-Match without a read first. A replay names what the first answer named: its tag may be stale by now, and a
     * conditional cancel with it then fails as it should.
     */
    private static Response.ResponseBuilder created(UriInfo uri, String bookingId) {
        return Response.created(uri.getBaseUriBuilder().path("bookings").path(bookingId).build());
    }

    /**
     * An answer under a key, first given or replayed: the stored bytes, as {@code done} answers them when the
     * operation was done, or with the status its problem document carries when it was refused.
     */
    private static Response answer(Keyed<StoredAnswer> keyed, Function<String, Response.ResponseBuilder> done) {
        boolean replayed = keyed instanceof Keyed.Replay;
        StoredAnswer answer = replayed ? ((Keyed.Replay<StoredAnswer>) keyed).stored()
                : ((Keyed.Fresh<StoredAnswer>) keyed).value();
        Response.ResponseBuilder response = answer.refused()
                ? Response.status(new JsonObject(answer.body()).getInteger("status")).type(Problem.MEDIA_TYPE).entity(answer.body())
                : done.apply(answer.body());
        return (replayed ? response.header(Idempotency.REPLAYED_HEADER, "true") : response).build();
    }
}
