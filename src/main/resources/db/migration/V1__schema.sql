-- Turnstile's PostgreSQL schema as it stood when Flyway took over (issue 10): the former db/schema.sql, statement
-- for statement. It stays idempotent on purpose: a database made by that file has no flyway_schema_history, so
-- Flyway baselines it at version 0 (quarkus.flyway.baseline-on-migrate) and runs this script over the tables that
-- are already there. Later changes are new versioned scripts (V2__...), never edits of this one. The advisory
-- lock dates from the file's psql days; Flyway takes its own lock as well.
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

-- --- Flight booking (issue 4) ---
-- revision counts inventory resets, so that an ETag never repeats across a reset (the shard versions restart).
ALTER TABLE fares ADD COLUMN IF NOT EXISTS revision bigint NOT NULL DEFAULT 0;

-- No foreign key to fares on purpose: every insert would take FOR KEY SHARE on the one hot fares row, and under a
-- flash sale those shared locks pile up into MultiXacts. The booking transaction has just updated an inventory row
-- of the same fare (which references fares), so the reference is checked there already.
CREATE TABLE IF NOT EXISTS bookings (
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    flight_id       text        NOT NULL,
    fare_class      text        NOT NULL,
    passenger_id    text        NOT NULL,
    elite           boolean     NOT NULL DEFAULT false,
    shard           integer     NOT NULL,
    status          text        NOT NULL DEFAULT 'CONFIRMED' CHECK (status IN ('CONFIRMED', 'CANCELLED')),
    created_at      timestamptz NOT NULL DEFAULT now(),
    cancelled_at    timestamptz,
    idempotency_key text        UNIQUE,
    request_hash    text,
    -- The ticket queue: PENDING rows are claimed by the workers with FOR UPDATE SKIP LOCKED. VOID = the booking was
    -- cancelled: before issue (no ticket_number) or after it (the number stays, the ticket is void and refundable).
    ticket_status   text        NOT NULL DEFAULT 'PENDING' CHECK (ticket_status IN ('PENDING', 'ISSUED', 'VOID')),
    ticket_number   text        UNIQUE,
    ticketed_at     timestamptz
);
CREATE INDEX IF NOT EXISTS bookings_confirmed_by_fare ON bookings (flight_id, fare_class) WHERE status = 'CONFIRMED';
-- A passenger holds at most one confirmed seat per flight (all fare classes): a client that times out and retries
-- without an Idempotency-Key gets 409 ALREADY_BOOKED instead of a second seat. On an existing production table,
-- cancel any duplicates first (the CREATE fails on them) and build it with CREATE UNIQUE INDEX CONCURRENTLY.
CREATE UNIQUE INDEX IF NOT EXISTS bookings_one_seat_per_passenger ON bookings (flight_id, passenger_id)
    WHERE status = 'CONFIRMED';
CREATE INDEX IF NOT EXISTS bookings_ticket_pending ON bookings (created_at) WHERE ticket_status = 'PENDING';
CREATE SEQUENCE IF NOT EXISTS ticket_number_seq;

CREATE TABLE IF NOT EXISTS idempotency_keys (
    key           text        PRIMARY KEY,
    request_hash  text        NOT NULL,
    status_code   integer,      -- NULL only inside the claiming transaction, never once committed
    response_body jsonb,
    created_at    timestamptz NOT NULL DEFAULT now(),
    expires_at    timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS idempotency_keys_expiry ON idempotency_keys (expires_at);
