package dev.turnstile;

/**
 * Under {@code -Plambda} the tests reach the app through Quarkus's mock Lambda event server, which, like Lambda
 * itself, hands the function one request at a time. Tests that need requests to overlap inside the app (to provoke
 * a conflict) cannot provoke one there and skip that part, saying so.
 */
public final class LambdaMode {

    public static final String NO_OVERLAP = "under -Plambda the mock event server serialises requests, so none overlap";

    private LambdaMode() {
    }

    public static boolean active() {
        try {
            Class.forName("io.quarkus.amazon.lambda.http.LambdaHttpHandler", false, LambdaMode.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
