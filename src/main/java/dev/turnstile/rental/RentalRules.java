package dev.turnstile.rental;

import java.time.Instant;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The rental rules as pure functions of the bike that was read: each returns the next state or throws
 * {@link RentalRejected}. No I/O, no clock, no version handling, so the service can run them again on every retry.
 */
@Singleton
public class RentalRules {

    private final int ridesUntilService;

    @Inject
    public RentalRules(@ConfigProperty(name = "turnstile.rental.rides-until-service", defaultValue = "30") int ridesUntilService) {
        this.ridesUntilService = ridesUntilService;
    }

    public int ridesUntilService() {
        return ridesUntilService;
    }

    public Bike rent(Bike bike, String customerId, Instant now) {
        if (bike.status() != BikeStatus.AVAILABLE) {
            throw new RentalRejected("NOT_AVAILABLE", "Bike " + bike.bikeId() + " is " + bike.status());
        }
        if (bike.ridesSinceService() >= ridesUntilService) {
            throw new RentalRejected("SERVICE_DUE", "Bike " + bike.bikeId() + " has had " + bike.ridesSinceService()
                    + " rides since its last service (limit " + ridesUntilService + ")");
        }
        return bike.rentedTo(customerId, now);
    }

    public Bike giveBack(Bike bike, String customerId, String station) {
        if (bike.status() != BikeStatus.RENTED) {
            throw new RentalRejected("NOT_RENTED", "Bike " + bike.bikeId() + " is " + bike.status());
        }
        if (!bike.rentedBy().equals(customerId)) {
            throw new RentalRejected("WRONG_CUSTOMER", "Bike " + bike.bikeId() + " is rented by another customer");
        }
        BikeStatus next = bike.ridesSinceService() >= ridesUntilService ? BikeStatus.MAINTENANCE : BikeStatus.AVAILABLE;
        return bike.returnedTo(station, next);
    }

    public Bike service(Bike bike) {
        if (bike.status() != BikeStatus.MAINTENANCE) {
            throw new RentalRejected("NOT_IN_MAINTENANCE", "Bike " + bike.bikeId() + " is " + bike.status());
        }
        return bike.serviced();
    }

    public Bike annotate(Bike bike, String note) {
        return bike.withNote(note);
    }
}
