package dev.turnstile.rental;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.turnstile.problem.ProblemException;

/** The answers a rental operation can end in, other than success. */
public final class RentalProblems {

    static final String LEASED = "LEASED";
    static final String CUSTOMER_HAS_ACTIVE_RENTAL = "CUSTOMER_HAS_ACTIVE_RENTAL";

    private RentalProblems() {
    }

    /** A business "no" (409): the state that was read does not allow the action. Never retried: reading again won't change it. */
    static ProblemException rejected(String reason, String detail) {
        return new ProblemException(409, reason, "Rental rejected", detail);
    }

    static ProblemException customerHasActiveRental() {
        return rejected(CUSTOMER_HAS_ACTIVE_RENTAL, "The customer already has an active rental");
    }

    /** Someone else holds the bike's lease. Says who and until when, never the token. */
    static ProblemException leased(String bikeId, String holder, Instant expiresAt) {
        Map<String, Object> holderAndExpiry = new LinkedHashMap<>();
        holderAndExpiry.put("holder", holder);
        holderAndExpiry.put("expiresAt", expiresAt);
        return new ProblemException(409, LEASED, "Bike is leased", "Bike " + bikeId + " is leased by " + holder + " until "
                + expiresAt + "; only the holder (with its Lease-Token) can change it before then", holderAndExpiry);
    }

    static ProblemException leaseNotHeld(String bikeId) {
        return new ProblemException(409, "LEASE_NOT_HELD", "Lease not held",
                "No lease on bike " + bikeId + " is held with this token");
    }

    static ProblemException bikeExists(String bikeId) {
        return new ProblemException(409, "BIKE_EXISTS", "Bike exists", "Bike " + bikeId + " already exists; it was left unchanged");
    }

    static ProblemException bikeNotFound(String bikeId) {
        return new ProblemException(404, "BIKE_NOT_FOUND", "Bike not found", "There is no bike " + bikeId);
    }

    /** The client's {@code If-Match} names an older version. The body carries the current bike so the form can be redone. */
    static ProblemException staleVersion(Bike current) {
        return new BikeProblem(412, "STALE_VERSION", "Precondition failed",
                "Bike " + current.bikeId() + " is at version " + current.version() + "; reload it and apply the edit again",
                current);
    }

    /** Every attempt lost a race; the current bike when known (a transaction conflict does not tell which version won). */
    static ProblemException versionConflict(VersionConflict conflict) {
        String detail = "Bike " + conflict.bikeId() + " was changed concurrently; try again";
        return conflict.current()
                .<ProblemException>map(current -> new BikeProblem(409, "VERSION_CONFLICT", "Version conflict", detail, current))
                .orElseGet(() -> new ProblemException(409, "VERSION_CONFLICT", "Version conflict", detail));
    }

    /** A write without If-Match could overwrite a change its author never saw: RFC 6585 says 428. */
    static ProblemException preconditionRequired() {
        return new ProblemException(428, "PRECONDITION_REQUIRED", "Precondition required",
                "Send If-Match with the ETag of the bike you edited (GET /bikes/{bikeId})");
    }

    /** The store's refusals in the client's terms; anything else passes unchanged. */
    static Throwable answer(Throwable failure) {
        if (failure instanceof BikeNotFound missing) {
            return bikeNotFound(missing.bikeId());
        }
        if (failure instanceof VersionConflict conflict) {
            return versionConflict(conflict);
        }
        if (failure instanceof CustomerHasActiveRental) {
            return customerHasActiveRental();
        }
        return failure;
    }
}
