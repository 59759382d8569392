# Shared by bench/faults/booking.sh and rental.sh (sourced): the tools they need, stopping what they started, logging.

set -a; . local/dev-identity.env; set +a   # the packaged build does not start without identity settings
for tool in jq curl psql node; do
  command -v $tool >/dev/null || { apt-get update -qq && apt-get install -y -qq jq curl postgresql-client >/dev/null; break; }
done

stop_pid() { # pid: TERM, then KILL after 10 s
  local pid=$1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill "$pid" 2>/dev/null
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  return 0
}

log() { echo "[$(date +%T)] $*" >&2; }
