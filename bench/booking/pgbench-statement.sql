-- The same transaction in the form the atomic strategy sends it: BEGIN, one decrement-and-insert statement, COMMIT.
\set p random(1, 1000000000000)
BEGIN;
WITH seat AS (
  UPDATE flight_inventory SET seats_available = seats_available - 1, version = version + 1
  WHERE flight_id = :flight AND fare_class = 'Y' AND shard = 0 AND seats_available > 0 RETURNING shard)
INSERT INTO bookings (flight_id, fare_class, passenger_id, elite, shard) SELECT :flight, 'Y', 'bench-' || :client_id || '-' || :p, false, shard FROM seat;
END;
