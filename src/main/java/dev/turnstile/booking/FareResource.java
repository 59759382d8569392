package dev.turnstile.booking;

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
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Request;
import jakarta.ws.rs.core.Response;

import dev.turnstile.json.Identifier;
import io.smallrye.mutiny.Uni;

/** HTTP for fare administration; the rules live in {@link FareService}. */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class FareResource {

    private final FareService service;

    FareResource(FareService service) {
        this.service = service;
    }

    @PUT
    @Path("flights/{flightId}/fares/{fareClass}")
    public Uni<Response> put(@PathParam("flightId") @Identifier String flightId,
            @PathParam("fareClass") @Pattern(regexp = FareKey.FARE_CLASS) String fareClass,
            @NotNull @Valid FareRequest fare) {
        FareKey key = new FareKey(flightId, fareClass);
        return service.put(key, fare.seats(), fare.eliteReserveOrZero(), fare.shardsOrOne())
                .chain(created -> service.view(key).map(snapshot -> Response.status(created ? 201 : 200)
                        .entity(snapshot.view()).tag(new EntityTag(snapshot.entityTag())).build()));
    }

    @GET
    @Path("flights/{flightId}/fares/{fareClass}")
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
    public Uni<AuditView> audit(@PathParam("flightId") @Identifier String flightId,
            @PathParam("fareClass") @Pattern(regexp = FareKey.FARE_CLASS) String fareClass) {
        return service.audit(new FareKey(flightId, fareClass));
    }
}
