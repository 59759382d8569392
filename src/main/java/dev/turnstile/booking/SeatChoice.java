package dev.turnstile.booking;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntUnaryOperator;

import jakarta.enterprise.context.ApplicationScoped;

import dev.turnstile.booking.BookingProblems.RetryableConflict;
import dev.turnstile.booking.BookingRepository.Passenger;
import dev.turnstile.booking.BookingRepository.Taken;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/** What both families of strategies decide the same way: which shard to take from, and what a take came to. */
@ApplicationScoped
class SeatChoice {

    static final IntUnaryOperator RANDOM = bound -> ThreadLocalRandom.current().nextInt(bound);

    private final BookingRepository bookings;

    SeatChoice(BookingRepository bookings) {
        this.bookings = bookings;
    }

    /**
     * The shard to take a seat from, or the rule's rejection. A passenger who already holds a seat on the flight
     * hears ALREADY_BOOKED rather than SOLD_OUT; that look-up runs only on the way to a rejection.
     */
    Uni<Integer> allowedShard(SqlClient client, FareKey fare, FareState state, Passenger passenger) {
        if (state == null) {
            throw BookingProblems.fareNotFound(fare);
        }
        SeatRules.Decision decision = SeatRules.decide(state.seatsAvailable(), state.eliteReserve(), passenger.elite());
        if (decision == SeatRules.Decision.OK) {
            return Uni.createFrom().item(SeatRules.pickShard(state.shardSeats(), RANDOM));
        }
        return bookings.findConfirmed(client, fare.flightId(), passenger.passengerId()).map(existing -> {
            throw existing != null ? BookingProblems.alreadyBooked(existing) : BookingProblems.rejected(decision);
        });
    }

    /**
     * The new booking's id; ALREADY_BOOKED when the passenger holds a seat on the flight. When no seat was left on the
     * row: a retry if {@code noSeat} says why, else null.
     */
    static UUID booked(Taken taken, String noSeat) {
        if (taken.booked() != null) {
            return taken.booked();
        }
        if (taken.existing() != null) {
            throw BookingProblems.alreadyBooked(taken.existing());
        }
        if (noSeat != null) {
            throw new RetryableConflict(noSeat);
        }
        return null;
    }
}
