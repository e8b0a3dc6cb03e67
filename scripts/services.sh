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
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
fi
wait_for PostgreSQL "pg_isready -h 127.0.0.1 -p 5432" || exit 1
if ! psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='$pg_db'" | grep -q 1; then
  psql -h 127.0.0.1 -U postgres -d postgres -c "CREATE DATABASE \"$pg_db\"" || exit 1
fi

if ! mariadb-admin -h 127.0.0.1 -uroot ping >/dev/null 2>&1; then
  echo "starting MariaDB"
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd || true
fi
wait_for MariaDB "mariadb-admin -h 127.0.0.1 -uroot ping" || exit 1
mariadb -h 127.0.0.1 -uroot -e "CREATE DATABASE IF NOT EXISTS \`$my_db\`" || exit 1
echo "PostgreSQL and MariaDB are up"
