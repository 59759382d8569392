package dev.turnstile.booking;

import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import dev.turnstile.booking.BookingRepository.Passenger;
import dev.turnstile.booking.BoundedTransactions.LastStatement;
import dev.turnstile.booking.InventoryRepository.Lock;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlConnection;

/**
 * The strategies that read before they write ({@code optimistic}, {@code pessimistic}, {@code nowait},
 * {@code serializable}): read (and lock, per strategy) every shard row, decide in Java on the sum, take a seat on one
 * shard. They differ only in the lock and in whether the take checks the version read.
 */
@ApplicationScoped
class ReadingTakes {

    private final InventoryRepository inventory;
    private final BookingRepository bookings;
    private final SeatChoice choice;
    private final SoldOutFares soldOut;

    ReadingTakes(InventoryRepository inventory, BookingRepository bookings, SeatChoice choice, SoldOutFares soldOut) {
        this.inventory = inventory;
        this.bookings = bookings;
        this.choice = choice;
        this.soldOut = soldOut;
    }

    /** Takes a seat the strategy's way; {@code last} sends the take with the COMMIT when nothing follows it. */
    Uni<UUID> take(SqlConnection connection, FareKey fare, Strategy strategy, Passenger passenger, LastStatement last) {
        return switch (strategy) {
            case OPTIMISTIC -> take(connection, fare, passenger, Lock.NONE, true, last);
            case PESSIMISTIC -> take(connection, fare, passenger, Lock.WAIT, false, last);
            case NOWAIT -> take(connection, fare, passenger, Lock.NOWAIT, false, last);
            case SERIALIZABLE -> take(connection, fare, passenger, Lock.NONE, false, last);
            case ATOMIC, SHARDED, BATCHED -> throw new IllegalArgumentException(strategy + " does not read first");
        };
    }

    private Uni<UUID> take(SqlConnection connection, FareKey fare, Passenger passenger, Lock lock, boolean atReadVersion,
            LastStatement last) {
        return soldOut.rejectIfStillSoldOut(connection, fare, passenger).chain(() -> inventory.read(connection, fare, lock)).chain(state -> {
            if (state != null) {
                soldOut.seen(fare, state.seatsAvailable());
            }
            return choice.allowedShard(connection, fare, state, passenger).chain(shard -> last.thenCommit(atReadVersion
                        ? bookings.takeSeatAtVersion(connection, fare, shard, state.shard(shard).version(), state.revision(), passenger)
                        : bookings.takeLockedSeat(connection, fare, shard, passenger))
                        .map(taken -> SeatChoice.booked(taken, "shard " + shard + " changed since it was read")));
        });
    }
}
