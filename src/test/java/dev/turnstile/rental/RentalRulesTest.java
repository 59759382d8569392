package dev.turnstile.rental;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.turnstile.problem.ProblemException;

/** The rules alone: no I/O, no Quarkus. */
class RentalRulesTest {

    private static final Instant NOW = Instant.parse("2025-06-01T10:15:30Z");
    private final RentalRules rules = new RentalRules(30);

    @Test
    void rentingAnAvailableBikeCountsTheRideAndKeepsTheVersion() {
        Bike bike = new Bike("b-17", "harbour", BikeStatus.AVAILABLE, 29, null, null, "squeaky", 7, "g1", null, null, null, List.of());

        Bike rented = rules.rent(bike, "c-1", null, NOW);

        assertEquals(new Bike("b-17", "harbour", BikeStatus.RENTED, 30, "c-1", NOW, "squeaky", 7, "g1", null, null, null, List.of()), rented);
    }

    @Test
    void aBikeThatIsNotAvailableCannotBeRented() {
        for (BikeStatus status : new BikeStatus[] { BikeStatus.RENTED, BikeStatus.MAINTENANCE }) {
            Bike bike = new Bike("b-1", "harbour", status, 3, null, null, null, 2, "g1", null, null, null, List.of());
            assertEquals("NOT_AVAILABLE", assertThrows(ProblemException.class, () -> rules.rent(bike, "c-1", null, NOW)).reason());
        }
    }

    @Test
    void aBikeAtTheRideLimitIsDueForService() {
        Bike bike = Bike.newAt("b-1", "harbour", 30, BikeStatus.AVAILABLE);
        assertEquals("SERVICE_DUE", assertThrows(ProblemException.class, () -> rules.rent(bike, "c-1", null, NOW)).reason());
        assertEquals(BikeStatus.RENTED, new RentalRules(31).rent(bike, "c-1", null, NOW).status(), "the limit is configurable");
    }

    @Test
    void returningMovesTheBikeAndClearsTheRenter() {
        Bike rented = new Bike("b-1", "harbour", BikeStatus.RENTED, 12, "c-1", NOW, null, 4, "g1", null, null, null, List.of());

        Bike returned = rules.giveBack(rented, "c-1", "airport");

        assertEquals(new Bike("b-1", "airport", BikeStatus.AVAILABLE, 12, null, null, null, 4, "g1", null, null, null, List.of()), returned);
    }

    @Test
    void returningAtTheRideLimitSendsTheBikeToMaintenance() {
        Bike rented = new Bike("b-17", "harbour", BikeStatus.RENTED, 30, "c-1", NOW, null, 2, "g1", null, null, null, List.of());
        assertEquals(BikeStatus.MAINTENANCE, rules.giveBack(rented, "c-1", "harbour").status());
    }

    @Test
    void onlyTheRenterCanReturnARentedBike() {
        Bike available = Bike.newAt("b-1", "harbour", 0, BikeStatus.AVAILABLE);
        Bike rented = rules.rent(available, "c-1", null, NOW);

        assertEquals("NOT_RENTED", assertThrows(ProblemException.class, () -> rules.giveBack(available, "c-1", "x")).reason());
        assertEquals("WRONG_CUSTOMER", assertThrows(ProblemException.class, () -> rules.giveBack(rented, "c-2", "x")).reason());
    }

    @Test
    void serviceResetsRidesAndMakesTheBikeAvailable() {
        Bike due = new Bike("b-17", "harbour", BikeStatus.MAINTENANCE, 30, null, null, null, 3, "g1", null, null, null, List.of());

        Bike serviced = rules.service(due, null, NOW);

        assertEquals(BikeStatus.AVAILABLE, serviced.status());
        assertEquals(0, serviced.ridesSinceService());
        assertEquals(3, serviced.version());
        assertEquals("NOT_IN_MAINTENANCE",
                assertThrows(ProblemException.class, () -> rules.service(Bike.newAt("b-2", "x", 0, BikeStatus.AVAILABLE), null, NOW)).reason());
    }

    /**
     * An available bike at or over the limit (created so, or left so by a lowered limit) cannot be rented
     * (SERVICE_DUE); refusing its service too left no way back into use.
     */
    @Test
    void anAvailableBikeDueForServiceCanBeServiced() {
        Bike due = new Bike("b-18", "harbour", BikeStatus.AVAILABLE, 31, null, null, null, 2, "g1", null, null, null, List.of());

        Bike serviced = rules.service(due, null, NOW);

        assertEquals(BikeStatus.AVAILABLE, serviced.status());
        assertEquals(0, serviced.ridesSinceService());
        assertEquals("NOT_IN_MAINTENANCE",
                assertThrows(ProblemException.class, () -> rules.service(Bike.newAt("b-2", "x", 29, BikeStatus.AVAILABLE), null, NOW)).reason());
    }

    @Test
    void aNoteChangesNothingElse() {
        Bike rented = new Bike("b-1", "harbour", BikeStatus.RENTED, 5, "c-1", NOW, null, 9, "g1", null, null, null, List.of());
        Bike annotated = rules.annotate(rented, "bell missing", null, NOW);
        assertEquals("bell missing", annotated.note());
        assertEquals(rented, annotated.withNote(null));
        assertNull(rented.note());
    }

    @Test
    void aLiveLeaseBlocksEveryoneButItsHolderAndAnExpiredOneBlocksNobody() {
        Bike leased = new Bike("b-1", "harbour", BikeStatus.AVAILABLE, 0, null, null, null, 2, "g1", "workshop-a",
                NOW.plusSeconds(60), "token-a", List.of());

        ProblemException refused = assertThrows(ProblemException.class, () -> rules.rent(leased, "c-1", null, NOW));
        assertEquals("LEASED", refused.reason());
        assertEquals("workshop-a", refused.toProblem().getExtensions().get("holder"));
        assertEquals("LEASED", assertThrows(ProblemException.class, () -> rules.rent(leased, "c-1", "token-b", NOW)).reason());
        assertEquals("LEASED", assertThrows(ProblemException.class, () -> rules.annotate(leased, "x", null, NOW)).reason());
        assertEquals("LEASED", assertThrows(ProblemException.class, () -> rules.delete(leased, null, NOW)).reason());
        assertEquals(BikeStatus.RENTED, rules.rent(leased, "c-1", "token-a", NOW).status(), "the holder may");
        assertEquals(BikeStatus.RENTED, rules.rent(leased, "c-1", null, NOW.plusSeconds(60)).status(), "expired at expiresAt");
    }

    @Test
    void aRentedBikeCannotBeDeleted() {
        Bike rented = rules.rent(Bike.newAt("b-1", "harbour", 0, BikeStatus.AVAILABLE), "c-1", null, NOW);
        assertEquals("BIKE_RENTED", assertThrows(ProblemException.class, () -> rules.delete(rented, null, NOW)).reason());
        rules.delete(rules.giveBack(rented, "c-1", "harbour"), null, NOW);
    }
}
