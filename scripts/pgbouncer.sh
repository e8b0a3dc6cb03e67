#!/usr/bin/env bash
# Starts a PgBouncer in transaction pooling mode in front of the tests' PostgreSQL, and prints its
# URL (the database of SQLINBOX_PG_URL, through the pooler) as the last line of stdout:
#   bash scripts/pgbouncer.sh [start]   # start it unless it already runs on the port (idempotent)
#   bash scripts/pgbouncer.sh stop      # stop the one this script started on the port
# The port is SQLINBOX_PGBOUNCER_PORT (default 6432); the server behind it is the host and port of
# SQLINBOX_PG_URL (default 127.0.0.1:5432), reached as the client's own user without a password
# (trust), and the pooler trusts its clients too: a test set-up, never a production one. Config,
# pid file and log live in ${TMPDIR:-/tmp}/sqlinbox-pgbouncer-<port>. PgBouncer refuses to run as
# root, so under root it runs as the `postgres` user. It needs Debian's `pgbouncer` package
# (`apt-get install -y pgbouncer`): the script fails without it, it never installs anything.
set -uo pipefail

action="${1:-start}"
port="${SQLINBOX_PGBOUNCER_PORT:-6432}"
pg_url="${SQLINBOX_PG_URL:-postgres://postgres@127.0.0.1:5432/test}"
dir="${TMPDIR:-/tmp}/sqlinbox-pgbouncer-$port"
[[ "$port" =~ ^[0-9]+$ ]] || { echo "pgbouncer.sh: not a port: $port" >&2; exit 1; }

# host, port and database of the upstream URL (postgres://user@host:port/db?...)
rest="${pg_url#*://}"
rest="${rest#*@}"
hostport="${rest%%/*}"
db="${rest#*/}"
db="${db%%\?*}"
pg_host="${hostport%%:*}"
pg_port="${hostport##*:}"
[ "$pg_port" = "$hostport" ] && pg_port=5432
[[ "$db" =~ ^[A-Za-z0-9_]+$ ]] || { echo "pgbouncer.sh: not a database name: $db" >&2; exit 1; }
url="postgres://postgres@127.0.0.1:$port/$db"

# Whether a PgBouncer answers on the port: its admin console knows SHOW VERSION, PostgreSQL does not.
answers() { psql -h 127.0.0.1 -p "$port" -U postgres -d pgbouncer -tAc 'SHOW VERSION' >/dev/null 2>&1; }
pid_of() { [ -s "$dir/pgbouncer.pid" ] && cat "$dir/pgbouncer.pid"; }

case "$action" in
  stop)
    pid="$(pid_of)" || { echo "pgbouncer.sh: none started on port $port" >&2; exit 0; }
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$dir/pgbouncer.pid"
    echo "pgbouncer.sh: stopped the PgBouncer on port $port" >&2
    exit 0
    ;;
  start) ;;
  *)
    echo "usage: scripts/pgbouncer.sh [start|stop]" >&2
    exit 2
    ;;
esac

if answers; then
  mode="$(psql -h 127.0.0.1 -p "$port" -U postgres -d pgbouncer -tA -F ' ' -c 'SHOW CONFIG' 2>/dev/null | awk '$1 == "pool_mode" { print $2 }')"
  if [ "$mode" != "transaction" ]; then
    echo "pgbouncer.sh: a PgBouncer on port $port pools in ${mode:-an unknown} mode, not transaction" >&2
    exit 1
  fi
  echo "$url"
  exit 0
fi
if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
  echo "pgbouncer.sh: port $port is taken by something that is not a PgBouncer: set SQLINBOX_PGBOUNCER_PORT" >&2
  exit 1
fi

bin="$(command -v pgbouncer || true)"
[ -z "$bin" ] && [ -x /usr/sbin/pgbouncer ] && bin=/usr/sbin/pgbouncer
if [ -z "$bin" ]; then
  echo "pgbouncer.sh: pgbouncer is not installed (apt-get install -y pgbouncer)" >&2
  exit 1
fi

mkdir -p "$dir"
# A stale pid file from a PgBouncer that is gone would stop the new one from starting.
if pid="$(pid_of)" && ! kill -0 "$pid" 2>/dev/null; then rm -f "$dir/pgbouncer.pid"; fi
# trust still needs the user listed; the upstream sees the client's own user (postgres).
echo '"postgres" ""' >"$dir/userlist.txt"
cat >"$dir/pgbouncer.ini" <<EOF
[databases]
* = host=$pg_host port=$pg_port

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
admin_users = postgres
pool_mode = transaction
; Server connections per database and user: the row lock form holds one per delivery in work.
default_pool_size = 40
max_client_conn = 1000
; Idle server connections close soon: the PostgreSQL behind it is shared.
server_idle_timeout = 10
; After the server restarts, log in again within a second (default 15 s).
server_login_retry = 1
; The tests open and close thousands of connections: log errors and warnings only.
log_connections = 0
log_disconnections = 0
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
EOF

user_args=()
if [ "$(id -u)" = 0 ]; then
  chown -R postgres "$dir" || exit 1
  user_args=(-u postgres)
fi
# The daemon gets no descriptor beyond stdin, stdout and stderr: one it inherited would stay open
# for its whole life, and a caller run under `flock LOCK ..` (.ci/run under the machine's heavy
# lock) hands the lock's descriptor down, so a PgBouncer started there held that lock until it
# stopped.
no_inherited_fds() {
  local fd
  # No redirection on the loop: bash would keep stderr in a descriptor above 9 for its length,
  # the loop would close that copy, and stderr would stay /dev/null after it (every message lost).
  for fd in /proc/self/fd/*; do
    fd="${fd##*/}"
    if [ "$fd" -gt 2 ] && [ "$fd" != 255 ]; then eval "exec $fd>&-"; fi
  done
  return 0
}
(no_inherited_fds && exec "$bin" -d "${user_args[@]}" "$dir/pgbouncer.ini") >&2 || {
  echo "pgbouncer.sh: pgbouncer did not start; its log:" >&2
  tail -n 20 "$dir/pgbouncer.log" >&2 2>/dev/null
  exit 1
}
for _ in $(seq 1 50); do
  if answers; then
    echo "pgbouncer.sh: PgBouncer (transaction pooling) on 127.0.0.1:$port in front of $pg_host:$pg_port" >&2
    echo "$url"
    exit 0
  fi
  sleep 0.1
done
echo "pgbouncer.sh: PgBouncer did not answer on port $port; its log:" >&2
tail -n 20 "$dir/pgbouncer.log" >&2 2>/dev/null
exit 1
