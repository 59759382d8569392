#!/usr/bin/env bash
# No-regression check between two commits on this machine: builds both in temporary worktrees, then runs
# bench/booking/run.sh and bench/rental/run.sh of each commit, interleaved (old, new, old, new...), so that both see
# the same machine weather. Compare the best round of each (load on a shared machine only ever slows a run down) and
# each booking round against its own pgbench line.
# Usage (from the repository root): bench/compare-commits.sh OLD NEW [rounds=4]
# Output: target/compare-<old>-<new>/{booking,rental}-{old,new}-N.txt and summary.txt
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=$(git rev-parse --short "${1:?usage: bench/compare-commits.sh OLD NEW [rounds]}")
NEW=$(git rev-parse --short "${2:?usage: bench/compare-commits.sh OLD NEW [rounds]}")
ROUNDS=${3:-4}
OUT=$PWD/target/compare-$OLD-$NEW
WORK=$(mktemp -d)
trap 'git worktree remove --force "$WORK/old" 2>/dev/null; git worktree remove --force "$WORK/new" 2>/dev/null; rm -rf "$WORK"' EXIT
mkdir -p "$OUT"
[ -d node_modules/dynalite ] || npm ci --no-audit --no-fund >/dev/null
for v in old new; do
  commit=$OLD; [ $v = new ] && commit=$NEW
  git worktree add -q --detach "$WORK/$v" "$commit"
  ln -s "$PWD/node_modules" "$WORK/$v/node_modules"
  (cd "$WORK/$v" && ./mvnw -q -o -B package -DskipTests) > "$OUT/build-$v.log" 2>&1
done
for round in $(seq 1 "$ROUNDS"); do
  for v in old new; do
    # each commit migrates the benchmark database its own way: start from none
    psql -U postgres -h 127.0.0.1 -qc "DROP DATABASE IF EXISTS turnstile_bench WITH (FORCE)"
    (cd "$WORK/$v" && SKIP_BUILD=1 SKIP_GATES=1 SKIP_PGBOUNCER=1 PGBENCH_CLIENTS="1 2 4 8" bash bench/booking/run.sh) \
      > "$OUT/booking-$v-$round.txt" 2>&1
    (cd "$WORK/$v" && bash bench/rental/run.sh 64 15 5) > "$OUT/rental-$v-$round.txt" 2>&1
  done
done
{
  echo "# $OLD (old) vs $NEW (new), $ROUNDS interleaved rounds, $(date -u +%FT%TZ), $(nproc) cores"
  for v in old new; do
    for round in $(seq 1 "$ROUNDS"); do
      printf 'booking %s-%s ' $v $round
      grep -h 'strategy=\|-best' "$OUT/booking-$v-$round.txt" | sed -E 's/.*strategy=([a-z]+).*"requests":([0-9]+).*/\1=\2/;
        s/.*-best script=([a-z]+) clients=[0-9]+ tps=([0-9]+).*/pgbench-\1=\2/' | tr '\n' ' '
      echo
    done
  done
  for v in old new; do
    for round in $(seq 1 "$ROUNDS"); do
      echo "rental $v-$round $(grep -h '^RESULT' "$OUT/rental-$v-$round.txt" | sed 's/^RESULT //' | tr '\n' ' ')"
    done
  done
} | tee "$OUT/summary.txt"
