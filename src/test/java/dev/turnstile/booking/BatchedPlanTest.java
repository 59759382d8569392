package dev.turnstile.booking;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import dev.turnstile.booking.BatchedPlan.AlreadyBooked;
import dev.turnstile.booking.BatchedPlan.Refused;
import dev.turnstile.booking.BatchedPlan.Request;
import dev.turnstile.booking.BatchedPlan.Take;

class BatchedPlanTest {

    @Test
    void takesFromTheFullestShardsAndCountsSeatsPerShard() {
        FareState fare = fare(0, 3, 1, 2);
        List<Request> five = IntStream.range(0, 5).mapToObj(i -> new Request("p" + i, false)).toList();

        BatchedPlan plan = BatchedPlan.of(fare, five, Map.of(), UUID::randomUUID);

        assertEquals(List.of(0, 0, 2, 0, 1), plan.outcomes().stream().map(o -> ((Take) o).shard()).toList(),
                "3-1-2 becomes 2-1-2, 1-1-2, 1-1-1, 0-1-1, 0-0-1");
        assertArrayEquals(new int[] { 0, 1, 2 }, plan.shards());
        assertArrayEquals(new int[] { 3, 1, 1 }, plan.seatsTaken());
        assertEquals(5, plan.seats());
    }

    @Test
    void theReserveHoldsOnTheSumOfEveryShardInArrivalOrder() {
        FareState fare = fare(2, 1, 1, 1, 1);
        UUID held = UUID.randomUUID();
        List<Request> arrivals = List.of(new Request("a", false), new Request("b", false), new Request("c", false),
                new Request("held", true), new Request("e", true), new Request("f", true), new Request("g", true));

        BatchedPlan plan = BatchedPlan.of(fare, arrivals, Map.of("held", held), UUID::randomUUID);

        List<Object> kinds = plan.outcomes().stream().map(o -> o instanceof Refused r ? r.decision() : o.getClass().getSimpleName())
                .map(Object.class::cast).toList();
        assertEquals(List.of("Take", "Take", SeatRules.Decision.ELITE_RESERVE, "AlreadyBooked", "Take", "Take",
                SeatRules.Decision.SOLD_OUT), kinds);
        assertEquals(held, ((AlreadyBooked) plan.outcomes().get(3)).existing());
        assertEquals(4, plan.seats());
    }

    private static FareState fare(int eliteReserve, int... shardSeats) {
        List<FareState.ShardSeats> shards = IntStream.range(0, shardSeats.length)
                .mapToObj(s -> new FareState.ShardSeats(s, shardSeats[s], 1)).toList();
        return new FareState(new FareKey("F", "Y"), IntStream.of(shardSeats).sum(), eliteReserve, shardSeats.length, 1, shards);
    }
}
