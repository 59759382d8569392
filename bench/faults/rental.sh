#!/usr/bin/env bash
# Rental fault run (issue 9): kill -9 of DynamoDB (dynalite, data on disk with --path, port 18094) in the middle of
# a rent/return load at 64 concurrent clients, and a restart on the same port and data directory.
# The packaged service (prod profile, port 18093) creates its tables at startup (turnstile.rental.create-missing-tables)
# and uses the main PostgreSQL (127.0.0.1:5432, database turnstile_faults_rental, created if missing) only to start:
# booking workers and the idempotency sweeper are off. 64 bikes at one station, one per client; each client loops
# rent -> return with one Idempotency-Key per operation, retried with the same key and body on 503, 409
# IDEMPOTENCY_IN_PROGRESS and network errors. FAULT_AFTER s into the load dynalite is killed, DOWN s later started
# again; AFTER s later the clients finish their cycle (bike returned) and stop.
# Checks: zero 500s, every 503 with Retry-After, no false 409 (NOT_AVAILABLE / NOT_RENTED answered to a retry),
# no other unexpected answer, no unresolved operation, every bike AVAILABLE with rides == the client's confirmed
# rents (read through GET /bikes/{id}), readiness went DOWN (503) and came back UP (200) by itself.
# Prints a table of the figures; exits 1 when a check fails.
# Usage: bench/faults/rental.sh   (from anywhere; builds target/quarkus-app if missing)
# Env:   CLIENTS=64, WARMUP=5 (s of the same load on 64 other bikes first, so the JVM is warm), FAULT_AFTER=2 (s of load before the kill), DOWN=3 (s dynalite stays down), AFTER=4 (s of load
#        after the restart), PGPORT=5432
set -uo pipefail
cd "$(dirname "$0")/../.."

PORT=18093
MGMT_PORT=18193   # the management interface: /q/health
DYNAMO_PORT=18094
PGPORT=${PGPORT:-5432}
DB=turnstile_faults_rental
CLIENTS=${CLIENTS:-64}
WARMUP=${WARMUP:-5}
FAULT_AFTER=${FAULT_AFTER:-2}
DOWN=${DOWN:-3}
AFTER=${AFTER:-4}
PSQL="psql -U postgres -h 127.0.0.1 -p $PGPORT -qAtX -v ON_ERROR_STOP=1"
RUN=$(date +%s)
WORK=target/faults-rental-$RUN
DATA=$WORK/dynalite-data
mkdir -p "$WORK"
BASE=http://127.0.0.1:$PORT
STATION=faults-$RUN

source bench/faults/common.sh

APP= DYNAMO= LOAD= HEALTH=
cleanup() {
  stop_pid "$LOAD"; stop_pid "$HEALTH"; stop_pid "$APP"; stop_pid "$DYNAMO"
}
trap cleanup EXIT

# --- the jar, node_modules, the database the service needs to start ----------------------------------------------
if [ ! -f target/quarkus-app/quarkus-run.jar ]; then
  ./mvnw -B -q -o package -DskipTests || ./mvnw -B -q package -DskipTests || { log "build failed"; exit 1; }
fi
[ -d node_modules/dynalite ] || npm ci --silent --no-audit --no-fund
pg_isready -q -h 127.0.0.1 -p $PGPORT || { log "PostgreSQL does not answer on 127.0.0.1:$PGPORT"; exit 1; }
$PSQL -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1 || createdb -h 127.0.0.1 -p $PGPORT -U postgres $DB

# --- dynalite, data on disk --------------------------------------------------------------------------------------
start_dynamo() {
  : >"$WORK/dynalite.log.tmp"
  node bench/faults/dynalite.mjs $DYNAMO_PORT "$DATA" >"$WORK/dynalite.log.tmp" 2>&1 &
  DYNAMO=$!
  local t0
  t0=$(date +%s%3N)
  for _ in $(seq 1 100); do grep -q ready "$WORK/dynalite.log.tmp" && break; sleep 0.1; done
  cat "$WORK/dynalite.log.tmp" >>"$WORK/dynalite.log"
  grep -q ready "$WORK/dynalite.log.tmp" || { log "dynalite did not start"; cat "$WORK/dynalite.log.tmp" >&2; exit 1; }
  log "dynalite pid $DYNAMO listening on $DYNAMO_PORT after $(( $(date +%s%3N) - t0 )) ms (data in $DATA)"
}
start_dynamo

# --- the service -------------------------------------------------------------------------------------------------
QUARKUS_HTTP_PORT=$PORT QUARKUS_MANAGEMENT_PORT=$MGMT_PORT \
QUARKUS_DATASOURCE_REACTIVE_URL=postgresql://127.0.0.1:$PGPORT/$DB \
QUARKUS_DYNAMODB_ENDPOINT_OVERRIDE=http://127.0.0.1:$DYNAMO_PORT \
QUARKUS_DYNAMODB_AWS_CREDENTIALS_TYPE=static \
QUARKUS_DYNAMODB_AWS_CREDENTIALS_STATIC_PROVIDER_ACCESS_KEY_ID=local \
QUARKUS_DYNAMODB_AWS_CREDENTIALS_STATIC_PROVIDER_SECRET_ACCESS_KEY=local \
TURNSTILE_RENTAL_CREATE_MISSING_TABLES=true \
TURNSTILE_RENTAL_RIDES_UNTIL_SERVICE=2000000000 \
TURNSTILE_BOOKING_TICKETING_ENABLED=false \
TURNSTILE_IDEMPOTENCY_CLEANUP_INTERVAL=off \
  java -jar target/quarkus-app/quarkus-run.jar >>"$WORK/app.log" 2>&1 &
APP=$!
T0=$SECONDS
for _ in $(seq 1 150); do curl -sf -m 1 http://127.0.0.1:$MGMT_PORT/q/health/ready >/dev/null && break; sleep 0.2; done
curl -sf -m 2 http://127.0.0.1:$MGMT_PORT/q/health/ready >/dev/null || { log "service not ready"; tail -30 "$WORK/app.log" >&2; exit 1; }
log "service pid $APP ready after $((SECONDS - T0)) s"
# staff acting for each client's customer (rent.mjs reads it too): per-customer attempt limits do not apply to staff
export TURNSTILE_TOKEN=$(node local/token.js --sub bench --roles staff --ttl 86400)

# --- results -----------------------------------------------------------------------------------------------------
declare -A FIG
ROWS=()
FAILED=0
figure() { # name value [ok|FAIL|-]
  FIG["$1"]="$2${3:+ $3}"
  ROWS+=("$1")
  if [ "${3:-}" = FAIL ]; then FAILED=1; fi
}
secs() { awk -v ms="$1" 'BEGIN { printf "%.1f", ms / 1000 }'; }
check() { # name value condition(0/1)
  if [ "$3" = 1 ]; then figure "$1" "$2" ok; else figure "$1" "$2" FAIL; fi
}

# --- the fleet: one bike per client at one station (b: the measured load, w: the warm-up) ------------------------
created=0
for i in $(seq 0 $((CLIENTS - 1))); do
  for kind in b w; do
    code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' -H "Authorization: Bearer $TURNSTILE_TOKEN" \
      -d "{\"bikeId\": \"$STATION-$kind$i\", \"station\": \"$STATION\"}" "$BASE/bikes")
    [ "$code" = 201 ] && [ $kind = b ] && created=$((created + 1))
  done
done
check "bikes created" "$created/$CLIENTS" "$([ $created = "$CLIENTS" ] && echo 1 || echo 0)"
if [ "$WARMUP" != 0 ]; then
  BASE=$BASE CLIENTS=$CLIENTS RUN=$RUN-w BIKE_PREFIX="$STATION-w" STATION=$STATION LOAD_S=$WARMUP OUT="$WORK/warmup" \
    node bench/faults/rent.mjs >"$WORK/warmup.log" 2>&1
  log "warm-up: $(cat "$WORK/warmup.log")"
fi

# Readiness, a probe started every 200 ms whatever the previous one is doing, as "millis code" lines
# (000 = no answer within 2 s)
poll_health() { # file
  while :; do
    ( echo "$(date +%s%3N) $(curl -s -o /dev/null -w '%{http_code}' -m 2 http://127.0.0.1:$MGMT_PORT/q/health/ready)" >>"$1" ) &
    sleep 0.2
  done
}

# For every bike of a kind (b, w): GET /bikes/{id}, rides against the client's confirmed rents (from summary file).
# Sets AVAIL to the number of AVAILABLE bikes.
bikes_check() { # summary kind figure-name
  local sum=$1 kind=$2 name=$3 ok=0 i id bike rides status rents total_rides=0 total_rents=0
  AVAIL=0
  for i in $(seq 0 $((CLIENTS - 1))); do
    id="$STATION-$kind$i"
    bike=$(curl -s -m 5 -H "Authorization: Bearer $TURNSTILE_TOKEN" "$BASE/bikes/$id")
    rides=$(echo "$bike" | jq -r '.ridesSinceService // "?"' 2>/dev/null || echo '?')
    status=$(echo "$bike" | jq -r '.status // "?"' 2>/dev/null || echo '?')
    rents=$(jq -r --arg id "$id" '.perBike[$id].confirmedRents // "?"' "$sum")
    echo "$id status=$status rides=$rides confirmedRents=$rents" >>"$WORK/bikes.txt"
    [ "$rides" = "$rents" ] && ok=$((ok + 1))
    [ "$status" = AVAILABLE ] && AVAIL=$((AVAIL + 1))
    [[ "$rides" =~ ^[0-9]+$ ]] && total_rides=$((total_rides + rides))
    [[ "$rents" =~ ^[0-9]+$ ]] && total_rents=$((total_rents + rents))
  done
  check "$name" "$ok/$CLIENTS (rides $total_rides, rents $total_rents)" "$([ $ok = "$CLIENTS" ] && echo 1 || echo 0)"
  [ $ok = "$CLIENTS" ] || grep -- "-$kind[0-9]* " "$WORK/bikes.txt" \
    | awk '{ split($3, a, "="); split($4, b, "="); if (a[2] != b[2]) print "  mismatch: " $0 }' | head -10 >&2
}

# --- the load and the fault --------------------------------------------------------------------------------------
: >"$WORK/health.txt"
log_from=$(wc -l <"$WORK/app.log")
poll_health "$WORK/health.txt" &
HEALTH=$!
BASE=$BASE CLIENTS=$CLIENTS RUN=$RUN BIKE_PREFIX="$STATION-b" STATION=$STATION STOP_FILE="$WORK/stop" \
  LOAD_S=$((FAULT_AFTER + DOWN + AFTER + 30)) OUT="$WORK/rent" node bench/faults/rent.mjs >"$WORK/rent.log" 2>&1 &
LOAD=$!
LOAD_T0=$(date +%s%3N)
sleep "$FAULT_AFTER"
log "kill -9 of dynalite (pid $DYNAMO) mid-load, down for ${DOWN} s"
KILL_EPOCH=$(date +%s%3N)
KILL_MS=$(( KILL_EPOCH - LOAD_T0 ))
kill -9 "$DYNAMO"; wait "$DYNAMO" 2>/dev/null; DYNAMO=
sleep "$DOWN"
RESTART_EPOCH=$(date +%s%3N)   # the new dynalite's spawn
RESTART_MS=$(( RESTART_EPOCH - LOAD_T0 ))
start_dynamo
sleep "$AFTER"
touch "$WORK/stop"
log "load told to stop (clients finish their cycle)"
wait "$LOAD"; LOAD=
sleep 1   # the last probes
stop_pid "$HEALTH"; HEALTH=
sleep 2
sort -n -o "$WORK/health.txt" "$WORK/health.txt"
cat "$WORK/rent.log" >&2
R="$WORK/rent.json"
if [ ! -f "$R" ]; then
  log "the load client wrote no summary"; figure "load client" missing FAIL
else
  # client-side figures
  figure "load seconds" "$(jq -r '.elapsedMs / 1000' "$R") (kill at $(secs $KILL_MS) s, restart at $(secs $RESTART_MS) s)"
  figure "requests" "$(jq -r .requests "$R")"
  figure "200s before kill / down / after" "$(jq -r --argjson k "$KILL_EPOCH" --argjson r "$RESTART_EPOCH" \
    '[.okByMs[] + .startEpochMs] | "\(map(select(. < $k)) | length) / \(map(select(. >= $k and . < $r)) | length) / \(map(select(. >= $r)) | length)"' "$R")"
  figure "cycles (rent+return)" "$(jq -r .cycles "$R")"
  figure "200 rent / return" "$(jq -r '"\(.rent200) / \(.return200)"' "$R")"
  figure "200 replayed (same key)" "$(jq -r .replayed "$R")"
  figure "200 after a retry" "$(jq -r .s200AfterRetry "$R")"
  n503=$(jq -r .s503 "$R"); n503ra=$(jq -r .s503WithRetryAfter "$R")
  figure "503" "$n503 $(jq -c .s503Reasons "$R")"
  check "503 with Retry-After" "$n503ra/$n503" "$([ "$n503" = "$n503ra" ] && echo 1 || echo 0)"
  [ "$n503" != 0 ] && figure "503 window" "$(jq -r '"\(.first503Ms/1000)-\(.last503Ms/1000) s into the load"' "$R")"
  figure "409 IDEMPOTENCY_IN_PROGRESS" "$(jq -r '"\(.inProgress) (Retry-After on \(.inProgressWithRetryAfter))"' "$R")"
  other409=$(jq -r '[.s409 | to_entries[] | "\(.key)=\(.value)"] | join(",")' "$R")
  check "409 other" "${other409:-0}" "$([ -z "$other409" ] && echo 1 || echo 0)"
  nfalse=$(jq -r .falseConflicts "$R")
  check "false 409 on a retry" "$nfalse" "$([ "$nfalse" = 0 ] && echo 1 || echo 0)"
  [ "$nfalse" != 0 ] && jq -r '.falseConflictSamples[] | "  false 409: \(.)"' "$R" >&2
  n500=$(jq -r .s500 "$R")
  check "500" "$n500" "$([ "$n500" = 0 ] && echo 1 || echo 0)"
  other=$(jq -c .otherStatus "$R")
  check "other statuses" "$other" "$([ "$other" = "{}" ] && echo 1 || echo 0)"
  [ "$other" != "{}" ] && jq -r '.otherSamples[] | "  other status: \(.)"' "$R" >&2
  figure "network errors" "$(jq -r '"\(.network) \(.networkCodes | tostring)"' "$R")"
  nunres=$(jq -r .unresolved "$R")
  check "unresolved operations" "$nunres" "$([ "$nunres" = 0 ] && echo 1 || echo 0)"
  nmis=$(jq -r .ridesAnswerMismatch "$R")
  check "rent answers: rides = rents so far" "$((($(jq -r .rent200 "$R") - nmis)))/$(jq -r .rent200 "$R")" "$([ "$nmis" = 0 ] && echo 1 || echo 0)"
  [ "$nmis" != 0 ] && jq -r '.ridesAnswerSamples[] | "  rides in answer: \(.)"' "$R" >&2
  if [ "$n500" != 0 ]; then   # the evidence: what the clients got and what the service logged
    jq -r '.samples500[] | "  500 seen: \(.)"' "$R" >&2
  fi

  # server-side: every bike AVAILABLE, rides == confirmed rents
  bikes_check "$R" b "bikes with rides = confirmed rents"
  check "bikes AVAILABLE" "$AVAIL/$CLIENTS" "$([ $AVAIL = "$CLIENTS" ] && echo 1 || echo 0)"
  # the warm-up bikes were last written before the kill: their rides come from dynalite's data on disk
  [ "$WARMUP" != 0 ] && bikes_check "$WORK/warmup.json" w "warm-up bikes: rides kept (disk)"
fi

# readiness: DOWN (503 or no answer) after the kill, then UP (200) again, by itself
kill_at=$KILL_EPOCH
probes="503 x$(awk '$2 == 503' "$WORK/health.txt" | wc -l), no answer x$(awk '$2 == "000"' "$WORK/health.txt" | wc -l), 200 x$(awk '$2 == 200' "$WORK/health.txt" | wc -l)"
figure "ready probes" "$probes"
first_down=$(awk -v k=$kill_at '$1 >= k && $2 == 503 { print $1; exit }' "$WORK/health.txt")
up_again=
[ -n "$first_down" ] && up_again=$(awk -v d="$first_down" '$1 > d && $2 == 200 { print $1; exit }' "$WORK/health.txt")
check "ready went DOWN (503)" "$([ -n "$first_down" ] && echo "yes, $(( first_down - kill_at )) ms after the kill" || echo no)" \
  "$([ -n "$first_down" ] && echo 1 || echo 0)"
ready_end=$(curl -s -o /dev/null -w '%{http_code}' -m 3 http://127.0.0.1:$MGMT_PORT/q/health/ready)
check "ready back UP (200)" "$([ -n "$up_again" ] && echo "yes, $(( up_again - RESTART_EPOCH )) ms after the restart (spawn); now $ready_end" || echo "no; now $ready_end")" \
  "$([ -n "$up_again" ] && [ "$ready_end" = 200 ] && echo 1 || echo 0)"

# the service's log: errors and 500s (the mapper logs an unexpected failure)
errors=$(tail -n +"$((log_from + 1))" "$WORK/app.log" | grep -c ' ERROR ')
unexpected=$(tail -n +"$((log_from + 1))" "$WORK/app.log" | grep -c 'Unexpected failure')
check "app log: unexpected failures" "$unexpected (ERROR lines: $errors)" "$([ "$unexpected" = 0 ] && echo 1 || echo 0)"
if [ "$errors" != 0 ]; then
  tail -n +"$((log_from + 1))" "$WORK/app.log" | grep ' ERROR ' | cut -c1-300 | sort | uniq -c | sort -rn | head -5 \
    | sed 's/^/  app log: /' >&2
fi

# --- summary -----------------------------------------------------------------------------------------------------
{
  echo
  echo "# rental faults run $RUN: $CLIENTS clients, one bike each, rent -> return with Idempotency-Key (after ${WARMUP} s warm-up)"
  echo "# dynalite (--path $DATA) kill -9 ${FAULT_AFTER} s into the load, down ${DOWN} s, restarted; load ${AFTER} s more"
  printf '%-36s | %s\n' figure value
  printf '%-36s-+-%s\n' "$(printf '%.0s-' {1..36})" "$(printf '%.0s-' {1..60})"
  for r in "${ROWS[@]}"; do
    printf '%-36s | %s\n' "$r" "${FIG["$r"]}"
  done
  echo
  echo "# $((SECONDS - T0)) s after the service started; logs in $WORK"
} | tee "$WORK/summary.txt"
if [ $FAILED = 1 ]; then echo "RESULT: FAIL"; exit 1; fi
echo "RESULT: OK"
