#!/usr/bin/env bash
# Cold start and footprint of the packaged app: JDK 17 jar (plain, with AppCDS), JDK 25 jar (plain, with its AOT
# cache), and the native
# binary when target/*-runner exists (with SKIP_BUILD=1). Run it alone on the machine:
#
#   flock /tmp/turnstile-bench.lock bench/startup/run.sh
#
# Environment: RUNS (starts per variant, default 5), PORT (default 18083; the management port is PORT+1), JDK25 (default
# /usr/lib/jvm/temurin-25-jdk-amd64), JVM_OPTS (default: size the JVM as in a pod with a 512 MiB memory limit, see
# deploy/kubernetes; this 24 GB host would otherwise get a 6 GB G1 heap), SKIP_BUILD=1 to measure what target/ holds, LOAD_SECONDS, LOAD_CLIENTS.
# Needs PostgreSQL on 127.0.0.1:5432 (user postgres, trust) and Node.js 20+ (dynalite from node_modules).
#
# The app runs with the prod profile, as in production: it neither creates tables nor migrates. This script does
# both first, like a deployment would: the Flyway migrations (local/migrate.sh, the copy's own jar) into the database
# turnstile_startup, and the four DynamoDB tables into a dynalite it starts for the run (startup.mjs tables).
set -euo pipefail
cd "$(dirname "$0")/../.."
set -a; . local/dev-identity.env; set +a   # the packaged build does not start without identity settings
TURNSTILE_IDENTITY_PUBLIC_KEY_LOCATION=$PWD/$TURNSTILE_IDENTITY_PUBLIC_KEY_LOCATION   # some runs start in target/quarkus-app

RUNS=${RUNS:-5}
PORT=${PORT:-18083}
DB=turnstile_startup
JDK25=${JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}
DRIVER=bench/startup/startup.mjs
WORK=$(mktemp -d)
# Builds and runs happen in a copy of the working tree, so a build in the worktree during the run cannot swap jars
# under a running app. SKIP_BUILD=1 measures the worktree's own target/ instead (e.g. a native runner built there).
if [ "${SKIP_BUILD:-0}" = 1 ]; then
  SRC=$PWD
else
  SRC=$WORK/src
  mkdir -p "$SRC"
  tar --exclude=./target --exclude=./node_modules --exclude=./.git -cf - . | tar -xf - -C "$SRC"
  ln -s "$PWD/node_modules" "$SRC/node_modules"
fi

cleanup() {
  exec 3>&- 2>/dev/null || true   # dynalite exits when its stdin closes
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(uname -m); runs per variant: $RUNS"

psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE $DB"
(cd "$SRC" && bash local/migrate.sh "postgresql://127.0.0.1:5432/$DB" >/dev/null)

[ -d node_modules/dynalite ] || npm ci --no-audit --no-fund >/dev/null
mkfifo "$WORK/dynalite.in"
node local/dynalite.js < "$WORK/dynalite.in" > "$WORK/dynalite.out" &
exec 3> "$WORK/dynalite.in"
for _ in $(seq 100); do grep -q 'listening on port' "$WORK/dynalite.out" && break; sleep 0.1; done
DYNAMO_PORT=$(grep -o 'listening on port [0-9]*' "$WORK/dynalite.out" | grep -o '[0-9]*$')
node "$DRIVER" tables "$DYNAMO_PORT"

export QUARKUS_HTTP_PORT=$PORT
export QUARKUS_MANAGEMENT_PORT=$((PORT + 1))   # /q/health, which startup.mjs polls for readiness
# Every API request carries a staff token (startup.mjs): staff may act for the many customers and passengers of the
# load loops and are not rate limited.
BENCH_TOKEN=$(node local/token.js --sub bench --roles staff --ttl 86400)
export BENCH_TOKEN
export QUARKUS_DATASOURCE_REACTIVE_URL=postgresql://127.0.0.1:5432/$DB
export QUARKUS_DATASOURCE_USERNAME=postgres
export QUARKUS_DYNAMODB_ENDPOINT_OVERRIDE=http://127.0.0.1:$DYNAMO_PORT
export QUARKUS_DYNAMODB_AWS_CREDENTIALS_TYPE=static
export QUARKUS_DYNAMODB_AWS_CREDENTIALS_STATIC_PROVIDER_ACCESS_KEY_ID=local
export QUARKUS_DYNAMODB_AWS_CREDENTIALS_STATIC_PROVIDER_SECRET_ACCESS_KEY=local
export AWS_REGION=eu-west-1
# The load loops rent and return the same bike over and over and book one hot fare: without these, bikes reach
# their service limit (409 SERVICE_DUE) and hot-row conflicts run out of retries, which the "failed" column would
# count as if the service had failed.
export TURNSTILE_RENTAL_RIDES_UNTIL_SERVICE=2000000000
export TURNSTILE_BOOKING_DEFAULT_STRATEGY=atomic

JVM_OPTS=${JVM_OPTS:--XX:MaxRAM=512m -XX:MaxRAMPercentage=50}
read -r -a JVM_FLAGS <<< "$JVM_OPTS"
echo "JVM flags: $JVM_OPTS"

measure() { node "$DRIVER" measure "$1" "$RUNS" "$PORT" -- "${@:2}"; }

echo "| variant | first HTTP ms | ready ms | first rent ms | first booking ms | RSS after start MiB | RSS after load MiB | runs |"
echo "|---|---|---|---|---|---|---|---|"

# The AOT cache is only valid for the JVM and the class path it was trained with, so the JDK 25 variants run from
# target/ right after their own build, before the JDK 17 build replaces it.
if [ -x "$JDK25/bin/java" ]; then
  if [ "${SKIP_BUILD:-0}" != 1 ]; then
    # The @QuarkusIntegrationTest (PackagedAppIT) is the training run that records quarkus-app/app.aot.
    (cd "$SRC" && JAVA_HOME=$JDK25 ./mvnw -q -B verify -Dquarkus.package.jar.aot.enabled=true -DskipITs=false \
      -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false) >"$WORK/build-aot.log" 2>&1 \
      || { tail -40 "$WORK/build-aot.log"; exit 1; }
  fi
  if [ -f "$SRC/target/quarkus-app/app.aot" ]; then
    measure "JDK 25 (aot-jar, no cache)" "$JDK25/bin/java" "${JVM_FLAGS[@]}" -jar "$SRC/target/quarkus-app/quarkus-run.jar"
    # AOTMode=on: fail rather than silently start without the cache (it refuses a moved class path, too).
    measure "JDK 25 + AOT cache" "$JDK25/bin/java" "${JVM_FLAGS[@]}" -XX:AOTCache="$SRC/target/quarkus-app/app.aot" \
      -XX:AOTMode=on -jar "$SRC/target/quarkus-app/quarkus-run.jar"
  else
    echo "(no app.aot: JDK 25 AOT variants skipped)"
  fi
fi

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  # The same Quarkus property on JDK 17 builds an AppCDS archive instead, at build time (no training run).
  (cd "$SRC" && ./mvnw -q -B package -DskipTests -Dquarkus.package.jar.aot.enabled=true) >"$WORK/build-cds.log" 2>&1 \
    || { tail -40 "$WORK/build-cds.log"; exit 1; }
  if [ -f "$SRC/target/quarkus-app/app-cds.jsa" ]; then
    # The archive records the class path relative to quarkus-app/, so the JVM must start there (exec keeps the pid).
    measure "JDK 17 + AppCDS" bash -c "cd '$SRC/target/quarkus-app' && exec java $JVM_OPTS \
      -XX:SharedArchiveFile=app-cds.jsa -Xshare:on -jar quarkus-run.jar"
    # C1 only, as the SAM template sets for the JVM Lambda flavour.
    measure "JDK 17 + AppCDS, C1 only" bash -c "cd '$SRC/target/quarkus-app' && exec java $JVM_OPTS \
      -XX:TieredStopAtLevel=1 -XX:SharedArchiveFile=app-cds.jsa -Xshare:on -jar quarkus-run.jar"
  fi
  (cd "$SRC" && ./mvnw -q -B package -DskipTests) >"$WORK/build-jvm.log" 2>&1 || { tail -40 "$WORK/build-jvm.log"; exit 1; }
fi
measure "JDK 17 (fast-jar)" java "${JVM_FLAGS[@]}" -jar "$SRC/target/quarkus-app/quarkus-run.jar"
measure "JDK 17, host JVM defaults" java -jar "$SRC/target/quarkus-app/quarkus-run.jar"

NATIVE=$(ls "$SRC"/target/*-runner 2>/dev/null | head -1 || true)
if [ -n "$NATIVE" ] && [ -x "$NATIVE" ]; then
  measure "native" "$NATIVE"
else
  echo "| native | n/a | n/a (no target/*-runner: build on a GraalVM/Mandrel or container machine, see docs/ship.md) | | | | | |"
fi
