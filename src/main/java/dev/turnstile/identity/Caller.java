package dev.turnstile.identity;

import java.util.Map;

import dev.turnstile.problem.ProblemException;

/**
 * Who sends a request, as its verified token says: the subject, whether they are staff, whether they are elite.
 * Nothing here comes from the request body, which a caller writes themselves.
 */
public record Caller(String subject, boolean staff, boolean elite) {

    /**
     * The account a request acts for. A customer acts for themselves, so a body that names someone else is refused;
     * staff act for the account they name (an agent booking for a passenger), or for themselves when they name none.
     */
    public String actingFor(String named) {
        if (named == null || named.equals(subject)) {
            return subject;
        }
        if (staff) {
            return named;
        }
        throw new ProblemException(403, "NOT_YOUR_ACCOUNT", "Not your account",
                "The token's subject may act only for itself", Map.of());
    }

    /** Whether this caller may see what belongs to {@code owner}. */
    public boolean mayRead(String owner) {
        return staff || subject.equals(owner);
    }

    /**
     * An Idempotency-Key in the caller's own space, so one customer's key neither collides with nor replays
     * another's. The subject's length leads, so no subject/key pair can spell another pair.
     */
    public String scope(String idempotencyKey) {
        return subject.length() + ":" + subject + ":" + idempotencyKey;
    }
}
