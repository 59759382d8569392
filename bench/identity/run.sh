#!/usr/bin/env bash
# What a JWKS URL costs against a key file, on one build in one run: the packaged app is started alternately with
# the dev public key as a file (the baseline, as every other benchmark runs) and with the same key served as a key
# set by a local JWKS endpoint (as production runs: docs/identity.md, "The key set"). Each start is warmed, then
# loaded with GET /bikes/{id} of an unknown bike (404; token check, validation, one DynamoDB read) by wrk, one token,
# 64 connections; per 10 s window it prints requests/s, p99 and the app's CPU time per request (user + system, from
# /proc), which moves less than throughput on a shared machine.
#
#   bench/identity/run.sh     (ROUNDS=3 starts of each; APP=dir of another packaged build than target/quarkus-app;
#                              needs wrk, Node.js and PostgreSQL on 127.0.0.1:5432)
set -euo pipefail
cd "$(dirname "$0")/../.."
set -a; . local/dev-identity.env; set +a
ROUNDS=${ROUNDS:-3}
PORT=18085
JWKS_PORT=18087
DB=turnstile_identity_bench
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  exec 3>&- 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

APP=${APP:-target/quarkus-app}
[ -f "$APP/quarkus-run.jar" ] || ./mvnw -q -B package -DskipTests

. bench/startup/stores.sh   # DB migrated, a dynalite on fd 3 with the tables, DYNAMO_PORT

# The dev public key as an identity provider serves it: a key set, kept for an hour (Cache-Control: max-age).
node -e '
const crypto = require("crypto"), fs = require("fs"), http = require("http");
const key = crypto.createPublicKey(fs.readFileSync("local/dev-keys/public.pem")).export({ format: "jwk" });
const body = JSON.stringify({ keys: [{ ...key, use: "sig", alg: "RS256" }] });
http.createServer((req, res) => {
  res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "max-age=3600" });
  res.end(body);
}).listen(Number(process.argv[1]), "127.0.0.1");' "$JWKS_PORT" &
PIDS+=($!)

. bench/startup/app-env.sh   # ports, stores, BENCH_TOKEN (PORT, DB, DYNAMO_PORT)
KEY_FILE=$PWD/$TURNSTILE_IDENTITY_PUBLIC_KEY_LOCATION
URL=http://127.0.0.1:$PORT/bikes/no-such-bike

one() {
  local label=$1 location=$2
  # an app left on these ports (by an interrupted run) would answer in this one's place, under the wrong label
  if curl -s -o /dev/null "localhost:$PORT" || curl -s -o /dev/null "localhost:$((PORT + 1))"; then
    echo "port $PORT or $((PORT + 1)) is taken: stop what listens there" >&2; exit 1
  fi
  TURNSTILE_IDENTITY_PUBLIC_KEY_LOCATION=$location MALLOC_ARENA_MAX=2 \
    java -Xmx96m -XX:+UseSerialGC -jar "$APP/quarkus-run.jar" > "$WORK/app.log" 2>&1 &
  local app=$!
  PIDS+=("$app")
  for _ in $(seq 150); do
    kill -0 "$app" 2>/dev/null || { tail -20 "$WORK/app.log"; exit 1; }
    curl -sf "localhost:$((PORT + 1))/q/health/ready" >/dev/null && break
    sleep 0.2
  done
  [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $BENCH_TOKEN" "$URL")" = 404 ] \
    || { tail -20 "$WORK/app.log"; exit 1; }
  wrk -t2 -c64 -d20s -H "Authorization: Bearer $BENCH_TOKEN" "$URL" >/dev/null   # the JIT's warm-up
  for window in 1 2 3; do
    local before after out
    before=$(awk '{ print $14 + $15 }' "/proc/$app/stat")
    out=$(wrk -t2 -c64 -d10s --latency -H "Authorization: Bearer $BENCH_TOKEN" "$URL")
    after=$(awk '{ print $14 + $15 }' "/proc/$app/stat")
    echo "$out" | awk -v label="$label" -v window="$window" -v ticks=$((after - before)) -v hz="$(getconf CLK_TCK)" '
      /requests in/ { n = $1 } /Requests\/sec/ { rps = $2 } $1 == "99%" { p99 = $2 }
      END { printf "%-9s window %d: %8.0f requests/s, p99 %s, %4.0f us CPU a request\n", label, window, rps, p99, ticks / hz * 1e6 / n }'
  done
  kill "$app"; wait "$app" 2>/dev/null || true
}

echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores; build: $APP; $ROUNDS rounds"
for round in $(seq "$ROUNDS"); do
  one "key file" "$KEY_FILE"
  one "JWKS URL" "http://127.0.0.1:$JWKS_PORT/jwks"
done
