#!/usr/bin/env bash
# Cold start and footprint of the packaged app, with its baselines started in the same run (the machine is shared, so
# only figures of one run compare): the raw JVM (`java -version`, to exit) and an empty Quarkus app (bench/startup/
# empty-app: Quarkus REST and health, no code), then Turnstile on JDK 25 with the AOT cache that Dockerfile.jvm trains,
# on JDK 25 without it, and on JDK 17 (the fast-jar, no cache); the native binary when target/*-runner exists (with
# SKIP_BUILD=1). Run it alone on the machine:
#
#   flock /tmp/turnstile-bench.lock bench/startup/run.sh
#
# Environment: RUNS (starts per variant, default 5), PORT (default 18083; the management port is PORT+1), JDK25 (default
# /usr/lib/jvm/temurin-25-jdk-amd64), JVM_OPTS (default: the JVM as Dockerfile.jvm runs it in a pod with a 512 MiB
# memory limit: SerialGC, heap 20 % of the limit; MALLOC_ARENA_MAX=2 as well), SKIP_BUILD=1 to measure what target/ holds,
# LOAD_SECONDS, LOAD_CLIENTS.
# Needs PostgreSQL on 127.0.0.1:5432 (user postgres, trust) and Node.js 20+ (dynalite from node_modules).
#
# The app runs with the prod profile, as in production: it neither creates tables nor migrates. This script does
# both first, like a deployment would: the Flyway migrations (local/migrate.sh, the copy's own jar) into the database
# turnstile_startup, and the DynamoDB tables into a dynalite it starts for the run (startup.mjs tables).
#
# The AOT cache comes from the training step of src/main/docker/Dockerfile.jvm itself (the RUN between its
# aot-training markers), run here on the host's JDK 25 against the aot-jar, with run-java.sh replaced by the same java
# command the measured runs use. So the measured cache is the one an image build trains (no stores, a few requests).
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

MIGRATIONS_FROM=$SRC . bench/startup/stores.sh

. bench/startup/app-env.sh

# What Dockerfile.jvm's GC_CONTAINER_OPTIONS, JAVA_MAX_MEM_RATIO and MALLOC_ARENA_MAX make of the pod's 512 MiB. A
# MaxRAM of 512m alone did not select SerialGC on the 2-core, 24 GB machine of 2026-12-06: the JVM picked G1, whose
# own structures took 39 MiB of the RSS (NMT), and the earlier runs, which relied on it, probably measured that.
JVM_OPTS=${JVM_OPTS:--XX:MaxRAM=512m -XX:MaxRAMPercentage=20 -XX:+UseSerialGC}
export MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2}
read -r -a JVM_FLAGS <<< "$JVM_OPTS"
echo "JVM flags: $JVM_OPTS"
# The collector the JVM ergonomics really chose with these flags, recorded with every run.
collector() { "$1" "${JVM_FLAGS[@]}" -XX:+PrintFlagsFinal -version 2>/dev/null | awk '/ Use(Serial|Parallel|G1|Z|Shenandoah)GC .*= true/ { print $2 }'; }
echo "collector: JDK 17 $(collector java)${JDK25:+, JDK 25 $( [ -x "$JDK25/bin/java" ] && collector "$JDK25/bin/java")}"

measure() { node "$DRIVER" measure "$1" "$RUNS" "$PORT" -- "${@:2}"; }

echo "| variant | first HTTP ms | ready ms | CPU to ready ms | first rent ms | first booking ms | RSS after start MiB | RSS after load MiB | runs |"
echo "|---|---|---|---|---|---|---|---|---|"

# Baselines: the JVM alone, and an empty Quarkus app on the same JVM settings.
node "$DRIVER" exits "JDK 17 java -version (to exit)" "$RUNS" -- java "${JVM_FLAGS[@]}" -version
[ -x "$JDK25/bin/java" ] && node "$DRIVER" exits "JDK 25 java -version (to exit)" "$RUNS" -- "$JDK25/bin/java" "${JVM_FLAGS[@]}" -version
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  (cd "$SRC" && ./mvnw -q -B -f bench/startup/empty-app/pom.xml package -DskipTests) >"$WORK/build-empty.log" 2>&1 \
    || { tail -40 "$WORK/build-empty.log"; exit 1; }
fi
measure "empty Quarkus app, JDK 17" java "${JVM_FLAGS[@]}" -jar "$SRC/bench/startup/empty-app/target/quarkus-app/quarkus-run.jar"

# The options Dockerfile.jvm gives every start (its JAVA_OPTS_APPEND), so that the training and the runs match.
IMAGE_OPTS="-Dvertx.disableURIValidation=true -Djava.util.logging.manager=org.jboss.logmanager.LogManager -XX:+ExitOnOutOfMemoryError"
read -r -a IMAGE_FLAGS <<< "$IMAGE_OPTS"

# The AOT cache is only valid for the JVM and the class path it was trained with, so the JDK 25 variants run from
# target/ right after their own build, before the JDK 17 build replaces it.
if [ -x "$JDK25/bin/java" ]; then
  APP=$SRC/target/quarkus-app
  if [ "${SKIP_BUILD:-0}" != 1 ]; then
    (cd "$SRC" && JAVA_HOME=$JDK25 ./mvnw -q -B package -DskipTests -Dquarkus.package.jar.type=aot-jar) \
      >"$WORK/build-aot.log" 2>&1 || { tail -40 "$WORK/build-aot.log"; exit 1; }
    sed -n '/aot-training:begin/,/aot-training:end/p' "$SRC/src/main/docker/Dockerfile.jvm" | sed '1d;$d;s/^RUN //' \
      > "$WORK/training.sh"
    # run-java.sh's stand-in: the measured runs' java command, with the options the training adds.
    printf '%s\n' "exec '$JDK25/bin/java' $JVM_OPTS $IMAGE_OPTS \$JAVA_OPTS_APPEND -jar '$APP/quarkus-run.jar'" \
      > "$WORK/launch.sh"
    echo "training (Dockerfile.jvm's RUN): $(date -u +%H:%M:%S)"
    (cd "$WORK" && APP_DIR=$APP JAVA=$JDK25/bin/java TRAINING_LAUNCH="bash $WORK/launch.sh" TRAINING_LOG=$WORK/training.log \
      QUARKUS_HTTP_PORT=$((PORT + 2)) QUARKUS_MANAGEMENT_PORT=$((PORT + 3)) bash "$WORK/training.sh") \
      || { tail -40 "$WORK/training.log"; exit 1; }
    echo "training done: $(date -u +%H:%M:%S), $(du -m "$APP/app.aot" | cut -f1) MiB cache"
  fi
  if [ -f "$APP/app.aot" ]; then
    # AOTMode=on: fail rather than silently start without the cache (it refuses a moved class path, too).
    measure "Turnstile, JDK 25 + AOT cache" "$JDK25/bin/java" "${JVM_FLAGS[@]}" "${IMAGE_FLAGS[@]}" \
      "@$APP/jvm-start.args" -XX:AOTMode=on -jar "$APP/quarkus-run.jar"
    measure "Turnstile, JDK 25 (aot-jar, no cache)" "$JDK25/bin/java" "${JVM_FLAGS[@]}" "${IMAGE_FLAGS[@]}" \
      -jar "$APP/quarkus-run.jar"
  else
    echo "(no $APP/app.aot: JDK 25 AOT variants skipped)"
  fi
fi

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  (cd "$SRC" && ./mvnw -q -B package -DskipTests) >"$WORK/build-jvm.log" 2>&1 || { tail -40 "$WORK/build-jvm.log"; exit 1; }
fi
measure "Turnstile, JDK 17 (fast-jar)" java "${JVM_FLAGS[@]}" "${IMAGE_FLAGS[@]}" -jar "$SRC/target/quarkus-app/quarkus-run.jar"

NATIVE=$(ls "$SRC"/target/*-runner 2>/dev/null | head -1 || true)
if [ -n "$NATIVE" ] && [ -x "$NATIVE" ]; then
  measure "native" "$NATIVE"
else
  echo "| native | n/a | n/a (no target/*-runner: build on a GraalVM/Mandrel or container machine, see docs/ship.md) | | | | | | |"
fi
