-- The sharded strategy's statement as pgbench sends it: the atomic form on a random one of 16 shard rows (a fare made
-- with shards=16). It gives the raw-store ceiling for a fare whose single hot row is split: on a 2-core machine that
-- runs PostgreSQL, the load generator and the service, the cores, not the row lock, are what it finds.
\set p random(1, 1000000000000)
\set s random(0, 15)
BEGIN;
WITH seat AS (
  UPDATE flight_inventory SET seats_available = seats_available - 1, version = version + 1
  WHERE flight_id = :flight AND fare_class = 'Y' AND shard = :s AND seats_available > 0 RETURNING shard)
INSERT INTO bookings (flight_id, fare_class, passenger_id, elite, shard) SELECT :flight, 'Y', 'bench-' || :client_id || '-' || :p, false, shard FROM seat;
END;
