-- The atomic statement on a 16-shard fare, a random shard per transaction (what the sharded strategy sends), for
-- the raw ceiling of a sharded fare: -D flight=... names a fare with shards 0..15.
\set p random(1, 1000000000000)
\set shard random(0, 15)
BEGIN;
WITH seat AS (
  UPDATE flight_inventory SET seats_available = seats_available - 1, version = version + 1
  WHERE flight_id = :flight AND fare_class = 'Y' AND shard = :shard AND seats_available > 0 RETURNING shard)
INSERT INTO bookings (flight_id, fare_class, passenger_id, elite, shard) SELECT :flight, 'Y', 'bench-' || :client_id || '-' || :p, false, shard FROM seat;
END;
