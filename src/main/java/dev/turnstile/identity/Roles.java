package dev.turnstile.identity;

/**
 * The roles a token's groups claim grants ({@code smallrye.jwt.path.groups} names the claim for providers that put
 * groups elsewhere, such as Cognito's {@code cognito:groups}).
 */
public final class Roles {

    /** Rents and returns bikes, books seats, reads and cancels their own bookings. */
    public static final String CUSTOMER = "customer";
    /** Runs the fleet and the fares, reads audits, and acts for a named customer or passenger. */
    public static final String STAFF = "staff";

    private Roles() {
    }
}
