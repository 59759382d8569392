package dev.turnstile.booking;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.EntityTag;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Request;
import jakarta.ws.rs.core.Response;

import dev.turnstile.booking.BookingService.BookingCommand;
import dev.turnstile.idempotency.StoredResponse;
import dev.turnstile.problem.Problem;
import io.smallrye.mutiny.Uni;

/** HTTP for fares and bookings; every rule lives in {@link BookingService}. */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class BookingResource {

    static final String FLIGHT_ID = "[A-Za-z0-9][A-Za-z0-9._-]{0,63}";
    static final String FARE_CLASS = "[A-Za-z0-9]{1,8}";
    static final String UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";
    static final String KEY = "[\\x21-\\x7E]{1,255}";
    static final String IDEMPOTENCY_KEY = "Idempotency-Key";

    private final BookingService service;

    BookingResource(BookingService service) {
        this.service = service;
    }

    @PUT
    @Path("flights/{flightId}/fares/{fareClass}")
    public Uni<Response> putFare(@PathParam("flightId") @Pattern(regexp = FLIGHT_ID) String flightId,
            @PathParam("fareClass") @Pattern(regexp = FARE_CLASS) String fareClass,
            @NotNull @Valid FareRequest fare) {
        return service.putFare(flightId, fareClass, fare).chain(created -> service.fare(flightId, fareClass)
                .map(snapshot -> Response.status(created ? 201 : 200).entity(snapshot.view())
                        .tag(new EntityTag(snapshot.entityTag())).build()));
    }

    @GET
    @Path("flights/{flightId}/fares/{fareClass}")
    public Uni<Response> fare(@PathParam("flightId") @Pattern(regexp = FLIGHT_ID) String flightId,
            @PathParam("fareClass") @Pattern(regexp = FARE_CLASS) String fareClass, @Context Request request) {
        return service.fare(flightId, fareClass).map(snapshot -> {
            EntityTag tag = new EntityTag(snapshot.entityTag());
            Response.ResponseBuilder unchanged = request.evaluatePreconditions(tag);
            return (unchanged != null ? unchanged : Response.ok(snapshot.view()).tag(tag)).build();
        });
    }

    @GET
    @Path("flights/{flightId}/fares/{fareClass}/audit")
    public Uni<AuditView> audit(@PathParam("flightId") @Pattern(regexp = FLIGHT_ID) String flightId,
            @PathParam("fareClass") @Pattern(regexp = FARE_CLASS) String fareClass) {
        return service.audit(flightId, fareClass);
    }

    @POST
    @Path("flights/{flightId}/fares/{fareClass}/bookings")
    public Uni<Response> book(@PathParam("flightId") @Pattern(regexp = FLIGHT_ID) String flightId,
            @PathParam("fareClass") @Pattern(regexp = FARE_CLASS) String fareClass,
            @QueryParam("strategy") Strategy strategy,
            @HeaderParam(IDEMPOTENCY_KEY) @Pattern(regexp = KEY) String idempotencyKey,
            @NotNull @Valid BookingRequest booking) {
        BookingCommand command = new BookingCommand(flightId, fareClass, strategy, booking);
        if (idempotencyKey == null) {
            return service.book(command).map(view -> Response.status(201).entity(view).build());
        }
        return service.book(command, idempotencyKey).map(BookingResource::replay);
    }

    @GET
    @Path("bookings/{bookingId}")
    public Uni<BookingView> booking(@PathParam("bookingId") @Pattern(regexp = UUID) String bookingId) {
        return service.booking(bookingId);
    }

    @DELETE
    @Path("bookings/{bookingId}")
    public Uni<Response> cancel(@PathParam("bookingId") @Pattern(regexp = UUID) String bookingId,
            @HeaderParam(IDEMPOTENCY_KEY) @Pattern(regexp = KEY) String idempotencyKey) {
        if (idempotencyKey == null) {
            return service.cancel(bookingId).map(done -> Response.noContent().build());
        }
        return service.cancel(bookingId, idempotencyKey).map(BookingResource::replay);
    }

    /** The stored answer as it was first given: same status, same bytes. */
    private static Response replay(StoredResponse stored) {
        if (stored.body() == null) {
            return Response.status(stored.status()).build();
        }
        String type = stored.status() >= 400 ? Problem.MEDIA_TYPE : MediaType.APPLICATION_JSON;
        return Response.status(stored.status()).type(type).entity(stored.body()).build();
    }
}
