#!/usr/bin/env bash
# The contention lab against a Turnstile started here: the packaged JVM build (prod profile, documented defaults) on
# API port 8090 and management port 9090, with its own dynalite and the local PostgreSQL (database turnstile_lab),
# then bench/lab/run.sh pointed at it and at the same stores. One command from a clean clone:
#   bench/lab/local.sh                 Env: as run.sh (LAB_SECONDS, LAB_CONCURRENCY, ...), JAVA_OPTS for the app (default: the README's memory settings),
#                                      LAB_PORT=8090, LAB_MANAGEMENT_PORT=9090, LAB_DB=turnstile_lab
# Bikes get turnstile.rental.rides-until-service=1000000000 so the bike scenarios measure renting, not the workshop
# (run.sh services a bike that reaches a server's limit and counts its rides for the invariant).
set -euo pipefail
cd "$(dirname "$0")/../.."
set -a; . local/dev-identity.env; set +a   # the packaged build does not start without identity settings
PORT=${LAB_PORT:-8090}
MGMT_PORT=${LAB_MANAGEMENT_PORT:-9090}
DB=${LAB_DB:-turnstile_lab}
[ -f target/quarkus-app/quarkus-run.jar ] || ./mvnw -q -B package -DskipTests
[ -d node_modules/dynalite ] || npm ci --no-audit --no-fund >/dev/null
if [ -z "${TURNSTILE_BENCH_LOCKED:-}" ]; then
  # the machine-wide bench lock of bench/booking/run.sh, taken after the build: two load tests at once measure each other
  exec env TURNSTILE_BENCH_LOCKED=1 flock -o -w "${LAB_LOCK_WAIT:-900}" /tmp/turnstile-bench.lock "$0" "$@"
fi
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  cp "$WORK/app.log" target/lab-app.log 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

PSQL="psql -U postgres -h 127.0.0.1 -q"
$PSQL -d postgres -tc "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1 || $PSQL -d postgres -c "CREATE DATABASE $DB"
bash local/migrate.sh "postgresql://127.0.0.1:5432/$DB" >/dev/null 2>&1

# dynalite exits when its stdin closes: keep a pipe open for the run's lifetime.
mkfifo "$WORK/dynalite.in"
sleep infinity > "$WORK/dynalite.in" & PIDS+=($!)
node local/dynalite.js < "$WORK/dynalite.in" > "$WORK/dynalite.out" 2>&1 & PIDS+=($!)
for _ in $(seq 50); do grep -q "listening on port" "$WORK/dynalite.out" && break; sleep 0.1; done
DYNAMO="http://127.0.0.1:$(grep -o 'port [0-9]*' "$WORK/dynalite.out" | cut -d' ' -f2)"

# The README's documented memory settings unless JAVA_OPTS says otherwise (even empty: the JVM's own defaults, which
# size the heap from the host's memory).
JAVA_OPTS=${JAVA_OPTS--Xmx96m -XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError}
MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2} java $JAVA_OPTS -Dquarkus.http.port=$PORT -Dquarkus.management.port=$MGMT_PORT \
  -Dquarkus.datasource.reactive.url=postgresql://127.0.0.1:5432/$DB \
  -Dquarkus.dynamodb.endpoint-override="$DYNAMO" -Dturnstile.rental.create-missing-tables=true \
  -Dquarkus.dynamodb.aws.credentials.type=static -Dquarkus.dynamodb.aws.credentials.static-provider.access-key-id=local \
  -Dquarkus.dynamodb.aws.credentials.static-provider.secret-access-key=local -Dquarkus.log.level=WARN \
  -Dturnstile.rental.rides-until-service=1000000000 \
  -jar target/quarkus-app/quarkus-run.jar > "$WORK/app.log" 2>&1 & PIDS+=($!)
APP=$!
for _ in $(seq 150); do curl -sf "http://127.0.0.1:$MGMT_PORT/q/health/ready" >/dev/null && break; sleep 0.2; done
curl -sf "http://127.0.0.1:$MGMT_PORT/q/health/ready" >/dev/null || { cat "$WORK/app.log"; exit 1; }

LAB_META="server=packaged JVM build $(git rev-parse --short HEAD) on this machine, JAVA_OPTS='$JAVA_OPTS', dynalite, PostgreSQL $(psql -U postgres -h 127.0.0.1 -tAc 'SHOW server_version' | cut -d' ' -f1) on 127.0.0.1" \
  bench/lab/run.sh --url "http://127.0.0.1:$PORT" --management "http://127.0.0.1:$MGMT_PORT" \
  --pg "postgresql://postgres@127.0.0.1:5432/$DB" --dynamo "$DYNAMO" "$@"
echo "app RSS at the end: $(awk '/VmRSS/ {printf "%.0f MB", $2/1024}' /proc/$APP/status)"
