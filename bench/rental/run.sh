#!/usr/bin/env bash
# Rental benchmark: HTTP rent+return vs the same conditional writes through the SDK, on one dynalite, same run.
# Usage (from the repository root): bench/rental/run.sh [clients=64] [seconds=20] [warmup=5]
# The app runs with the README's documented memory settings (README, "The packaged jar"): MALLOC_ARENA_MAX=2 and
# JAVA_OPTS below; set JAVA_OPTS (even empty) to run it otherwise, e.g. JAVA_OPTS='' for the JVM's own defaults.
set -euo pipefail
cd "$(dirname "$0")/../.."
set -a; . local/dev-identity.env; set +a   # the packaged build does not start without identity settings
CLIENTS=${1:-64}
SECONDS_MEASURED=${2:-20}
WARMUP=${3:-5}
PORT=18081
MGMT_PORT=18181   # the management interface: /q/health
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  status=$?
  cp "$WORK/app.log" target/bench-rental-app.log 2>/dev/null || true
  [ $status -eq 0 ] || echo "failed: see target/bench-rental-app.log"
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

[ -d node_modules/dynalite ] || npm ci --no-audit --no-fund >/dev/null
[ -f target/quarkus-app/quarkus-run.jar ] && [ -z "${REBUILD:-}" ] || ./mvnw -q -B package -DskipTests

# dynalite exits when its stdin closes: keep a pipe open for the run's lifetime.
mkfifo "$WORK/dynalite.in"
sleep infinity > "$WORK/dynalite.in" &
PIDS+=($!)
node local/dynalite.js < "$WORK/dynalite.in" > "$WORK/dynalite.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do grep -q "listening on port" "$WORK/dynalite.out" && break; sleep 0.1; done
DYNAMO="http://127.0.0.1:$(grep -o 'port [0-9]*' "$WORK/dynalite.out" | cut -d' ' -f2)"

# Rental only: the booking's background workers would poll a database without the booking schema (prod applies
# none) and log a warning twice a second, costing the app CPU during the measurement.
JAVA_OPTS=${JAVA_OPTS--Xmx96m -XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError}
MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2} java $JAVA_OPTS -Dquarkus.http.port=$PORT -Dquarkus.management.port=$MGMT_PORT \
  -Dquarkus.dynamodb.endpoint-override="$DYNAMO" \
  -Dturnstile.rental.create-missing-tables=true \
  -Dquarkus.dynamodb.aws.credentials.type=static \
  -Dquarkus.dynamodb.aws.credentials.static-provider.access-key-id=local \
  -Dquarkus.dynamodb.aws.credentials.static-provider.secret-access-key=local \
  -Dquarkus.log.level=WARN -Dturnstile.rental.rides-until-service=2000000000 \
  -Dturnstile.booking.ticketing.enabled=false -Dturnstile.idempotency.cleanup.interval=off \
  -jar target/quarkus-app/quarkus-run.jar > "$WORK/app.log" 2>&1 &
APP=$!
PIDS+=($APP)
# up to 90 s: on a shared, loaded machine the start alone has taken over 20 s
for _ in $(seq 450); do curl -sf "http://127.0.0.1:$MGMT_PORT/q/health/live" >/dev/null && break; sleep 0.2; done
curl -sf "http://127.0.0.1:$MGMT_PORT/q/health/live" >/dev/null || { cat "$WORK/app.log"; exit 1; }

# staff acting for each client's customer: one account per client would meet the per-customer attempt limit
export TURNSTILE_TOKEN=$(node local/token.js --sub bench --roles staff --ttl 86400)
echo "date=$(date -u +%Y-%m-%dT%H:%MZ) host_cpus=$(nproc) java=$(java -version 2>&1 | head -1) app_opts='$JAVA_OPTS' MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2}"
echo "app RSS after start: $(awk '/VmRSS/ {print $2/1024 " MB"}' /proc/$APP/status)"
java -cp 'target/quarkus-app/lib/main/*' bench/rental/Bench.java \
  "http://127.0.0.1:$PORT" "$DYNAMO" "$CLIENTS" "$SECONDS_MEASURED" "$WARMUP"
echo "RESULT app_rss_after_mb=$(awk '/VmRSS/ {printf "%.0f", $2/1024}' /proc/$APP/status) app_peak_rss_mb=$(awk '/VmHWM/ {printf "%.0f", $2/1024}' /proc/$APP/status)"
