#!/usr/bin/env bash
# Turnstile against the Node.js peer (../shared/peer) with ../shared/bench/run-all.sh, alternating, ROUNDS rounds
# each, in one sitting on one machine: one PostgreSQL (databases `peer` and `turnstile_side`), a dynalite each.
# Turnstile runs the packaged JVM build (target/quarkus-app) in the prod profile with its documented defaults.
# Usage (from the repository root): bench/side-by-side/run.sh      Env: ROUNDS=2, SHARED=../shared,
#   JAVA_OPTS (default the README's: -Xmx96m -XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError)
# Prints the folder with peer.txt, turnstile.txt, first-sale.txt, warmup.txt, floor.txt and compare.txt
# (../shared/bench/compare.py).
# floor.txt: the sell-out against null-server.js, which does no work: the time to sold out that the load generator
# itself needs (64 Python threads sharing the 2 cores), the floor under both servers' sell-out rows.
# first-sale.txt: each round, the sell-out (pessimistic, then optimistic) run as the very first requests after the
# server said ready, before run-all.sh, for both servers: the "first sale after a start" of issue 14.
# Each server is measured warm, as issue 14's table was: after the first sale, one pass of run-all.sh whose results
# are kept apart (warmup.txt) and left out of compare.txt. Turnstile's JIT needs about 20 s of booking load to reach
# its plateau on this machine (optimistic, 64 connections, fresh JVM, bookings/s every 2 s: 246 402 813 939 1024
# 1261 1324 1502 1574 1613 1720); run-all.sh warms each scenario 3 s, which measured the first scenarios at half
# their rate. WARM_PASSES=0 measures right after the first sale instead.
set -u
cd "$(dirname "$0")/../.."
# one benchmark at a time on this machine (fixed ports 8081/8082; bench/booking/run.sh takes the same lock)
[ -n "${SIDE_BY_SIDE_LOCKED:-}" ] || SIDE_BY_SIDE_LOCKED=1 exec flock /tmp/turnstile-bench.lock "$0" "$@"
set -a; . local/dev-identity.env; set +a   # the packaged build does not start without identity settings
# run-all.sh sends BENCH_TOKEN on every request: a staff token, because staff act for the benchmark's many customers
# and passengers and are not rate limited (docs/identity.md). The peer ignores the header.
BENCH_TOKEN=$(node local/token.js --sub bench --roles staff --ttl 86400)
export BENCH_TOKEN
ROOT=$PWD
SHARED=$(cd "${SHARED:-../shared}" && pwd)
OUT=$ROOT/target/side-by-side-$(date +%s)
DB=turnstile_side
JAVA_OPTS=${JAVA_OPTS:--Xmx96m -XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError}
mkdir -p "$OUT"
[ -f target/quarkus-app/quarkus-run.jar ] || ./mvnw -q -B package -DskipTests
[ -d node_modules/dynalite ] || npm ci --no-audit --no-fund >/dev/null
command -v wrk >/dev/null || apt-get install -y -qq wrk >/dev/null

# run-all.sh's preflight (GET /bikes/__preflight__ must answer 404) sends no token, and Turnstile answers 401 to any
# request without one. A copy of the shared bench whose preflight alone sends BENCH_TOKEN; the scenarios are unchanged.
BENCH=$OUT/bench
cp -r "$SHARED/bench" "$BENCH"
sed -i 's|curl -s -o /dev/null -w|curl -s -H "Authorization: Bearer $BENCH_TOKEN" -o /dev/null -w|' "$BENCH/run-all.sh"
# It also asks for bike `__preflight__`, which Turnstile's id shape refuses (400: an id starts with a letter or a
# digit); an absent bike of a valid id answers 404 on both servers.
sed -i 's|/bikes/__preflight__|/bikes/preflight-absent|g' "$BENCH/run-all.sh"
grep -q 'Bearer $BENCH_TOKEN" -o /dev/null' "$BENCH/run-all.sh" && grep -q 'bikes/preflight-absent' "$BENCH/run-all.sh" \
  || { echo "run-all.sh's preflight changed; adapt $0" >&2; exit 2; }

rm -rf /tmp/turnstile-peer && cp -r "$SHARED/peer" /tmp/turnstile-peer && (cd /tmp/turnstile-peer && npm ci --no-audit --no-fund >/dev/null 2>&1)
# This machine's PostgreSQL runs with autovacuum off (/etc/postgresql/15/main/conf.d/90-ci.conf); production's does
# not. Without it every booking the sitting makes stays, with Turnstile's ticket workers' dead row versions, and each
# round runs on a larger, more bloated bookings table than the one before (one old build measured 982 then 474
# pessimistic bookings/s, 190 000 dead rows apart). What autovacuum would do, done before each server's round:
# The peer creates its database at its first start: on a fresh machine there is nothing to vacuum before that.
vacuum() {
  $PSQL -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$1'" | grep -q 1 || return 0
  $PSQL -d "$1" -c "VACUUM (ANALYZE)" >/dev/null
}
start_peer() {
  vacuum peer
  (cd /tmp/turnstile-peer && RIDES_UNTIL_SERVICE=1000000000 ./start.sh >/dev/null 2>&1)
  for _ in $(seq 50); do curl -sf localhost:8081/health >/dev/null && break; sleep 0.2; done
}
stop_peer() { (cd /tmp/turnstile-peer && ./stop.sh >/dev/null 2>&1); }

PSQL="psql -U postgres -h 127.0.0.1 -q"
$PSQL -tc "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1 || $PSQL -c "CREATE DATABASE $DB"
bash local/migrate.sh postgresql://127.0.0.1:5432/$DB >/dev/null 2>&1
PIDS=()
start_turnstile() {
  vacuum "$DB"
  rm -f "$OUT/dynalite.in"; mkfifo "$OUT/dynalite.in"
  # dynalite exits when its stdin closes: keep a pipe open while it runs
  sleep infinity > "$OUT/dynalite.in" & PIDS+=($!)
  node local/dynalite.js < "$OUT/dynalite.in" > "$OUT/dynalite.out" 2>&1 & PIDS+=($!)
  for _ in $(seq 50); do grep -q "listening on port" "$OUT/dynalite.out" && break; sleep 0.1; done
  local dynamo="http://127.0.0.1:$(grep -o 'port [0-9]*' "$OUT/dynalite.out" | cut -d' ' -f2)"
  # the README's documented way to run the jar, memory settings included
  MALLOC_ARENA_MAX=2 java $JAVA_OPTS -Dquarkus.http.port=8082 -Dquarkus.management.port=9082 -Dquarkus.dynamodb.endpoint-override="$dynamo" -Dturnstile.rental.create-missing-tables=true \
    -Dquarkus.dynamodb.aws.credentials.type=static -Dquarkus.dynamodb.aws.credentials.static-provider.access-key-id=local \
    -Dquarkus.dynamodb.aws.credentials.static-provider.secret-access-key=local -Dquarkus.log.level=WARN \
    -Dturnstile.rental.rides-until-service=1000000000 -Dquarkus.datasource.reactive.url=postgresql://127.0.0.1:5432/$DB \
    -jar target/quarkus-app/quarkus-run.jar >> "$OUT/turnstile.log" 2>&1 & PIDS+=($!)
  for _ in $(seq 100); do curl -sf localhost:9082/q/health/ready >/dev/null && break; sleep 0.2; done
}
stop_turnstile() { kill "${PIDS[@]}" 2>/dev/null; wait "${PIDS[@]}" 2>/dev/null; PIDS=(); }
trap 'stop_turnstile; stop_peer' EXIT

first_sale() {  # LABEL URL
  for s in pessimistic optimistic; do
    echo "$1 $(bash "$BENCH/sellout.sh" "$2" 64 10 "$s" 2>&1 | grep '^sellout ')" >> "$OUT/first-sale.txt"
  done
}
warm_up() {  # LABEL URL
  for _ in $(seq 1 "${WARM_PASSES:-1}"); do
    LABEL="$1 warm-up (not compared)" bash "$BENCH/run-all.sh" "$2" >> "$OUT/warmup.txt" 2>&1
  done
}
# And again after the warm-up, whose tens of thousands of bookings autovacuum would have analyzed: on a fresh machine
# the first vacuum finds the tables empty, and a plan PostgreSQL caches for a prepared statement on a table it knows to
# be empty reads the whole table (Turnstile's round 1 of 2026-12-07 20:04: 16 755 sequential scans of bookings,
# 439 million rows read, 217 pessimistic bookings/s against 1 934 in round 2). The peer gets the same.
for _ in $(seq 1 "${ROUNDS:-2}"); do
  start_peer; first_sale peer http://127.0.0.1:8081; warm_up peer http://127.0.0.1:8081; vacuum peer
  LABEL=peer bash "$BENCH/run-all.sh" http://127.0.0.1:8081 >> "$OUT/peer.txt" 2>&1; stop_peer
  start_turnstile; first_sale turnstile http://127.0.0.1:8082; warm_up turnstile http://127.0.0.1:8082; vacuum "$DB"
  LABEL=turnstile bash "$BENCH/run-all.sh" http://127.0.0.1:8082 >> "$OUT/turnstile.txt" 2>&1; stop_turnstile
done
node bench/side-by-side/null-server.js 8083 & NULL_SERVER=$!
for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:8083/ && break; sleep 0.1; done
for _ in $(seq 4); do
  for s in pessimistic optimistic; do
    echo "null-server $(bash "$BENCH/sellout.sh" http://127.0.0.1:8083 64 10 "$s" 2>&1 | grep '^sellout ')" >> "$OUT/floor.txt"
  done
done
kill "$NULL_SERVER"
cat "$OUT/first-sale.txt" "$OUT/floor.txt"
python3 "$BENCH/compare.py" "$OUT/peer.txt" "$OUT/turnstile.txt" | tee "$OUT/compare.txt"
echo "# results in $OUT"
