#!/usr/bin/env bash
# PgBouncer in transaction pooling mode on 127.0.0.1:6432 in front of the local PostgreSQL (127.0.0.1:5432), the way
# production puts a pooler between many pods or Lambdas and the database. Used by `./mvnw verify -Ppgbouncer`
# (.ci/run) and bench/booking/run.sh.
#   bash local/pgbouncer.sh start|stop
# Trust authentication and a wildcard database entry: any database name is served by the PostgreSQL behind it.
# PGBOUNCER_PORT, PGBOUNCER_DIR and POSTGRES_PORT override the defaults.
set -euo pipefail

port="${PGBOUNCER_PORT:-6432}"
dir="${PGBOUNCER_DIR:-/tmp/turnstile-pgbouncer-$port}"
postgres_port="${POSTGRES_PORT:-5432}"

start() {
  if ! command -v pgbouncer >/dev/null && [ ! -x /usr/sbin/pgbouncer ]; then
    if [ "$(id -u)" = 0 ]; then
      apt-get install -y -q pgbouncer >/dev/null
    else
      echo "pgbouncer is not installed: sudo apt-get install pgbouncer" >&2
      exit 1
    fi
  fi
  local bin
  bin="$(command -v pgbouncer || echo /usr/sbin/pgbouncer)"
  if pg_isready -h 127.0.0.1 -p "$port" -q 2>/dev/null; then
    echo "pgbouncer: already answering on 127.0.0.1:$port"
    return
  fi
  mkdir -p "$dir"
  # trust still needs the user named in auth_file
  printf '"%s" ""\n' "${PGUSER:-postgres}" >"$dir/userlist.txt"
  cat >"$dir/pgbouncer.ini" <<EOF
[databases]
* = host=127.0.0.1 port=$postgres_port

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir = $dir
auth_type = trust
auth_file = $dir/userlist.txt
; SHOW CLIENTS on the admin console: BehindPgBouncerTest checks that the test run's connections are PgBouncer's
stats_users = ${PGUSER:-postgres}
pool_mode = transaction
default_pool_size = 20
max_client_conn = 2000
; JDBC and the Vert.x client send it at connect; PgBouncer 1.18 refuses unknown startup parameters
ignore_startup_parameters = extra_float_digits
; after a failed server login (the test database not created yet, on a fresh machine) PgBouncer waits this long
; before it tries again; the default 15 s outlasted the service's startup and failed the first run
server_login_retry = 1
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
EOF
  local user_flag=()
  # pgbouncer refuses to run as root
  if [ "$(id -u)" = 0 ]; then
    chown -R postgres "$dir"
    user_flag=(-u postgres)
  fi
  "$bin" -d "${user_flag[@]}" "$dir/pgbouncer.ini"
  for _ in $(seq 1 50); do
    pg_isready -h 127.0.0.1 -p "$port" -q && break
    sleep 0.1
  done
  pg_isready -h 127.0.0.1 -p "$port"
}

stop() {
  if [ -f "$dir/pgbouncer.pid" ]; then
    kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true
    for _ in $(seq 1 50); do
      [ -f "$dir/pgbouncer.pid" ] && kill -0 "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || break
      sleep 0.1
    done
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
