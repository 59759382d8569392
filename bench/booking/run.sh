#!/usr/bin/env bash
# Hot-row booking benchmark: every strategy over HTTP (64 wrk connections, 10 s each, one fare that never sells
# out) and pgbench running the same transaction over a range of client counts, in the same run, on the same machine.
# Usage: bench/booking/run.sh            (from the repository root; takes the machine-wide bench lock)
# Env:   POOL_SIZES="20" (reactive pool sizes to try), DURATION=10s, CONNECTIONS=64, SKIP_BUILD=1,
#        PGBENCH_CLIENTS="1 2 4 8 16 32 64" (the baseline is the best of these)
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${TURNSTILE_BENCH_LOCKED:-}" ]; then
  exec env TURNSTILE_BENCH_LOCKED=1 flock /tmp/turnstile-bench.lock "$0" "$@"
fi

# wrk and pgbench come from Debian's packages (pgbench ships with the PostgreSQL client).
if ! command -v wrk >/dev/null || ! command -v pgbench >/dev/null; then
  apt-get update -qq && apt-get install -y -qq wrk postgresql-client >/dev/null
fi

PORT=18082
DB=turnstile_bench
PSQL="psql -U postgres -h 127.0.0.1 -q -v ON_ERROR_STOP=1"
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-64}
POOL_SIZES=${POOL_SIZES:-20}
PGBENCH_CLIENTS=${PGBENCH_CLIENTS:-"1 2 4 8 16 32 64"}
SEATS=100000000
RUN=$(date +%s)
OUT=target/bench-booking-$RUN.txt
mkdir -p target

$PSQL -d postgres -tc "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1 || $PSQL -d postgres -c "CREATE DATABASE $DB"
$PSQL -d $DB -f src/main/resources/db/schema.sql >/dev/null
[ -n "${SKIP_BUILD:-}" ] || ./mvnw -q -o package -DskipTests

fare() { # flight shards
  $PSQL -d $DB -c "INSERT INTO fares (flight_id, fare_class, seats_total, shards) VALUES ('$1', 'Y', $SEATS, $2);
    INSERT INTO flight_inventory (flight_id, fare_class, shard, seats_available)
    SELECT '$1', 'Y', s, $SEATS / $2 FROM generate_series(0, $2 - 1) s;"
}

counter() { # name strategy
  curl -s localhost:$PORT/q/metrics | awk -v n="$1" -v s="strategy=\"$2\"" 'index($0, n "{") == 1 && index($0, s) { v = $NF } END { print v + 0 }'
}

APP=
stop_app() { if [ -n "$APP" ]; then kill "$APP" 2>/dev/null || true; wait "$APP" 2>/dev/null || true; APP=; fi; }
trap stop_app EXIT

echo "# booking benchmark $(date -u +%FT%TZ), $(nproc) cores, ${CONNECTIONS} connections, ${DURATION} per run" | tee "$OUT"

for pool in $POOL_SIZES; do
  QUARKUS_HTTP_PORT=$PORT QUARKUS_DATASOURCE_REACTIVE_URL=postgresql://127.0.0.1:5432/$DB \
    QUARKUS_DATASOURCE_REACTIVE_MAX_SIZE=$pool TURNSTILE_BOOKING_TICKETING_ENABLED=false \
    java -jar target/quarkus-app/quarkus-run.jar >target/bench-booking-app-$RUN.log 2>&1 &
  APP=$!
  for _ in $(seq 1 100); do curl -sf localhost:$PORT/q/health/live >/dev/null && break; sleep 0.2; done
  warm="bench-warmup-$RUN-$pool"; fare "$warm" 1   # JIT warm-up, so the first strategy is not measured cold
  wrk -t2 -c$CONNECTIONS -d8s -s bench/booking/book.lua "http://127.0.0.1:$PORT/flights/$warm/fares/Y/bookings?strategy=pessimistic" >/dev/null
  for strategy in atomic pessimistic optimistic nowait serializable sharded; do
    shards=1; [ $strategy = sharded ] && shards=16
    flight="bench-$strategy-$RUN-$pool"
    fare "$flight" $shards
    url="http://127.0.0.1:$PORT/flights/$flight/fares/Y/bookings?strategy=$strategy"
    wrk -t2 -c$CONNECTIONS -d3s -s bench/booking/book.lua "$url" >/dev/null   # warm-up (JIT, pool)
    attempts0=$(counter turnstile_booking_attempts_total $strategy); retries0=$(counter turnstile_booking_retries_total $strategy)
    booked0=$(counter turnstile_booking_booked_total $strategy)
    result=$(wrk -t2 -c$CONNECTIONS -d$DURATION --timeout 10s --latency -s bench/booking/book.lua "$url" | grep '^RESULT' | cut -c8-)
    booked=$(( $(counter turnstile_booking_booked_total $strategy) - booked0 ))
    retries=$(( $(counter turnstile_booking_retries_total $strategy) - retries0 ))
    echo "http strategy=$strategy shards=$shards pool=$pool booked=$booked retries=$retries $result" | tee -a "$OUT"
  done
  stop_app
done

# The raw-store baseline is the best pgbench figure over client counts: a single hot row peaks at few clients.
for script in transaction statement; do
  best=0; best_clients=0
  for clients in $PGBENCH_CLIENTS; do
    flight="pgbench-$script-$clients-$RUN"
    fare "$flight" 1
    tps=$(pgbench -U postgres -h 127.0.0.1 -n -M prepared -c $clients -j $(( clients < 2 ? 1 : 2 )) -T ${DURATION%s} -D flight=$flight \
          -f bench/booking/pgbench-$script.sql $DB 2>/dev/null | awk '/^tps/ { print $3; exit }')
    echo "pgbench script=$script clients=$clients tps=$tps" | tee -a "$OUT"
    if awk -v a="$tps" -v b="$best" 'BEGIN { exit !(a > b) }'; then best=$tps; best_clients=$clients; fi
  done
  echo "pgbench-best script=$script clients=$best_clients tps=$best" | tee -a "$OUT"
done
echo "# results in $OUT"
