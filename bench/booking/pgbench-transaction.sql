-- The booking transaction as plain SQL, for pgbench: decrement the hot row, insert the booking, commit.
-- :flight is set with pgbench -D flight=... and sent as a bind parameter (-M prepared, like the service).
\set p random(1, 1000000000000)
BEGIN;
UPDATE flight_inventory SET seats_available = seats_available - 1, version = version + 1
  WHERE flight_id = :flight AND fare_class = 'Y' AND shard = 0 AND seats_available > 0;
INSERT INTO bookings (flight_id, fare_class, passenger_id, elite, shard) VALUES (:flight, 'Y', 'bench-' || :client_id || '-' || :p, false, 0);
END;
