package dev.turnstile.booking;

import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.IntUnaryOperator;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.turnstile.booking.BookingProblems.Rejected;
import dev.turnstile.booking.BookingProblems.RetryableConflict;
import dev.turnstile.booking.BookingRepository.Passenger;
import dev.turnstile.booking.BookingRepository.Taken;
import dev.turnstile.booking.BoundedTransactions.LastStatement;
import dev.turnstile.booking.InventoryRepository.Lock;
import dev.turnstile.idempotency.Idempotency;
import dev.turnstile.idempotency.IdempotencyKeys;
import dev.turnstile.idempotency.StoredResponse;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.SqlConnection;

/** Fares, bookings and cancellations; each booking strategy is a different way to take the same seat. */
@ApplicationScoped
public class BookingService {

    /** Rounds of read-and-retake an atomic booking tries after its blind attempt found no seat on its shard. */
    private static final int FALL_OVER_ROUNDS = 4;
    private static final IntUnaryOperator RANDOM = bound -> ThreadLocalRandom.current().nextInt(bound);
    private static final String CONFIRMED = "CONFIRMED";

    private final InventoryRepository inventory;
    private final BookingRepository bookings;
    private final IdempotencyKeys keys;
    private final BookingAttempts attempts;
    private final BookingMetrics metrics;
    private final ObjectMapper json;
    private final Strategy defaultStrategy;

    BookingService(InventoryRepository inventory, BookingRepository bookings, IdempotencyKeys keys,
            BookingAttempts attempts, BookingMetrics metrics, ObjectMapper json,
            @ConfigProperty(name = "turnstile.booking.default-strategy", defaultValue = "optimistic") Strategy defaultStrategy,
            @ConfigProperty(name = "turnstile.booking.allowed-strategies",
                    defaultValue = "optimistic,pessimistic,nowait,atomic,serializable,sharded") Set<Strategy> allowedStrategies) {
        this.inventory = inventory;
        this.bookings = bookings;
        this.keys = keys;
        this.attempts = attempts;
        this.metrics = metrics;
        this.json = json;
        if (!allowedStrategies.contains(defaultStrategy)) {
            // A request naming no strategy would be refused for a choice it did not make: stop at startup instead.
            throw new IllegalStateException("turnstile.booking.default-strategy=" + defaultStrategy.label()
                    + " is not in turnstile.booking.allowed-strategies " + Strategy.labels(allowedStrategies));
        }
        this.defaultStrategy = defaultStrategy;
    }

    /** A booking request: {@code strategy} null means the configured default. */
    public record BookingCommand(String flightId, String fareClass, Strategy strategy, BookingRequest request) {
    }

    /** A fare as shown, with its entity tag (changes with every booking, cancel and reset). */
    public record FareSnapshot(FareView view, String entityTag) {
    }

    // --- fares ---

    /** Creates the fare (true) or resets an existing one to the new capacity, keeping its confirmed bookings (false). */
    public Uni<Boolean> putFare(String flightId, String fareClass, FareRequest request) {
        int seats = request.seats();
        int reserve = request.eliteReserveOrZero();
        int shards = request.shardsOrOne();
        if (reserve > seats) {
            return Uni.createFrom().failure(BookingProblems.eliteReserveAboveSeats());
        }
        return attempts.once(connection -> inventory
                .create(connection, flightId, fareClass, seats, reserve, SeatRules.split(seats, shards))
                .chain(created -> created ? Uni.createFrom().item(true)
                        : inventory.lockFare(connection, flightId, fareClass)
                                .chain(() -> inventory.read(connection, flightId, fareClass, Lock.WAIT))
                                .chain(() -> bookings.countConfirmed(connection, flightId, fareClass))
                                .chain(booked -> {
                                    if (booked > seats) {
                                        throw BookingProblems.seatsBelowBooked(booked);
                                    }
                                    int[] split = SeatRules.split(seats - booked.intValue(), shards);
                                    return inventory.reset(connection, flightId, fareClass, seats, reserve, split);
                                })
                                .replaceWith(false)));
    }

    public Uni<FareSnapshot> fare(String flightId, String fareClass) {
        return attempts.read(client -> inventory.readCounted(client, flightId, fareClass)).map(counted -> {
            if (counted == null) {
                throw BookingProblems.fareNotFound(flightId, fareClass);
            }
            FareState state = counted.state();
            return new FareSnapshot(new FareView(flightId, fareClass, state.seatsTotal(), state.seatsAvailable(),
                    counted.booked(), state.eliteReserve(), state.shards(), state.version()),
                    state.revision() + "." + state.version());
        });
    }

    public Uni<AuditView> audit(String flightId, String fareClass) {
        return attempts.read(client -> inventory.audit(client, flightId, fareClass)).map(audit -> {
            if (audit == null) {
                throw BookingProblems.fareNotFound(flightId, fareClass);
            }
            return audit;
        });
    }

    // --- bookings ---

    public Uni<BookingView> book(BookingCommand command) {
        Strategy strategy = strategy(command);
        Passenger passenger = new Passenger(command.request().passengerId(), command.request().isElite(), null, null);
        Uni<UUID> taken = switch (strategy) {
            // The blind take is the whole transaction, its COMMIT sent with it. Only when it finds its shard empty
            // does a second transaction read, to tell sold out from an empty shard, and retake.
            case ATOMIC, SHARDED -> retried(strategy, command, (connection, last) -> last.thenCommit(bookings.takeSeatAtomically(
                    connection, command.flightId(), command.fareClass(), startShard(strategy), passenger)).map(seat -> booked(seat, null)))
                    .chain(id -> id != null ? Uni.createFrom().item(id)
                            : retried(strategy, command, (connection, last) -> fallOver(connection, command, passenger, 1)));
            default -> retried(strategy, command, (connection, last) -> takeSeat(connection, command, strategy, passenger, last));
        };
        return taken.map(id -> confirmed(command, passenger, id)).invoke(() -> metrics.booked(strategy));
    }

    /**
     * As {@link #book}, under an idempotency key: the first request books and stores its answer in the same
     * transaction; every later (or concurrent) one with the same request gets that answer back.
     */
    public Uni<StoredResponse> book(BookingCommand command, String idempotencyKey) {
        Strategy strategy = strategy(command);
        String fingerprint = Idempotency.fingerprint("POST",
                "/flights/" + command.flightId() + "/fares/" + command.fareClass() + "/bookings?strategy=" + strategy.label(),
                command.request().passengerId() + '\n' + command.request().isElite());
        Passenger passenger = new Passenger(command.request().passengerId(), command.request().isElite(), idempotencyKey, fingerprint);
        // Counted once committed: a SERIALIZABLE commit can still fail, and its retry books again.
        AtomicBoolean booked = new AtomicBoolean();
        return retried(strategy, command, (connection, last) -> keys.claim(connection, idempotencyKey, fingerprint).chain(claim -> {
            booked.set(false);
            if (!claim.owned()) {
                return Uni.createFrom().item(claim.replay());
            }
            Uni<Void> released = claim.reclaimed() ? bookings.releaseKey(connection, idempotencyKey) : Uni.createFrom().voidItem();
            // the stored answer, not the take, is the transaction's last statement
            return released.chain(() -> takeSeat(connection, command, strategy, passenger, LastStatement.COMMITTED_AFTER))
                    .map(id -> confirmed(command, passenger, id))
                    .invoke(() -> booked.set(true))
                    .chain(booking -> last.thenCommit(keys.store(connection, idempotencyKey, 201, toJson(booking))))
                    .onFailure(Rejected.class).recoverWithUni(rejected -> last.thenCommit(
                            keys.store(connection, idempotencyKey, 409, toJson(((Rejected) rejected).toProblem()))));
        })).invoke(() -> {
            if (booked.get()) {
                metrics.booked(strategy);
            }
        });
    }

    public Uni<BookingView> booking(String bookingId) {
        return attempts.read(client -> bookings.find(client, UUID.fromString(bookingId))).map(booking -> {
            if (booking == null) {
                throw BookingProblems.bookingNotFound(bookingId);
            }
            return booking;
        });
    }

    /** Cancels and gives the seat back; cancelling a cancelled booking changes nothing and succeeds. */
    public Uni<Void> cancel(String bookingId) {
        return attempts.once(connection -> cancel(connection, bookingId));
    }

    public Uni<StoredResponse> cancel(String bookingId, String idempotencyKey) {
        String fingerprint = Idempotency.fingerprint("DELETE", "/bookings/" + bookingId, "");
        return attempts.once(connection -> keys.claim(connection, idempotencyKey, fingerprint).chain(claim -> claim.owned()
                ? cancel(connection, bookingId).chain(() -> keys.store(connection, idempotencyKey, 204, null))
                : Uni.createFrom().item(claim.replay())));
    }

    private Uni<Void> cancel(SqlConnection connection, String bookingId) {
        UUID id = UUID.fromString(bookingId);
        return bookings.lockForCancel(connection, id).chain(target -> {
            if (target == null) {
                throw BookingProblems.bookingNotFound(bookingId);
            }
            if (!CONFIRMED.equals(target.status())) {
                return Uni.createFrom().voidItem();
            }
            return bookings.cancel(connection, id, target, SeatRules.returnShard(target.shard(), target.shards()))
                    .map(returned -> {
                        if (!returned) {
                            // The fare lock makes this unreachable; should it happen, roll back rather than lose a seat.
                            throw new IllegalStateException("No inventory row took back the seat of booking " + bookingId);
                        }
                        return null;
                    });
        });
    }

    // --- strategies ---

    private <T> Uni<T> retried(Strategy strategy, BookingCommand command, BiFunction<SqlConnection, LastStatement, Uni<T>> work) {
        return attempts.inTransaction(strategy, command.flightId() + '/' + command.fareClass(), new AtomicInteger(), work)
                .onFailure(RetryableConflict.class).transform(exhausted -> {
                    metrics.exhausted(strategy);
                    return BookingProblems.contention();
                });
    }

    /** Takes a seat the strategy's way; {@code last} sends the take with the COMMIT when nothing follows it. */
    private Uni<UUID> takeSeat(SqlConnection connection, BookingCommand command, Strategy strategy, Passenger passenger,
            LastStatement last) {
        return switch (strategy) {
            case OPTIMISTIC -> readAndTake(connection, command, passenger, Lock.NONE, true, last);
            case PESSIMISTIC, SERIALIZABLE -> readAndTake(connection, command, passenger,
                    strategy == Strategy.PESSIMISTIC ? Lock.WAIT : Lock.NONE, false, last);
            case NOWAIT -> readAndTake(connection, command, passenger, Lock.NOWAIT, false, last);
            // under a key, the fall-over stays in the key's transaction (without one, book() splits it off)
            case ATOMIC, SHARDED -> takeAtomically(connection, command, passenger, startShard(strategy));
        };
    }

    /** Any start is fine for a sharded fare as long as concurrent bookings spread: the SQL takes it modulo the shard count. */
    private static int startShard(Strategy strategy) {
        return strategy == Strategy.SHARDED ? RANDOM.applyAsInt(1 << 20) : 0;
    }

    private static BookingView confirmed(BookingCommand command, Passenger passenger, UUID id) {
        return new BookingView(id.toString(), command.flightId(), command.fareClass(), passenger.passengerId(),
                passenger.elite(), CONFIRMED, "PENDING", null);
    }

    /** Read (and lock, per {@code lock}) every shard row, decide in Java on the sum, take a seat on one shard. */
    private Uni<UUID> readAndTake(SqlConnection connection, BookingCommand command, Passenger passenger, Lock lock,
            boolean atReadVersion, LastStatement last) {
        return inventory.read(connection, command.flightId(), command.fareClass(), lock).chain(state ->
                allowedShard(connection, command, state, passenger).chain(shard -> last.thenCommit(atReadVersion
                        ? bookings.takeSeatAtVersion(connection, command.flightId(), command.fareClass(), shard,
                                state.shard(shard).version(), passenger)
                        : bookings.takeLockedSeat(connection, command.flightId(), command.fareClass(), shard, passenger))
                        .map(taken -> booked(taken, "shard " + shard + " changed since it was read"))));
    }

    /**
     * One statement with the rule inside, on {@code startShard} first. Only when that finds no seat does it read, to
     * tell sold out from "that shard is empty", and retake on a shard that has seats.
     */
    private Uni<UUID> takeAtomically(SqlConnection connection, BookingCommand command, Passenger passenger, int startShard) {
        return bookings.takeSeatAtomically(connection, command.flightId(), command.fareClass(), startShard, passenger)
                .chain(taken -> {
                    UUID id = booked(taken, null);
                    return id != null ? Uni.createFrom().item(id) : fallOver(connection, command, passenger, 1);
                });
    }

    private Uni<UUID> fallOver(SqlConnection connection, BookingCommand command, Passenger passenger, int round) {
        return inventory.read(connection, command.flightId(), command.fareClass(), Lock.NONE)
                .chain(state -> allowedShard(connection, command, state, passenger))
                .chain(shard -> bookings.takeSeatAtomically(connection, command.flightId(), command.fareClass(), shard, passenger))
                .chain(taken -> {
                    UUID id = booked(taken, null);
                    if (id != null) {
                        return Uni.createFrom().item(id);
                    }
                    if (round >= FALL_OVER_ROUNDS) {
                        throw new RetryableConflict("every shard tried was emptied concurrently");
                    }
                    return fallOver(connection, command, passenger, round + 1);
                });
    }

    /**
     * The new booking's id; ALREADY_BOOKED when the passenger holds a seat on the flight. When no seat was left on the
     * row: a retry if {@code noSeat} says why, else null.
     */
    private static UUID booked(Taken taken, String noSeat) {
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

    /**
     * The shard to take a seat from, or the rule's rejection. A passenger who already holds a seat on the flight
     * hears ALREADY_BOOKED rather than SOLD_OUT; that look-up runs only on the way to a rejection.
     */
    private Uni<Integer> allowedShard(SqlConnection connection, BookingCommand command, FareState state, Passenger passenger) {
        if (state == null) {
            throw BookingProblems.fareNotFound(command.flightId(), command.fareClass());
        }
        SeatRules.Decision decision = SeatRules.decide(state.seatsAvailable(), state.eliteReserve(), passenger.elite());
        if (decision == SeatRules.Decision.OK) {
            return Uni.createFrom().item(SeatRules.pickShard(state.shardSeats(), RANDOM));
        }
        return bookings.findConfirmed(connection, command.flightId(), passenger.passengerId()).map(existing -> {
            throw existing != null ? BookingProblems.alreadyBooked(existing) : BookingProblems.rejected(decision);
        });
    }

    private Strategy strategy(BookingCommand command) {
        return command.strategy() == null ? defaultStrategy : command.strategy();
    }

    @SuppressWarnings("unchecked")
    private JsonObject toJson(Object value) {
        return new JsonObject(json.convertValue(value, Map.class));
    }
}
