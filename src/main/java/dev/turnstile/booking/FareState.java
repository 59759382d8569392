package dev.turnstile.booking;

import java.util.List;

/** A fare and its inventory rows as read in one statement. */
public record FareState(FareKey fare, int seatsTotal, int eliteReserve, int shards, long revision,
        List<ShardSeats> shardSeats) {

    public record ShardSeats(int shard, int seatsAvailable, long version) {
    }

    public int seatsAvailable() {
        return shardSeats.stream().mapToInt(ShardSeats::seatsAvailable).sum();
    }

    /** Sum of the shard versions: moves with every booking, cancel and reset of this fare. */
    public long version() {
        return shardSeats.stream().mapToLong(ShardSeats::version).sum();
    }

    /** The fare's entity tag: the revision moves with every reset, the version with every booking and cancel. */
    public String entityTag() {
        return revision + "." + version();
    }

    public ShardSeats shard(int shard) {
        return shardSeats.stream().filter(s -> s.shard() == shard).findFirst().orElseThrow();
    }
}
