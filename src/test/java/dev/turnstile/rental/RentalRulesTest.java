package dev.turnstile.rental;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;

import org.junit.jupiter.api.Test;

/** The rules alone: no I/O, no Quarkus. */
class RentalRulesTest {

    private static final Instant NOW = Instant.parse("2025-06-01T10:15:30Z");
    private final RentalRules rules = new RentalRules(30);

    @Test
    void rentingAnAvailableBikeCountsTheRideAndKeepsTheVersion() {
        Bike bike = new Bike("b-17", "harbour", BikeStatus.AVAILABLE, 29, null, null, "squeaky", 7);

        Bike rented = rules.rent(bike, "c-1", NOW);

        assertEquals(new Bike("b-17", "harbour", BikeStatus.RENTED, 30, "c-1", NOW, "squeaky", 7), rented);
    }

    @Test
    void aBikeThatIsNotAvailableCannotBeRented() {
        for (BikeStatus status : new BikeStatus[] { BikeStatus.RENTED, BikeStatus.MAINTENANCE }) {
            Bike bike = new Bike("b-1", "harbour", status, 3, null, null, null, 2);
            assertEquals("NOT_AVAILABLE", assertThrows(RentalRejected.class, () -> rules.rent(bike, "c-1", NOW)).reason());
        }
    }

    @Test
    void aBikeAtTheRideLimitIsDueForService() {
        Bike bike = Bike.newAt("b-1", "harbour", 30, BikeStatus.AVAILABLE);
        assertEquals("SERVICE_DUE", assertThrows(RentalRejected.class, () -> rules.rent(bike, "c-1", NOW)).reason());
        assertEquals(BikeStatus.RENTED, new RentalRules(31).rent(bike, "c-1", NOW).status(), "the limit is configurable");
    }

    @Test
    void returningMovesTheBikeAndClearsTheRenter() {
        Bike rented = new Bike("b-1", "harbour", BikeStatus.RENTED, 12, "c-1", NOW, null, 4);

        Bike returned = rules.giveBack(rented, "c-1", "airport");

        assertEquals(new Bike("b-1", "airport", BikeStatus.AVAILABLE, 12, null, null, null, 4), returned);
    }

    @Test
    void returningAtTheRideLimitSendsTheBikeToMaintenance() {
        Bike rented = new Bike("b-17", "harbour", BikeStatus.RENTED, 30, "c-1", NOW, null, 2);
        assertEquals(BikeStatus.MAINTENANCE, rules.giveBack(rented, "c-1", "harbour").status());
    }

    @Test
    void onlyTheRenterCanReturnARentedBike() {
        Bike available = Bike.newAt("b-1", "harbour", 0, BikeStatus.AVAILABLE);
        Bike rented = rules.rent(available, "c-1", NOW);

        assertEquals("NOT_RENTED", assertThrows(RentalRejected.class, () -> rules.giveBack(available, "c-1", "x")).reason());
        assertEquals("WRONG_CUSTOMER", assertThrows(RentalRejected.class, () -> rules.giveBack(rented, "c-2", "x")).reason());
    }

    @Test
    void serviceResetsRidesAndMakesTheBikeAvailable() {
        Bike due = new Bike("b-17", "harbour", BikeStatus.MAINTENANCE, 30, null, null, null, 3);

        Bike serviced = rules.service(due);

        assertEquals(BikeStatus.AVAILABLE, serviced.status());
        assertEquals(0, serviced.ridesSinceService());
        assertEquals(3, serviced.version());
        assertEquals("NOT_IN_MAINTENANCE",
                assertThrows(RentalRejected.class, () -> rules.service(Bike.newAt("b-2", "x", 0, BikeStatus.AVAILABLE))).reason());
    }

    @Test
    void aNoteChangesNothingElse() {
        Bike rented = new Bike("b-1", "harbour", BikeStatus.RENTED, 5, "c-1", NOW, null, 9);
        Bike annotated = rules.annotate(rented, "bell missing");
        assertEquals("bell missing", annotated.note());
        assertEquals(rented, annotated.withNote(null));
        assertNull(rented.note());
    }
}
