package dev.turnstile.booking;

import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import dev.turnstile.booking.BookingProblems.RetryableConflict;
import dev.turnstile.booking.BookingRepository.Passenger;
import dev.turnstile.booking.BoundedTransactions.LastStatement;
import dev.turnstile.booking.InventoryRepository.Lock;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlConnection;

/**
 * The strategies with the rule inside one statement ({@code atomic}, and {@code sharded}, which starts on a random
 * shard so that concurrent bookings spread): a blind take, and only when its shard had no seat a read, to tell sold
 * out from "that shard is empty", and a retake on a shard that has seats.
 */
@ApplicationScoped
class AtomicTakes {

    /** Rounds of read-and-retake after the blind take found no seat on its shard. */
    private static final int FALL_OVER_ROUNDS = 4;

    private final InventoryRepository inventory;
    private final BookingRepository bookings;
    private final SeatChoice choice;
    private final SoldOutFares soldOut;

    AtomicTakes(InventoryRepository inventory, BookingRepository bookings, SeatChoice choice, SoldOutFares soldOut) {
        this.inventory = inventory;
        this.bookings = bookings;
        this.choice = choice;
        this.soldOut = soldOut;
    }

    /** The blind take and, should its shard be empty, the fall-over, in one transaction. */
    Uni<UUID> take(SqlConnection connection, FareKey fare, Strategy strategy, Passenger passenger) {
        return blind(connection, fare, strategy, passenger, LastStatement.COMMITTED_AFTER)
                .chain(id -> id != null ? Uni.createFrom().item(id) : fallOver(connection, fare, passenger));
    }

    /** One statement on the start shard, sent with the COMMIT by {@code last}; null when that shard had no seat. */
    Uni<UUID> blind(SqlConnection connection, FareKey fare, Strategy strategy, Passenger passenger, LastStatement last) {
        return soldOut.rejectIfStillSoldOut(connection, fare, passenger)
                .chain(() -> last.thenCommit(bookings.takeSeatAtomically(connection, fare, startShard(strategy), passenger)))
                .map(taken -> SeatChoice.booked(taken, null));
    }

    /** Reads the fare and retakes on a shard that has seats, for a few rounds if those empty concurrently. */
    Uni<UUID> fallOver(SqlConnection connection, FareKey fare, Passenger passenger) {
        return fallOver(connection, fare, passenger, 1);
    }

    private Uni<UUID> fallOver(SqlConnection connection, FareKey fare, Passenger passenger, int round) {
        return inventory.read(connection, fare, Lock.NONE)
                .chain(state -> {
                    if (state != null) {
                        soldOut.seen(fare, state.seatsAvailable());
                    }
                    return choice.allowedShard(connection, fare, state, passenger);
                })
                .chain(shard -> bookings.takeSeatAtomically(connection, fare, shard, passenger))
                .chain(taken -> {
                    UUID id = SeatChoice.booked(taken, null);
                    if (id != null) {
                        return Uni.createFrom().item(id);
                    }
                    if (round >= FALL_OVER_ROUNDS) {
                        throw new RetryableConflict("every shard tried was emptied concurrently");
                    }
                    return fallOver(connection, fare, passenger, round + 1);
                });
    }

    /** Any start is fine for a sharded fare as long as concurrent bookings spread: the SQL takes it modulo the shard count. */
    private static int startShard(Strategy strategy) {
        return strategy == Strategy.SHARDED ? SeatChoice.RANDOM.applyAsInt(1 << 20) : 0;
    }
}
