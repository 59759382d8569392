package dev.turnstile.booking;

import java.util.function.Predicate;

import jakarta.enterprise.context.ApplicationScoped;

import dev.turnstile.booking.InventoryRepository.CountedFare;
import dev.turnstile.booking.InventoryRepository.Lock;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlConnection;

/** Fare administration: create or reset a fare's capacity, show it, audit it. */
@ApplicationScoped
public class FareService {

    private final InventoryRepository inventory;
    private final BookingRepository bookings;
    private final BookingAttempts attempts;

    FareService(InventoryRepository inventory, BookingRepository bookings, BookingAttempts attempts) {
        this.inventory = inventory;
        this.bookings = bookings;
        this.attempts = attempts;
    }

    /** A fare as shown, with its entity tag (changes with every booking, cancel and reset). */
    public record FareSnapshot(FareView view, String entityTag) {
    }

    /**
     * Creates the fare or resets an existing one to the new capacity, keeping its confirmed bookings, and answers
     * which it did with the fare as the write left it.
     * {@code eliteReserve <= seats} is the caller's to check ({@code FareRequest}). {@code precondition} is asked, with
     * the fare's current entity tag (null when there is no fare yet) read under the locks the write takes, whether the
     * write may go ahead; if not, nothing is written and the answer is STALE_VERSION, unless the fare already has the
     * capacity, reserve and shards asked for (then it is answered as it is). Asked under the locks, so a concurrent
     * booking or reset cannot slip in between the check and the write.
     */
    public Uni<FarePut> put(FareKey fare, int seats, int eliteReserve, int shards, Predicate<String> precondition) {
        return attempts.once(connection -> write(connection, fare, seats, eliteReserve, shards, precondition)
                // read back in the write's own transaction: a fault after the commit must not answer 503 for a
                // fare that was written (a retry under If-None-Match: * or the old If-Match would then get 412)
                .chain(created -> inventory.readCounted(connection, fare)
                        .map(counted -> new FarePut(created, snapshot(fare, counted)))));
    }

    /** What a put did (created, or reset an existing fare) and the fare as it left it. */
    public record FarePut(boolean created, FareSnapshot snapshot) {
    }

    private Uni<Boolean> write(SqlConnection connection, FareKey fare, int seats, int eliteReserve, int shards,
            Predicate<String> precondition) {
        return inventory
                .create(connection, fare, seats, eliteReserve, SeatRules.split(seats, shards))
                .chain(created -> created ? Uni.createFrom().voidItem().invoke(() -> check(precondition, fare, null)).replaceWith(true)
                        : inventory.lockFare(connection, fare)
                                .chain(() -> inventory.read(connection, fare, Lock.WAIT))
                                .chain(state -> {
                                    if (!precondition.test(state.entityTag()) && state.seatsTotal() == seats
                                            && state.eliteReserve() == eliteReserve && state.shards() == shards) {
                                        // already as asked: most likely this very put, whose COMMIT's answer was lost
                                        // (a PUT takes no Idempotency-Key); RFC 9110 13.1.1 lets that answer 2xx
                                        return Uni.createFrom().voidItem();
                                    }
                                    check(precondition, fare, state.entityTag());
                                    return bookings.countConfirmed(connection, fare).chain(booked -> {
                                        if (booked > seats) {
                                            throw BookingProblems.seatsBelowBooked(booked);
                                        }
                                        int[] split = SeatRules.split(seats - booked.intValue(), shards);
                                        return inventory.reset(connection, fare, seats, eliteReserve, split);
                                    });
                                })
                                .replaceWith(false));
    }

    /** Throwing inside the transaction rolls back the fare a create has just inserted. */
    private static void check(Predicate<String> precondition, FareKey fare, String currentTag) {
        if (!precondition.test(currentTag)) {
            throw BookingProblems.staleFare(fare, currentTag != null);
        }
    }

    public Uni<FareSnapshot> view(FareKey fare) {
        return attempts.read(client -> inventory.readCounted(client, fare)).map(counted -> snapshot(fare, counted));
    }

    private static FareSnapshot snapshot(FareKey fare, CountedFare counted) {
        if (counted == null) {
            throw BookingProblems.fareNotFound(fare);
        }
        FareState state = counted.state();
        return new FareSnapshot(new FareView(fare.flightId(), fare.fareClass(), state.seatsTotal(), state.seatsAvailable(),
                counted.booked(), state.eliteReserve(), state.shards(), state.version()),
                state.entityTag());
    }

    public Uni<AuditView> audit(FareKey fare) {
        return attempts.read(client -> inventory.audit(client, fare)).map(audit -> {
            if (audit == null) {
                throw BookingProblems.fareNotFound(fare);
            }
            return audit;
        });
    }
}
