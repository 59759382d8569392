package dev.turnstile.rental;

import java.util.List;
import java.util.Optional;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
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

import dev.turnstile.problem.ProblemException;
import io.smallrye.mutiny.Uni;

/**
 * The bike rental HTTP API. It maps HTTP to {@link RentalService} and back: validation (Bean Validation), entity
 * tags (JAX-RS precondition evaluation, strong tag = version) and status codes; the decisions are the service's.
 */
@Path("/bikes")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class BikeResource {

    private static final String ID = BikeRequests.ID;
    private static final String ID_MESSAGE = BikeRequests.ID_MESSAGE;

    private final RentalService rentals;
    private final LeaseService leases;

    BikeResource(RentalService rentals, LeaseService leases) {
        this.rentals = rentals;
        this.leases = leases;
    }

    @POST
    public Uni<Response> create(@Valid @NotNull BikeRequests.NewBike body, @Context UriInfo uri) {
        return rentals.create(body.toBike())
                .map(bike -> Response.created(uri.getAbsolutePathBuilder().path(bike.bikeId()).build())
                        .tag(tag(bike)).entity(bike).build());
    }

    @GET
    @Path("{bikeId}")
    public Uni<Response> get(@PathParam("bikeId") @Pattern(regexp = ID, message = ID_MESSAGE) String bikeId,
            @Context Request request) {
        return rentals.get(bikeId).map(bike -> {
            Response.ResponseBuilder unchanged = request.evaluatePreconditions(tag(bike));
            return (unchanged != null ? unchanged : Response.ok(bike)).tag(tag(bike)).build();
        });
    }

    @GET
    public Uni<List<Bike>> atStation(@QueryParam("station") @NotBlank @Size(max = 64) String station,
            @QueryParam("status") @Pattern(regexp = BikeRequests.STATUS, message = BikeRequests.STATUS_MESSAGE) String status) {
        return rentals.atStation(station, Optional.ofNullable(status).map(BikeStatus::valueOf));
    }

    @POST
    @Path("{bikeId}/rent")
    public Uni<Response> rent(@PathParam("bikeId") @Pattern(regexp = ID, message = ID_MESSAGE) String bikeId,
            @QueryParam("mode") @Pattern(regexp = "condition|read-decide-write", message = "must be condition or read-decide-write") String mode,
            @HeaderParam("Idempotency-Key") @Size(max = 255) String idempotencyKey,
            @Valid @NotNull BikeRequests.Rent body) {
        Uni<Bike> rented = "condition".equals(mode)
                ? rentals.rentByCondition(bikeId, body.customerId())
                : rentals.rent(bikeId, body.customerId(), Optional.ofNullable(idempotencyKey));
        return rented.map(BikeResource::ok);
    }

    @POST
    @Path("{bikeId}/return")
    public Uni<Response> giveBack(@PathParam("bikeId") @Pattern(regexp = ID, message = ID_MESSAGE) String bikeId,
            @HeaderParam("Idempotency-Key") @Size(max = 255) String idempotencyKey,
            @Valid @NotNull BikeRequests.Return body) {
        return rentals.giveBack(bikeId, body.customerId(), body.station(), Optional.ofNullable(idempotencyKey))
                .map(BikeResource::ok);
    }

    @POST
    @Path("{bikeId}/service")
    @Consumes(MediaType.WILDCARD)
    public Uni<Response> service(@PathParam("bikeId") @Pattern(regexp = ID, message = ID_MESSAGE) String bikeId) {
        return rentals.service(bikeId).map(BikeResource::ok);
    }

    @PATCH
    @Path("{bikeId}")
    public Uni<Response> annotate(@PathParam("bikeId") @Pattern(regexp = ID, message = ID_MESSAGE) String bikeId,
            @HeaderParam(HttpHeaders.IF_MATCH) String ifMatch, @Valid @NotNull BikeRequests.Note body,
            @Context Request request) {
        requireIfMatch(ifMatch);
        return rentals.get(bikeId)
                .map(seen -> precondition(request, seen))
                .flatMap(seen -> rentals.annotate(seen, body.note()))
                .map(BikeResource::ok);
    }

    @DELETE
    @Path("{bikeId}")
    public Uni<Response> delete(@PathParam("bikeId") @Pattern(regexp = ID, message = ID_MESSAGE) String bikeId,
            @HeaderParam(HttpHeaders.IF_MATCH) String ifMatch, @Context Request request) {
        requireIfMatch(ifMatch);
        return rentals.get(bikeId)
                .map(seen -> precondition(request, seen))
                .flatMap(rentals::delete)
                .map(deleted -> Response.noContent().build());
    }

    @POST
    @Path("{bikeId}/lease")
    public Uni<Response> lease(@PathParam("bikeId") @Pattern(regexp = ID, message = ID_MESSAGE) String bikeId,
            @Valid @NotNull BikeRequests.LeaseTerms body) {
        return leases.acquire(bikeId, body.holder(), body.ttlSeconds())
                .map(lease -> Response.status(Response.Status.CREATED).entity(lease).build());
    }

    @DELETE
    @Path("{bikeId}/lease")
    public Uni<Response> release(@PathParam("bikeId") @Pattern(regexp = ID, message = ID_MESSAGE) String bikeId,
            @HeaderParam("Lease-Token") @NotBlank @Size(max = 64) String leaseToken) {
        return leases.release(bikeId, leaseToken).map(released -> Response.noContent().build());
    }

    /** A write without If-Match could overwrite a change its author never saw: RFC 6585 says 428. */
    private static void requireIfMatch(String ifMatch) {
        if (ifMatch == null || ifMatch.isBlank()) {
            throw new ProblemException(428, "PRECONDITION_REQUIRED", "Precondition required",
                    "Send If-Match with the ETag of the bike you edited (GET /bikes/{bikeId})");
        }
    }

    private static Bike precondition(Request request, Bike seen) {
        if (request.evaluatePreconditions(tag(seen)) != null) {
            throw new StaleVersion(seen);
        }
        return seen;
    }

    private static Response ok(Bike bike) {
        return Response.ok(bike).tag(tag(bike)).build();
    }

    private static EntityTag tag(Bike bike) {
        return new EntityTag(Long.toString(bike.version()));
    }
}
