package dev.turnstile.rental;

import java.time.Instant;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/**
 * The rental rules as pure functions of the bike that was read: each returns the next state or throws the refusal
 * ({@link RentalProblems#rejected}, {@link RentalProblems#leased}). No I/O, no clock, no version handling, so the service can run them again on every retry.
 */
@Singleton
public class RentalRules {

    private final int ridesUntilService;

    @Inject
    RentalRules(RentalConfig config) {
        this(config.ridesUntilService());
    }

    RentalRules(int ridesUntilService) {
        this.ridesUntilService = ridesUntilService;
    }

    public int ridesUntilService() {
        return ridesUntilService;
    }

    /**
     * A lease held by someone else (whose token was not presented) blocks renting, servicing, editing and deleting
     * until it expires; returning is never blocked, the rider must be able to end the ride.
     */
    public void unlessLeased(Bike bike, String leaseToken, Instant now) {
        if (bike.leasedAgainst(leaseToken, now)) {
            throw RentalProblems.leased(bike.bikeId(), bike.leaseHolder(), bike.leaseExpiresAt());
        }
    }

    public Bike rent(Bike bike, String customerId, String leaseToken, Instant now) {
        unlessLeased(bike, leaseToken, now);
        if (bike.status() != BikeStatus.AVAILABLE) {
            throw RentalProblems.rejected("NOT_AVAILABLE", "Bike " + bike.bikeId() + " is " + bike.status());
        }
        if (bike.ridesSinceService() >= ridesUntilService) {
            throw RentalProblems.rejected("SERVICE_DUE", "Bike " + bike.bikeId() + " has had " + bike.ridesSinceService()
                    + " rides since its last service (limit " + ridesUntilService + ")");
        }
        return bike.rentedTo(customerId, now);
    }

    public Bike giveBack(Bike bike, String customerId, String station) {
        if (bike.status() != BikeStatus.RENTED) {
            throw RentalProblems.rejected("NOT_RENTED", "Bike " + bike.bikeId() + " is " + bike.status());
        }
        if (!bike.rentedBy().equals(customerId)) {
            throw RentalProblems.rejected("WRONG_CUSTOMER", "Bike " + bike.bikeId() + " is rented by another customer");
        }
        BikeStatus next = bike.ridesSinceService() >= ridesUntilService ? BikeStatus.MAINTENANCE : BikeStatus.AVAILABLE;
        return bike.returnedTo(station, next);
    }

    /**
     * An available bike at or over the limit (created so, or left so by a lowered limit) is serviced too: rent refuses
     * it as SERVICE_DUE, so without this nothing could bring it back into use.
     */
    public Bike service(Bike bike, String leaseToken, Instant now) {
        unlessLeased(bike, leaseToken, now);
        boolean dueWhileAvailable = bike.status() == BikeStatus.AVAILABLE && bike.ridesSinceService() >= ridesUntilService;
        if (bike.status() != BikeStatus.MAINTENANCE && !dueWhileAvailable) {
            throw RentalProblems.rejected("NOT_IN_MAINTENANCE", "Bike " + bike.bikeId() + " is " + bike.status());
        }
        return bike.serviced();
    }

    public Bike annotate(Bike bike, String note, String leaseToken, Instant now) {
        unlessLeased(bike, leaseToken, now);
        return bike.withNote(note);
    }

    /** A rented bike stays: deleting it would strand its rider (and, with transactions, their active rental). */
    public void delete(Bike bike, String leaseToken, Instant now) {
        unlessLeased(bike, leaseToken, now);
        if (bike.status() == BikeStatus.RENTED) {
            throw RentalProblems.rejected("BIKE_RENTED", "Bike " + bike.bikeId() + " is rented; it can be deleted once returned");
        }
    }
}
