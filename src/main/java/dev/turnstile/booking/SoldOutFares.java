package dev.turnstile.booking;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import dev.turnstile.booking.BookingRepository.Passenger;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * The fares this instance last saw with no seat left. After a sell-out most requests of a fare can only end SOLD_OUT;
 * for such a fare a booking first reads, without a lock and without waiting at the fare's gate, whether a seat is
 * there now, and is answered from that one read when none is (or ALREADY_BOOKED, as the full path would answer that
 * passenger). Bookings already waiting at the gate when the sell-out is seen are let through to that read at once.
 * The read, not this set, decides: a seat given back by a cancel or a reset, on this instance or another, is seen by
 * the next booking, which then takes the ordinary path. An answer of no seats from a read-committed snapshot is as
 * exact as the locked read's: there was none at that moment.
 */
@ApplicationScoped
class SoldOutFares {

    /** The set is only a hint: past this many fares it starts over rather than grow without bound. */
    private static final int MAX_REMEMBERED = 10_000;

    private final Set<FareKey> soldOut = ConcurrentHashMap.newKeySet();
    private final InventoryRepository inventory;
    private final FareGates gates;

    SoldOutFares(InventoryRepository inventory, FareGates gates) {
        this.inventory = inventory;
        this.gates = gates;
    }

    /** Whether the last look at {@code fare} found it sold out. */
    boolean known(FareKey fare) {
        return !soldOut.isEmpty() && soldOut.contains(fare);
    }

    /** What a read of the fare found: {@code seatsAvailable} over all its shards. */
    void seen(FareKey fare, int seatsAvailable) {
        if (seatsAvailable > 0) {
            soldOut.remove(fare);
            return;
        }
        if (soldOut.size() >= MAX_REMEMBERED) {
            soldOut.clear();
        }
        soldOut.add(fare);
        gates.open(fare);
    }

    /**
     * For a fare known sold out: one read, and the rejection if there is still no seat. Completes empty when the
     * fare is not known sold out or has a seat again, and the booking goes on its strategy's way.
     */
    Uni<Void> rejectIfStillSoldOut(SqlClient client, FareKey fare, Passenger passenger) {
        if (!known(fare)) {
            return Uni.createFrom().voidItem();
        }
        return inventory.seatsLeft(client, fare, passenger.passengerId()).map(left -> {
            if (left == null || left.seats() > 0) {
                soldOut.remove(fare);
                return null;
            }
            throw left.existing() != null ? BookingProblems.alreadyBooked(left.existing())
                    : BookingProblems.rejected(SeatRules.Decision.SOLD_OUT);
        });
    }
}
