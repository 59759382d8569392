-- Each shard row names the fare revision it was last written under. A booking statement that waited for a shard row a
-- reset held gets the row as the reset left it (READ COMMITTED re-reads the rows it locks), but the fare row it only
-- joins, with the elite reserve and the shard count, as it was before: the two revisions then differ, and the booking
-- decides again on a fresh read instead of on the old reserve (docs/booking.md, "A reset while bookings wait").
-- ADD COLUMN with a constant default rewrites no rows; the UPDATE then rewrites the inventory, which is small.
ALTER TABLE flight_inventory ADD COLUMN IF NOT EXISTS fare_revision bigint NOT NULL DEFAULT 0;
UPDATE flight_inventory i SET fare_revision = f.revision
FROM fares f WHERE f.flight_id = i.flight_id AND f.fare_class = i.fare_class AND i.fare_revision <> f.revision;
