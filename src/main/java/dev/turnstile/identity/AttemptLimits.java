package dev.turnstile.identity;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import dev.turnstile.problem.ProblemException;

/**
 * How many booking and renting attempts a customer may make per second, so that one account cannot flood a flash
 * sale. Hand-written because the kept libraries do not count per caller: SmallRye Fault Tolerance's rate limit is one
 * budget per method, shared by everyone. A fixed one-second window per subject on this instance; with N instances an
 * account gets at most N times the figure, which still bounds a flood.
 */
@ApplicationScoped
public class AttemptLimits {

    /** Beyond this many tracked subjects the windows of past seconds are dropped, so the map stays small. */
    private static final int TRACKED = 10_000;

    private record Window(long second, int attempts) {
    }

    private final Map<String, Window> windows = new ConcurrentHashMap<>();
    private final int perSecond;

    @Inject
    AttemptLimits(IdentityConfig config) {
        this(config.attemptsPerSecond());
    }

    AttemptLimits(int perSecond) {
        this.perSecond = perSecond;
    }

    /** Counts one attempt of the caller; refuses it with 429 TOO_MANY_ATTEMPTS when their second is used up. */
    public void admit(Caller caller) {
        if (perSecond == 0 || caller.staff()) {
            return;
        }
        admit(caller, System.currentTimeMillis() / 1000);
    }

    /**
     * An attempt that read the clock before a boundary but counts itself after an attempt of the next second counts
     * in that newer window: replacing it would start the newer second's count again.
     */
    void admit(Caller caller, long second) {
        if (windows.size() > TRACKED) {
            windows.values().removeIf(window -> window.second() < second);
        }
        Window window = windows.merge(caller.subject(), new Window(second, 1),
                (old, first) -> old.second() >= second ? new Window(old.second(), old.attempts() + 1) : first);
        if (window.attempts() > perSecond) {
            throw new ProblemException(429, "TOO_MANY_ATTEMPTS", "Too many attempts",
                    "At most " + perSecond + " booking or renting attempts per second per account", Map.of(), 1);
        }
    }
}
