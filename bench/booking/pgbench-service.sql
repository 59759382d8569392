-- The blind take exactly as the atomic and sharded strategies send it without an idempotency key: one statement on
-- its own (autocommit), the seat rule, the one-seat-per-passenger check and the fare's revision inside it, a start
-- shard taken modulo the fare's shard count (BookingRepository.TAKE_SEAT_ATOMICALLY, a non-elite passenger). On a
-- single-row fare it is the raw ceiling of atomic, on a 16-shard fare that of sharded: their ratio is what the
-- store itself allows the sharded strategy on this machine.
\set p random(1, 1000000000000)
\set shard random(0, 1048575)
WITH existing AS (
    SELECT id FROM bookings WHERE flight_id = :flight AND passenger_id = 'bench-' || :client_id || '-' || :p AND status = 'CONFIRMED'),
seat AS (
    UPDATE flight_inventory i SET seats_available = i.seats_available - 1, version = i.version + 1
        FROM fares f
        WHERE f.flight_id = :flight AND f.fare_class = 'Y' AND i.flight_id = :flight AND i.fare_class = 'Y'
          AND i.shard = :shard % f.shards AND i.seats_available > 0 AND i.fare_revision <= f.revision
          AND (false OR f.elite_reserve = 0
               OR (CASE WHEN f.shards = 1 THEN i.seats_available
                   ELSE (SELECT sum(s.seats_available) FROM flight_inventory s
                         WHERE s.flight_id = :flight AND s.fare_class = 'Y') END) > f.elite_reserve)
          AND NOT EXISTS (SELECT 1 FROM existing)
        RETURNING i.shard),
booked AS (
    INSERT INTO bookings (flight_id, fare_class, passenger_id, elite, shard, idempotency_key, request_hash)
    SELECT :flight, 'Y', 'bench-' || :client_id || '-' || :p, false, seat.shard, NULL, NULL FROM seat
    RETURNING id)
SELECT (SELECT id FROM booked) AS id, (SELECT id FROM existing) AS existing;
