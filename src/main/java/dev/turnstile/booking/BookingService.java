package dev.turnstile.booking;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Predicate;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.turnstile.booking.BookingAttempts.Budget;
import dev.turnstile.booking.BookingAttempts.Statements;
import dev.turnstile.booking.BookingProblems.Rejected;
import dev.turnstile.booking.BookingProblems.RetryableConflict;
import dev.turnstile.booking.BookingRepository.Passenger;
import dev.turnstile.booking.BoundedTransactions.LastStatement;
import dev.turnstile.idempotency.Idempotency;
import dev.turnstile.idempotency.IdempotencyKeys;
import dev.turnstile.idempotency.IdempotencyKeys.Claim;
import dev.turnstile.idempotency.Keyed;
import dev.turnstile.idempotency.StoredAnswer;
import dev.turnstile.identity.Caller;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.SqlConnection;

/**
 * Bookings and cancellations, with or without an idempotency key. How a seat is taken is up to the strategy's
 * family ({@link ReadingTakes}, {@link AtomicTakes}); this class runs the transactions around it.
 */
@ApplicationScoped
public class BookingService {

    private static final String CONFIRMED = "CONFIRMED";

    private final BookingRepository bookings;
    private final ReadingTakes reading;
    private final AtomicTakes atomic;
    private final BatchedTakes batched;
    private final IdempotencyKeys keys;
    private final BookingAttempts attempts;
    private final BookingMetrics metrics;
    private final ObjectMapper json;
    private final Strategy defaultStrategy;

    BookingService(BookingRepository bookings, ReadingTakes reading, AtomicTakes atomic, BatchedTakes batched,
            IdempotencyKeys keys, BookingAttempts attempts, BookingMetrics metrics, ObjectMapper json, BookingConfig config) {
        this.bookings = bookings;
        this.reading = reading;
        this.atomic = atomic;
        this.batched = batched;
        this.keys = keys;
        this.attempts = attempts;
        this.metrics = metrics;
        this.json = json;
        this.defaultStrategy = config.defaultStrategy();
    }

    /** A booking request: {@code strategy} null means the configured default. */
    public record BookingCommand(FareKey fare, Strategy strategy, String passengerId, boolean elite) {
    }

    public Uni<BookingView> book(BookingCommand command) {
        Strategy strategy = strategy(command);
        FareKey fare = command.fare();
        Passenger passenger = new Passenger(command.passengerId(), command.elite(), null, null);
        if (strategy == Strategy.BATCHED) {
            // counted by the batch, once committed
            return batched.book(fare, passenger).map(id -> confirmed(fare, passenger, id));
        }
        Uni<UUID> taken = switch (strategy) {
            // The blind take is one statement that checks the seat, takes it and inserts the booking: it needs no
            // transaction around it. Only when it finds its shard empty does a read tell sold out from an empty shard,
            // before a retake (each statement alone as well: the retake checks the seat again).
            case ATOMIC, SHARDED -> retried(strategy, fare, Statements.EACH_ALONE,
                    (connection, last) -> atomic.blind(connection, fare, strategy, passenger, last))
                    .chain(id -> id != null ? Uni.createFrom().item(id)
                            : retried(strategy, fare, Statements.EACH_ALONE, (connection, last) -> atomic.fallOver(connection, fare, passenger)));
            default -> retried(strategy, fare, Statements.TOGETHER,
                    (connection, last) -> reading.take(connection, fare, strategy, passenger, last));
        };
        return taken.map(id -> confirmed(fare, passenger, id)).invoke(() -> metrics.booked(strategy));
    }

    /**
     * As {@link #book}, under an idempotency key: the first request books and stores its answer in the same
     * transaction; every later (or concurrent) one with the same request gets that answer back. The answer is given
     * as stored (also the first time), so that it and every replay are the same bytes. A rejection of the seat
     * rules is final and stored too.
     */
    public Uni<Keyed<StoredAnswer>> book(BookingCommand command, String idempotencyKey) {
        Strategy strategy = strategy(command);
        FareKey fare = command.fare();
        String fingerprint = Idempotency.fingerprintOf("book", fare.flightId(), fare.fareClass(), strategy.label(),
                command.passengerId(), command.elite());
        Passenger passenger = new Passenger(command.passengerId(), command.elite(), idempotencyKey, fingerprint);
        if (strategy == Strategy.BATCHED) {
            return batched.bookKeyed(fare, passenger);
        }
        // Counted once committed: a SERIALIZABLE commit can still fail, and its retry books again.
        AtomicBoolean booked = new AtomicBoolean();
        return retried(strategy, fare, Statements.TOGETHER, (connection, last) -> keys.claim(connection, idempotencyKey, fingerprint).chain(claim -> {
            booked.set(false);
            if (claim != Claim.OWNED) {
                return Uni.createFrom().item(replay(claim));
            }
            // the stored answer, not the take, is the transaction's last statement
            return take(connection, fare, strategy, passenger)
                    .map(id -> confirmed(fare, passenger, id))
                    .invoke(() -> booked.set(true))
                    .chain(booking -> last.thenCommit(keys.done(connection, idempotencyKey, toJson(booking))))
                    .onFailure(Rejected.class).recoverWithUni(rejected -> last.thenCommit(
                            keys.refused(connection, idempotencyKey, toJson(((Rejected) rejected).toProblem()))))
                    .map(Keyed::fresh);
        })).invoke(() -> {
            if (booked.get()) {
                metrics.booked(strategy);
            }
        });
    }

    /** The booking, if the caller may see it: another customer's booking is answered as a missing one. */
    public Uni<BookingView> booking(UUID bookingId, Caller caller) {
        return attempts.read(client -> bookings.find(client, bookingId)).map(booking -> {
            if (booking == null || !caller.mayRead(booking.passengerId())) {
                throw BookingProblems.bookingNotFound(bookingId);
            }
            return booking;
        });
    }

    /**
     * Cancels and gives the seat back; cancelling a cancelled booking changes nothing and succeeds. Another customer's
     * booking is answered as a missing one, and left as it is.
     */
    public Uni<Void> cancel(UUID bookingId, Caller caller, Predicate<String> seen) {
        return attempts.once(connection -> cancel(connection, bookingId, caller, seen));
    }

    /**
     * As {@link #cancel(UUID, Caller, Predicate)}, under an idempotency key (already in the caller's space). A replay
     * answers as the first time without testing {@code seen} again: that cancel moved the tag.
     */
    public Uni<Keyed<StoredAnswer>> cancel(UUID bookingId, Caller caller, Predicate<String> seen, String idempotencyKey) {
        String fingerprint = Idempotency.fingerprintOf("cancel", bookingId);
        return attempts.once(connection -> keys.claim(connection, idempotencyKey, fingerprint).chain(claim -> claim == Claim.OWNED
                ? cancel(connection, bookingId, caller, seen).chain(() -> keys.done(connection, idempotencyKey, null))
                        .map(Keyed::fresh)
                : Uni.createFrom().item(replay(claim))));
    }

    /** {@code seen}: the client's If-Match, tested on the booking's tag under the cancel's lock. */
    private Uni<Void> cancel(SqlConnection connection, UUID bookingId, Caller caller, Predicate<String> seen) {
        return bookings.lockForCancel(connection, bookingId).chain(target -> {
            if (target == null || !caller.mayRead(target.passengerId())) {
                throw BookingProblems.bookingNotFound(bookingId);
            }
            // Already cancelled: the change asked for has happened, whatever If-Match says (RFC 9110 13.1.1), so the
            // same conditional cancel retried after its answer was lost is not told "nothing changed".
            if (!CONFIRMED.equals(target.status())) {
                return Uni.createFrom().voidItem();
            }
            if (!seen.test(BookingView.entityTag(target.status(), target.ticketStatus()))) {
                throw BookingProblems.staleBooking(bookingId);
            }
            return bookings.cancel(connection, bookingId, target, SeatRules.returnShard(target.shard(), target.shards()))
                    .map(returned -> {
                        if (!returned) {
                            // The fare lock makes this unreachable; should it happen, roll back rather than lose a seat.
                            throw new IllegalStateException("No inventory row took back the seat of booking " + bookingId);
                        }
                        return null;
                    });
        });
    }

    /** Under a key the fall-over of atomic and sharded stays in the key's transaction (without one, book() splits it off). */
    private Uni<UUID> take(SqlConnection connection, FareKey fare, Strategy strategy, Passenger passenger) {
        return switch (strategy) {
            case ATOMIC, SHARDED -> atomic.take(connection, fare, strategy, passenger);
            default -> reading.take(connection, fare, strategy, passenger, LastStatement.COMMITTED_AFTER);
        };
    }

    private <T> Uni<T> retried(Strategy strategy, FareKey fare, Statements statements,
            BiFunction<SqlConnection, LastStatement, Uni<T>> work) {
        Budget budget = attempts.budget(strategy);
        return budget.settle(attempts.inTransaction(strategy, fare, budget, statements, work))
                .onFailure(RetryableConflict.class).transform(exhausted -> {
                    metrics.exhausted(strategy);
                    return attempts.contention();
                });
    }

    private static Keyed<StoredAnswer> replay(Claim claim) {
        if (claim instanceof Claim.Answered answered) {
            return Keyed.replay(answered.answer());
        }
        throw Idempotency.keyReused();
    }

    static BookingView confirmed(FareKey fare, Passenger passenger, UUID id) {
        return new BookingView(id.toString(), fare.flightId(), fare.fareClass(), passenger.passengerId(),
                passenger.elite(), CONFIRMED, "PENDING", null);
    }

    private Strategy strategy(BookingCommand command) {
        return command.strategy() == null ? defaultStrategy : command.strategy();
    }

    @SuppressWarnings("unchecked")
    private JsonObject toJson(Object value) {
        return new JsonObject(json.convertValue(value, Map.class));
    }
}
