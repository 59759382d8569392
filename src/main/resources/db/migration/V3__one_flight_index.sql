-- One partial index of confirmed bookings leading on flight_id instead of two. With bookings_confirmed_by_fare
-- (flight_id, fare_class) beside the one-seat index, a lookup of a passenger's booking on a flight could be planned
-- on the fare index whenever the table's statistics lagged behind it (a flash sale on a fresh table), filtering
-- every booking of the flight for each booking taken. The one-seat index now also carries fare_class, so the
-- per-fare counts (fare view, audit) read it alone, and every booking inserted maintains one index fewer.
-- On a large production table, build the new index first with CREATE UNIQUE INDEX CONCURRENTLY under another name,
-- then drop the two old ones and rename it (the name is the constraint BookingAttempts maps to ALREADY_BOOKED).
DROP INDEX IF EXISTS bookings_one_seat_per_passenger;
CREATE UNIQUE INDEX bookings_one_seat_per_passenger ON bookings (flight_id, passenger_id) INCLUDE (fare_class)
    WHERE status = 'CONFIRMED';
DROP INDEX IF EXISTS bookings_confirmed_by_fare;
