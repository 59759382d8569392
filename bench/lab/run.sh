#!/usr/bin/env bash
# The contention lab: points bench/lab/Lab.java at a running Turnstile and its stores, then draws the report.
# Usage (from anywhere in the repository):
#   bench/lab/run.sh --url https://turnstile.example.com --management http://turnstile-mgmt:9000 \
#     --pg postgresql://user:pass@db.example.com:5432/turnstile --dynamo https://dynamodb.eu-west-1.amazonaws.com
# Every option can also come from the environment:
#   TURNSTILE_URL, TURNSTILE_MANAGEMENT_URL, TURNSTILE_TOKEN (a staff bearer token; without one a dev token is minted
#   with local/token.js, which only a server trusting local/dev-keys accepts), LAB_PG_URL (the PostgreSQL the server
#   uses: pgbench runs the booking transaction there), LAB_DYNAMO_ENDPOINT (the DynamoDB the server uses: the SDK
#   baseline writes bikes into its turnstile-bikes table; AWS credentials from the default chain when AWS_ACCESS_KEY_ID
#   is set, else dummy keys for a local stand-in), LAB_OUT (default target/lab-<time>), LAB_CONCURRENCY ("1,8,32,64,128"),
#   LAB_RATES ("50%,90%,120%": open-loop arrival rates, per second or as a share of the
#   best closed-loop goodput of the same scenario in this run), LAB_SECONDS (5 per point), LAB_WARMUP (1), LAB_SCENARIOS
#   ("flash,sellout,bikes,baseline,open"), LAB_STRATEGIES (all seven), LAB_SELLOUT_SEATS (300), LAB_FOCUS (the client count
#   of the "Which strategy?" table: 64 when swept, else the largest).
# Writes results.csv, report.html (inline SVG), report.md, which-strategy.md and, with chromium, report.png.
# The lab creates fares named lab-<run>-* and bikes named lab-<run>-*: point it at a test deployment, not production.
set -euo pipefail
cd "$(dirname "$0")/../.."

URL=${TURNSTILE_URL:-}; MGMT=${TURNSTILE_MANAGEMENT_URL:-}; PG=${LAB_PG_URL:-}; DYNAMO=${LAB_DYNAMO_ENDPOINT:-}
OUT=${LAB_OUT:-target/lab-$(date +%Y%m%d-%H%M%S)}
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --url) URL=$2 ;;
    --management) MGMT=$2 ;;
    --token) TURNSTILE_TOKEN=$2 ;;
    --pg) PG=$2 ;;
    --dynamo) DYNAMO=$2 ;;
    --out) OUT=$2 ;;
    --*) EXTRA+=("$1" "$2") ;;
    *) echo "unknown argument $1 (see the head of $0)" >&2; exit 2 ;;
  esac
  shift 2
done
[ -n "$URL" ] || { echo "no Turnstile URL: --url or TURNSTILE_URL (see the head of $0)" >&2; exit 2; }
if [ -z "${TURNSTILE_TOKEN:-}" ]; then
  TURNSTILE_TOKEN=$(node local/token.js --sub lab --roles staff --ttl 86400)
fi
export TURNSTILE_TOKEN   # bench/rental/Bench.java's socket client reads it

# The lab compiles against the packaged app's libraries: the AWS SDK and HdrHistogram (via Micrometer) are there.
[ -f target/quarkus-app/quarkus-run.jar ] || ./mvnw -q -B package -DskipTests
CP='target/quarkus-app/lib/main/*'
mkdir -p target/lab-classes "$OUT"
OUT=$(cd "$OUT" && pwd)
javac -nowarn -d target/lab-classes -cp "$CP" bench/lab/Lab.java bench/rental/Bench.java
if [ -n "$PG" ] && ! command -v pgbench >/dev/null; then
  echo "pgbench is missing (Debian: apt-get install postgresql-client); the PostgreSQL baseline is skipped" >&2; PG=
fi

echo "date=$(date -u +%Y-%m-%dT%H:%MZ) host=$(hostname) cpus=$(nproc) url=$URL java=$(java -version 2>&1 | head -1 | tr -d '"')" \
  "${LAB_META:-}" > "$OUT/meta.txt"
ARGS=(--url "$URL" --token "$TURNSTILE_TOKEN" --out "$OUT" --concurrency "${LAB_CONCURRENCY:-1,8,32,64,128}"
  --rates "${LAB_RATES:-50%,90%,120%}" --seconds "${LAB_SECONDS:-5}" --warmup "${LAB_WARMUP:-1}"
  --scenarios "${LAB_SCENARIOS:-flash,sellout,bikes,baseline,open}" --strategies "${LAB_STRATEGIES:-optimistic,pessimistic,nowait,atomic,serializable,sharded,batched}"
  --sellout-seats "${LAB_SELLOUT_SEATS:-300}")
[ -z "$MGMT" ] || ARGS+=(--management "$MGMT")
[ -z "$PG" ] || ARGS+=(--pg "$PG")
[ -z "$DYNAMO" ] || ARGS+=(--dynamo "$DYNAMO")
# The SDK's jars bring SLF4J bindings without a provider on this class path: drop those start-up warnings.
java -cp "target/lab-classes:$CP" Lab "${ARGS[@]}" "${EXTRA[@]}" 2> >(grep -v 'SLF4J' >&2) | tee "$OUT/lab.log"

python3 bench/lab/report.py "$OUT" ${LAB_FOCUS:+--focus "$LAB_FOCUS"} | tee "$OUT/which-strategy.md"
if command -v chromium >/dev/null; then
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --screenshot="$OUT/report.png" \
    --window-size=1400,3000 "file://$OUT/report.html" >/dev/null 2>&1 || echo "chromium screenshot failed" >&2
fi
echo "# report: $OUT/report.html"
