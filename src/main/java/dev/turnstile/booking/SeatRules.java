package dev.turnstile.booking;

import java.util.List;
import java.util.function.IntUnaryOperator;

/** The seat rules, as pure functions of the state a strategy has read. */
public final class SeatRules {

    private SeatRules() {
    }

    public enum Decision {
        OK, SOLD_OUT, ELITE_RESERVE
    }

    /**
     * May this passenger take a seat when {@code available} seats are left over all shards? The last
     * {@code eliteReserve} seats are kept for elite passengers.
     */
    public static Decision decide(int available, int eliteReserve, boolean elite) {
        if (available <= 0) {
            return Decision.SOLD_OUT;
        }
        if (!elite && available <= eliteReserve) {
            return Decision.ELITE_RESERVE;
        }
        return Decision.OK;
    }

    /**
     * A shard with seats left, chosen at random among those that have some (so concurrent bookings of a sharded
     * fare spread out); -1 when every shard is empty. {@code randomBelow} returns a value in [0, bound).
     */
    public static int pickShard(List<FareState.ShardSeats> shards, IntUnaryOperator randomBelow) {
        List<FareState.ShardSeats> open = shards.stream().filter(s -> s.seatsAvailable() > 0).toList();
        return open.isEmpty() ? -1 : open.get(randomBelow.applyAsInt(open.size())).shard();
    }

    /** The shard a cancelled booking's seat goes back to: its own, or the last one if a reset has removed it. */
    public static int returnShard(int bookedShard, int shards) {
        return Math.min(bookedShard, shards - 1);
    }

    /** Splits {@code seats} over {@code shards} rows as evenly as possible; the first rows take the remainder. */
    public static int[] split(int seats, int shards) {
        int[] split = new int[shards];
        for (int shard = 0; shard < shards; shard++) {
            split[shard] = seats / shards + (shard < seats % shards ? 1 : 0);
        }
        return split;
    }
}
