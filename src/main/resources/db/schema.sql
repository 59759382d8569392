-- Turnstile's PostgreSQL schema. Idempotent: dev and test apply it at start; production applies it as a
-- separate step (psql -f), never from a Lambda cold start. The whole file runs as one implicit transaction,
-- and the advisory lock keeps two JVMs starting at once from racing on CREATE ... IF NOT EXISTS.
SELECT pg_advisory_xact_lock(7215001);

CREATE TABLE IF NOT EXISTS fares (
    flight_id     text    NOT NULL,
    fare_class    text    NOT NULL,
    seats_total   integer NOT NULL CHECK (seats_total >= 0),
    elite_reserve integer NOT NULL DEFAULT 0 CHECK (elite_reserve >= 0 AND elite_reserve <= seats_total),
    shards        integer NOT NULL DEFAULT 1 CHECK (shards BETWEEN 1 AND 64),
    PRIMARY KEY (flight_id, fare_class)
);

CREATE TABLE IF NOT EXISTS flight_inventory (
    flight_id       text    NOT NULL,
    fare_class      text    NOT NULL,
    shard           integer NOT NULL,
    seats_available integer NOT NULL CHECK (seats_available >= 0),
    version         bigint  NOT NULL DEFAULT 1,
    PRIMARY KEY (flight_id, fare_class, shard),
    FOREIGN KEY (flight_id, fare_class) REFERENCES fares ON DELETE CASCADE
);
