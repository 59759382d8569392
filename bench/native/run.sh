#!/usr/bin/env bash
# The native executable end to end, as one command (issue 12): build it, run the @QuarkusIntegrationTest suite
# (PackagedAppIT) against it, check that aws-crt's JNI library sits beside it, then measure its cold start and
# footprint the way bench/startup does for the JVM and print the rows of the README's "Cold start and footprint"
# table. Run it alone on a machine with GraalVM or Mandrel (native-image on PATH or in $GRAALVM_HOME/bin), or with a
# running Docker or Podman (Quarkus then builds inside its Mandrel builder image):
#
#   mkdir -p bench/native/results
#   flock /tmp/turnstile-bench.lock bench/native/run.sh | tee bench/native/results/$(date -u +%F)-$(hostname).txt
#
# Environment: RUNS (starts measured, default 5), PORT (default 18083; the management port is PORT+1),
# LOAD_SECONDS and LOAD_CLIENTS (the load after start, see bench/startup/startup.mjs), BUILDER=local|container
# (default: local when native-image is found, else container when a container engine answers), SKIP_BUILD=1 to
# measure the target/*-runner already built (the integration tests are then not run again).
# Needs PostgreSQL on 127.0.0.1:5432 (user postgres, trust) and Node.js 20+ (dynalite from node_modules), like
# bench/startup. Without a native toolchain it stops before doing anything: it never reports a figure it did not see.
set -euo pipefail
cd "$(dirname "$0")/../.."

fail() {
  echo "bench/native: $*" >&2
  exit 1
}

RUNS=${RUNS:-5}
PORT=${PORT:-18083}
DB=turnstile_native_bench   # its own, so it never races bench/startup's migrations
DRIVER=bench/startup/startup.mjs

native_image() {
  if [ -n "${GRAALVM_HOME:-}" ] && [ -x "$GRAALVM_HOME/bin/native-image" ]; then
    echo "$GRAALVM_HOME/bin/native-image"
  else
    command -v native-image || true
  fi
}

# A docker client without a daemon is common (CI images, this project's dev machine): only an engine that answers counts.
container_engine() {
  for engine in docker podman; do
    if command -v "$engine" >/dev/null && timeout 20 "$engine" info >/dev/null 2>&1; then
      echo "$engine"
      return
    fi
  done
}

RUNNER=""
if [ "${SKIP_BUILD:-0}" = 1 ]; then
  RUNNER=$(find target -maxdepth 1 -name '*-runner' -type f -perm -u+x 2>/dev/null | head -1 || true)
  [ -n "$RUNNER" ] || fail "SKIP_BUILD=1 but there is no executable target/*-runner"
  echo "== measuring the existing $RUNNER (integration tests not rerun)"
else
  BUILDER=${BUILDER:-}
  NATIVE_IMAGE=$(native_image)
  ENGINE=$(container_engine)
  if [ -z "$BUILDER" ]; then
    if [ -n "$NATIVE_IMAGE" ]; then BUILDER=local; elif [ -n "$ENGINE" ]; then BUILDER=container; fi
  fi
  case "$BUILDER" in
    local)
      [ -n "$NATIVE_IMAGE" ] || fail "BUILDER=local but no native-image (set GRAALVM_HOME or put GraalVM/Mandrel on PATH)"
      BUILD_FLAGS=()
      echo "== builder: $("$NATIVE_IMAGE" --version 2>&1 | head -1)"
      ;;
    container)
      [ -n "$ENGINE" ] || fail "BUILDER=container but neither docker nor podman answers ('docker info' fails)"
      BUILD_FLAGS=(-Dquarkus.native.container-build=true "-Dquarkus.native.container-runtime=$ENGINE")
      echo "== builder: the Mandrel builder image, run by $ENGINE"
      ;;
    *)
      fail "cannot build a native executable here: no native-image (GraalVM or Mandrel on PATH or in \$GRAALVM_HOME)" \
        "and no running docker or podman. Nothing was built or measured; the README keeps 'not measured' for native."
      ;;
  esac
fi

echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(uname -m), $(awk '/MemTotal/ { printf "%d GiB", $2 / 1048576 }' /proc/meminfo); runs: $RUNS"

psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1" >/dev/null || fail "no PostgreSQL on 127.0.0.1:5432 (user postgres)"
[ -d node_modules/dynalite ] || npm ci --no-audit --no-fund >/dev/null

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  # -Dnative turns failsafe on (pom profile "native"); -Dtest=none skips the JVM @QuarkusTests, which say nothing
  # about the binary. PackagedAppIT gets dynalite and a migrated test database from the test side.
  export _TEST_QUARKUS_DATASOURCE_REACTIVE_URL=${_TEST_QUARKUS_DATASOURCE_REACTIVE_URL:-postgresql://127.0.0.1:5432/turnstile_test_native}
  export QUARKUS_DATASOURCE_REACTIVE_URL=$_TEST_QUARKUS_DATASOURCE_REACTIVE_URL
  BUILD_LOG=$(mktemp)
  echo "== ./mvnw verify -Dnative ${BUILD_FLAGS[*]} (log: $BUILD_LOG)"
  ./mvnw -B verify -Dnative "${BUILD_FLAGS[@]}" -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false >"$BUILD_LOG" 2>&1 \
    || { tail -60 "$BUILD_LOG"; fail "native build or integration tests failed (full log: $BUILD_LOG)"; }
  grep -q '^type=native' target/quarkus-artifact.properties || fail "the build did not produce a native artefact"
  RUNNER=$(find target -maxdepth 1 -name '*-runner' -type f -perm -u+x | head -1)
  [ -n "$RUNNER" ] || fail "no executable target/*-runner after the build"
  SUMMARY=target/failsafe-reports/failsafe-summary.xml
  [ -f "$SUMMARY" ] || fail "no $SUMMARY: the integration tests did not run"
  COMPLETED=$(sed -n 's:.*<completed>\([0-9]*\)</completed>.*:\1:p' "$SUMMARY")
  [ "${COMPLETED:-0}" -gt 0 ] || fail "the integration test suite ran no test against the binary"
  echo "== integration tests against $RUNNER: $COMPLETED run, none failed"
fi

# The executable loads aws-crt's JNI library from its own directory (docs/ship.md); the native build leaves it there.
[ -f "$(dirname "$RUNNER")/libaws-crt-jni.so" ] || fail "no libaws-crt-jni.so beside $RUNNER: its first DynamoDB call would fail"
echo "== executable $(du -m "$RUNNER" | cut -f1) MiB, libaws-crt-jni.so $(du -m "$(dirname "$RUNNER")/libaws-crt-jni.so" | cut -f1) MiB"

# Backends as a deployment has them, as bench/startup/run.sh prepares them: migrated database, tables created, the
# app itself on the prod profile (no migration, no table creation at start).
# The packaged build does not start without identity settings (KEY=value lines, read from the repository root).
set -a
# shellcheck disable=SC1091
. local/dev-identity.env
set +a
TURNSTILE_IDENTITY_PUBLIC_KEY_LOCATION=$PWD/$TURNSTILE_IDENTITY_PUBLIC_KEY_LOCATION
WORK=$(mktemp -d)
cleanup() {
  exec 3>&- 2>/dev/null || true   # dynalite exits when its stdin closes
  rm -rf "$WORK"
}
trap cleanup EXIT

# shellcheck disable=SC1091
. bench/startup/stores.sh

# The driver polls these ports: an app of another run still listening there would answer in the binary's place.
for port in "$PORT" $((PORT + 1)); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then fail "port $port is in use (set PORT)"; fi
done
. bench/startup/app-env.sh   # the same settings as the JVM runs

# The driver prints one line per run, then a row with a "first HTTP" and a "runs" column that the README table
# leaves out: keep the run lines, and print the row in the README's columns (median, best run in brackets).
RESULT=$(node "$DRIVER" measure native "$RUNS" "$PORT" -- "$RUNNER" -Dvertx.disableURIValidation=true) \
  || fail "the native executable did not start or answer (its log: /tmp/turnstile-startup-native.log)"
grep -v '^|' <<<"$RESULT"
echo
echo "| variant | ready ms | first rent ms | first booking ms | RSS after start MiB | RSS after load MiB |"
echo "|---|---|---|---|---|---|"
awk -F'|' '/^\| native \|/ { printf "| native |%s|%s|%s|%s|%s|\n", $4, $5, $6, $7, $8 }' <<<"$RESULT"
