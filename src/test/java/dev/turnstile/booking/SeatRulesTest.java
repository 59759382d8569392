package dev.turnstile.booking;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.turnstile.booking.SeatRules.Decision;

class SeatRulesTest {

    @Test
    void soldOutWhenNothingLeftEvenForElite() {
        assertEquals(Decision.SOLD_OUT, SeatRules.decide(0, 0, false));
        assertEquals(Decision.SOLD_OUT, SeatRules.decide(0, 2, true));
    }

    @Test
    void lastReservedSeatsAreForEliteOnly() {
        assertEquals(Decision.OK, SeatRules.decide(2, 1, false));
        assertEquals(Decision.ELITE_RESERVE, SeatRules.decide(1, 1, false));
        assertEquals(Decision.OK, SeatRules.decide(1, 1, true));
        assertEquals(Decision.ELITE_RESERVE, SeatRules.decide(3, 5, false));
    }

    @Test
    void picksOnlyAShardWithSeats() {
        List<FareState.ShardSeats> shards = List.of(new FareState.ShardSeats(0, 0, 1), new FareState.ShardSeats(1, 3, 1),
                new FareState.ShardSeats(2, 0, 1), new FareState.ShardSeats(3, 1, 1));
        assertEquals(1, SeatRules.pickShard(shards, bound -> 0));
        assertEquals(3, SeatRules.pickShard(shards, bound -> bound - 1));
        assertEquals(-1, SeatRules.pickShard(List.of(new FareState.ShardSeats(0, 0, 1)), bound -> 0));
    }

    @Test
    void splitsSeatsEvenlyWithTheRemainderFirst() {
        assertArrayEquals(new int[] { 34, 33, 33 }, SeatRules.split(100, 3));
        assertArrayEquals(new int[] { 1, 1, 0, 0 }, SeatRules.split(2, 4));
        assertArrayEquals(new int[] { 7 }, SeatRules.split(7, 1));
        assertEquals(100, java.util.Arrays.stream(SeatRules.split(100, 16)).sum());
    }
}
