package dev.turnstile.booking;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The seat rules applied to a batch of bookings of one fare, in arrival order, on the fare as read under lock: each
 * booking is decided on the seats the earlier ones left, exactly as if they had come one after the other. A pure
 * function, so that the order (who gets the last seat, who runs into the elite reserve) is tested without a database.
 */
public record BatchedPlan(List<Outcome> outcomes, int[] shards, int[] seatsTaken) {

    /** One booking of the batch: its passenger and whether they are elite. */
    public record Request(String passengerId, boolean elite) {
    }

    /** What one booking of the batch comes to. */
    public sealed interface Outcome {
    }

    /** A seat on {@code shard}, for the new booking {@code id}. */
    public record Take(UUID id, int shard) implements Outcome {
    }

    /** The passenger holds a confirmed seat on the flight already (before the batch, or earlier in it). */
    public record AlreadyBooked(UUID existing) implements Outcome {
    }

    /** The seat rules refuse it: sold out, or the seats left are kept for elite passengers. */
    public record Refused(SeatRules.Decision decision) implements Outcome {
    }

    /**
     * Decides {@code requests} in order against {@code state}. {@code holders} maps passengers to the confirmed booking
     * they hold on the flight; {@code ids} names new bookings. Each seat comes from the shard with the most seats left,
     * so that the shards stay even for the strategies that start on one of them.
     */
    public static BatchedPlan of(FareState state, List<Request> requests, Map<String, UUID> holders, Supplier<UUID> ids) {
        List<FareState.ShardSeats> rows = state.shardSeats();
        int[] left = rows.stream().mapToInt(FareState.ShardSeats::seatsAvailable).toArray();
        int[] taken = new int[left.length];
        int available = state.seatsAvailable();
        Map<String, UUID> held = new HashMap<>(holders);
        List<Outcome> outcomes = new ArrayList<>(requests.size());
        for (Request request : requests) {
            UUID existing = held.get(request.passengerId());
            if (existing != null) {
                outcomes.add(new AlreadyBooked(existing));
                continue;
            }
            SeatRules.Decision decision = SeatRules.decide(available, state.eliteReserve(), request.elite());
            if (decision != SeatRules.Decision.OK) {
                outcomes.add(new Refused(decision));
                continue;
            }
            int row = fullest(left);
            left[row]--;
            taken[row]++;
            available--;
            Take take = new Take(ids.get(), rows.get(row).shard());
            held.put(request.passengerId(), take.id());
            outcomes.add(take);
        }
        int used = (int) Arrays.stream(taken).filter(n -> n > 0).count();
        int[] shards = new int[used];
        int[] seats = new int[used];
        for (int row = 0, i = 0; row < taken.length; row++) {
            if (taken[row] > 0) {
                shards[i] = rows.get(row).shard();
                seats[i++] = taken[row];
            }
        }
        return new BatchedPlan(List.copyOf(outcomes), shards, seats);
    }

    /** Seats the batch takes in all. */
    public int seats() {
        return Arrays.stream(seatsTaken).sum();
    }

    private static int fullest(int[] left) {
        int best = 0;
        for (int row = 1; row < left.length; row++) {
            if (left[row] > left[best]) {
                best = row;
            }
        }
        return best;
    }
}
