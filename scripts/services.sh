#!/usr/bin/env bash
# Starts PostgreSQL and MariaDB where they are down, waits until each answers, and makes sure the
# tests' database exists in both: `test`, or the one SQLINBOX_PG_URL / SQLINBOX_MYSQL_DATABASE name.
# Used by .ci/run and by anyone running the tests on a new machine.
set -uo pipefail

pg_db="${SQLINBOX_PG_URL:-postgres://postgres@127.0.0.1:5432/test}"
pg_db="${pg_db##*/}"
pg_db="${pg_db%%\?*}"
my_db="${SQLINBOX_MYSQL_DATABASE:-test}"
for name in "$pg_db" "$my_db"; do
  [[ "$name" =~ ^[A-Za-z0-9_]+$ ]] || { echo "not a database name: $name" >&2; exit 1; }
done

# A server started here gets no descriptor beyond stdin, stdout and stderr: a caller run under
# `flock LOCK ..` (.ci/run under the machine's heavy lock) hands the lock's descriptor down, and a
# server that inherited it would hold the lock for as long as it runs.
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

wait_for() { # name, command
  for _ in $(seq 1 60); do
    if eval "$2" >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  echo "$1 did not come up" >&2
  return 1
}

if ! pg_isready -h 127.0.0.1 -p 5432 >/dev/null 2>&1; then
  echo "starting PostgreSQL"
  (no_inherited_fds && exec pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start) || true
fi
wait_for PostgreSQL "pg_isready -h 127.0.0.1 -p 5432" || exit 1
if ! psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='$pg_db'" | grep -q 1; then
  psql -h 127.0.0.1 -U postgres -d postgres -c "CREATE DATABASE \"$pg_db\"" || exit 1
fi

if ! mariadb-admin -h 127.0.0.1 -uroot ping >/dev/null 2>&1; then
  echo "starting MariaDB"
  # --pidfile: the machine's server is the one whose pid is in its pid file. Without it, any other
  # mariadbd running (the Galera nodes packages/clusters starts) counts as "already running" and
  # nothing starts.
  (no_inherited_fds && exec start-stop-daemon --start --oknodo --background \
    --pidfile /run/mysqld/mysqld.pid --exec /usr/sbin/mariadbd) || true
fi
wait_for MariaDB "mariadb-admin -h 127.0.0.1 -uroot ping" || exit 1
mariadb -h 127.0.0.1 -uroot -e "CREATE DATABASE IF NOT EXISTS \`$my_db\`" || exit 1
echo "PostgreSQL and MariaDB are up"
