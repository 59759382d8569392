package dev.turnstile.rental;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.turnstile.problem.ProblemException;

/** 409: someone else holds the bike's lease. Says who and until when, never the token. */
public final class Leased extends ProblemException {

    public Leased(String bikeId, String holder, Instant expiresAt) {
        super(409, "LEASED", "Bike is leased", "Bike " + bikeId + " is leased by " + holder + " until " + expiresAt
                + "; only the holder (with its Lease-Token) can change it before then", holderAndExpiry(holder, expiresAt));
    }

    private static Map<String, Object> holderAndExpiry(String holder, Instant expiresAt) {
        Map<String, Object> members = new LinkedHashMap<>();
        members.put("holder", holder);
        members.put("expiresAt", expiresAt);
        return members;
    }
}
