package dev.turnstile.identity;

import java.util.Map;

import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

/** Test only: shows what the identity floor makes of a token, before any wing uses it. */
@Path("/test-only/caller")
@Produces(MediaType.APPLICATION_JSON)
public class CallerProbeResource {

    private final Callers callers;
    private final AttemptLimits limits;

    CallerProbeResource(Callers callers, AttemptLimits limits) {
        this.callers = callers;
        this.limits = limits;
    }

    @GET
    @RolesAllowed({ Roles.CUSTOMER, Roles.STAFF })
    public Map<String, Object> caller(@QueryParam("for") String named, @QueryParam("key") String key) {
        Caller caller = callers.current();
        return Map.of("subject", caller.subject(), "staff", caller.staff(), "elite", caller.elite(),
                "actingFor", caller.actingFor(named), "scopedKey", key == null ? "" : caller.scope(key));
    }

    @GET
    @Path("staff")
    @RolesAllowed(Roles.STAFF)
    public String staffOnly() {
        return "ok";
    }

    @GET
    @Path("attempt/{n}")
    @RolesAllowed({ Roles.CUSTOMER, Roles.STAFF })
    public int attempt(@PathParam("n") int n) {
        limits.admit(callers.current());
        return n;
    }
}
