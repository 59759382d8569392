# Sourced by bench/startup/run.sh, bench/native/run.sh and bench/identity/run.sh: the stores as a deployment has
# them, for an app on the prod profile (which neither migrates nor creates tables). Needs DB (a database of the
# run's own), WORK (the run's scratch directory) and, optionally, MIGRATIONS_FROM (the tree whose Flyway scripts
# migrate it; default: this one). Leaves a dynalite reading fd 3 (it exits when the script closes fd 3), its
# DynamoDB tables created, and DYNAMO_PORT set. Run from the repository root.
psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE $DB"
(cd "${MIGRATIONS_FROM:-.}" && bash local/migrate.sh "postgresql://127.0.0.1:5432/$DB" >/dev/null)

[ -d node_modules/dynalite ] || npm ci --no-audit --no-fund >/dev/null
mkfifo "$WORK/dynalite.in"
node local/dynalite.js < "$WORK/dynalite.in" > "$WORK/dynalite.out" &
exec 3> "$WORK/dynalite.in"
for _ in $(seq 100); do grep -q 'listening on port' "$WORK/dynalite.out" && break; sleep 0.1; done
DYNAMO_PORT=$(grep -o 'listening on port [0-9]*' "$WORK/dynalite.out" | grep -o '[0-9]*$') \
  || { echo "dynalite did not start: $(cat "$WORK/dynalite.out")" >&2; exit 1; }
node bench/startup/startup.mjs tables "$DYNAMO_PORT"
