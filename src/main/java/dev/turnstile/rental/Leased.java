package dev.turnstile.rental;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.turnstile.problem.ProblemException;

/** 409: someone else holds the bike's lease. Says who and until when, never the token. */
public final class Leased extends ProblemException {

    public Leased(Lease current) {
        super(409, "LEASED", "Bike is leased", "Bike " + current.bikeId() + " is leased by " + current.holder()
                + " until " + current.expiresAt(), holderAndExpiry(current));
    }

    private static Map<String, Object> holderAndExpiry(Lease current) {
        Map<String, Object> members = new LinkedHashMap<>();
        members.put("holder", current.holder());
        members.put("expiresAt", current.expiresAt());
        return members;
    }
}
