package dev.turnstile.identity;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

import dev.turnstile.problem.ProblemException;

/**
 * The per-customer window at a second's boundary. A request that read the clock just before the boundary but counted
 * itself after one of the next second had replaced that second's window with its own, so the next second's count began
 * again at 1: a customer firing across boundaries got more than the limit through.
 */
class AttemptLimitsTest {

    @Test
    void aLateAttemptOfThePreviousSecondDoesNotRestartTheCurrentOne() {
        AttemptLimits limits = new AttemptLimits(2);
        Caller customer = new Caller("c-limit", false, false);

        limits.admit(customer, 101);
        limits.admit(customer, 100);
        ProblemException refused = assertThrows(ProblemException.class, () -> limits.admit(customer, 101));
        assertEquals(429, refused.status());
        assertDoesNotThrow(() -> limits.admit(customer, 102));
    }
}
