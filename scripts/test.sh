#!/usr/bin/env bash
# `pnpm test`: every package's tests, in lanes side by side: the packages whose tests use
# PostgreSQL, those that use MariaDB, those that use no server, and those that start servers of
# their own (packages/clusters: every PostgreSQL line from 11 to 18, a primary and its standby, a
# Galera cluster; on ports and in directories of their own). Each lane runs its packages one
# at a time, so no two packages share a server: the PostgreSQL tests restart PostgreSQL and end
# sessions by database, the MariaDB tests restart MariaDB and kill every session of their database.
# Packages that use both servers, and any package no lane names (a new package's tests run there
# until it is named in a lane below), run one at a time after the MariaDB lane, on databases of
# their own (sqlinbox_side, created and dropped here), so the sessions the server lanes end by
# database never reach them. The one scenario that restarts a shared server ("the server restarted
# mid-run", in the PostgreSQL and MariaDB dialects' conformance) runs first, in a phase of its own
# beside the serverless lanes; the two server lanes then leave it out. The PgBouncer conformance
# files of dialect-postgres then run in a lane of their own beside the PostgreSQL lane, on a
# database of their own (sqlinbox_bouncer), where the side databases would be made. Given vitest arguments, or
# where SQLINBOX_PG_URL or SQLINBOX_MYSQL_URL names a server, or a side database cannot be made,
# those packages run after every lane instead, as the restarts then may run anywhere.
#
# Arguments go to vitest (`pnpm test -- -t 'R-LEASE'`). Ends with one plain line
# "N passed, N failed" read from vitest's JSON reports.
#   SQLINBOX_CI_SKIP_RESTARTS=1   leave out the scenarios that restart the servers
#   SQLINBOX_TEST_REPORTS=dir     keep the report summaries there (CI sums them with another run)
#   SQLINBOX_TEST_QUICK_NODE=bin  after the serverless lane, run the unit, SQLite and pack tests
#                                 again on the Node whose bin directory this is (CI: Node 26), with
#                                 SQLINBOX_TEST_QUICK=1 (SQLite's conformance takes the short
#                                 schedule, rate and flow runs)
set -uo pipefail
cd "$(dirname "$0")/.."

# The PostgreSQL lane ends with a package that uses no server (the sqlite3 example dialect's
# conformance, about 4 minutes): the serverless lane is followed by the Node 26 run, and was the
# longest chain by that much.
PG_LANE=(packages/dialect-postgres packages/dashboard examples/tutorial examples/sqlite3-dialect)
MYSQL_LANE=(packages/dialect-mysql)
FREE_LANE=(packages/core packages/sql packages/conformance packages/opentelemetry packages/health packages/dialect-sqlite
  packages/dialect-mssql packages/docs-check examples/pack examples/pglite-dialect)
OWN_SERVERS_LANE=(packages/clusters)
QUICK_PACKAGES=(packages/core packages/dialect-sqlite examples/pack)

own_reports=0
REPORTS="${SQLINBOX_TEST_REPORTS:-}"
if [ -z "$REPORTS" ]; then
  REPORTS="$(mktemp -d "${TMPDIR:-/tmp}/sqlinbox-test-reports.XXXXXX")"
  own_reports=1
fi
mkdir -p "$REPORTS"
NODE_MAJOR="$(node -p 'process.versions.node.split(".")[0]')"

ARGS=("$@")
if [ "${ARGS[0]:-}" = "--" ]; then ARGS=("${ARGS[@]:1}"); fi
# The restart scenarios: a phase of their own (split=1) unless the caller chose the tests.
RESTARTING=(packages/dialect-postgres packages/dialect-mysql)
RESTARTS='server restarted'
NOT_RESTARTS='^(?!.*server restarted)'
split=0
[ "${#ARGS[@]}" -eq 0 ] && split=1
restart_phase=$split
if [ "${SQLINBOX_CI_SKIP_RESTARTS:-0}" = 1 ]; then
  ARGS+=(-t "$NOT_RESTARTS")
  restart_phase=0
fi
# The vitest arguments of a lane's packages (T_ARGS; a lane may set its own).
T_ARGS=("${ARGS[@]}")

# Every package with a test script; a lane's packages that do not exist are left out.
mapfile -t ALL < <(node scripts/test-count.mjs --list)
only_existing() { local p; for p in "$@"; do [ -d "$p" ] && echo "$p"; done; }
mapfile -t PG_LANE < <(only_existing "${PG_LANE[@]}")
mapfile -t MYSQL_LANE < <(only_existing "${MYSQL_LANE[@]}")
mapfile -t FREE_LANE < <(only_existing "${FREE_LANE[@]}")
mapfile -t OWN_SERVERS_LANE < <(only_existing "${OWN_SERVERS_LANE[@]}")
LAST=()
for pkg in "${ALL[@]}"; do
  case " ${PG_LANE[*]} ${MYSQL_LANE[*]} ${FREE_LANE[*]} ${OWN_SERVERS_LANE[*]} " in *" $pkg "*) ;; *) LAST+=("$pkg") ;; esac
done

# Reports of an earlier run never count for this one.
rm -rf packages/*/.vitest/report*.json examples/*/.vitest/report*.json bench/.vitest/report*.json

# Builds once (cached when nothing changed), so the lanes never build the same package at once.
pnpm exec turbo run build --output-logs=errors-only || exit 1

# Runs the tests of the packages given, one package at a time, with the vitest arguments T_ARGS.
run_tests() {
  local filters=() extra=()
  for pkg in "$@"; do filters+=("--filter=./$pkg"); done
  if [ "${#T_ARGS[@]}" -gt 0 ]; then extra=(-- "${T_ARGS[@]}"); fi
  pnpm exec turbo run test --only --concurrency=1 --continue "${filters[@]}" "${extra[@]}"
}
started=$SECONDS
# name, packages...: the lane's tests, then their reports saved into $SAVE (default the run's
# directory; the restart phase keeps its own, counting only the tests it ran, since the lanes run
# the rest); rc in $REPORTS/rc.<name>.
lane() {
  local name=$1
  shift
  [ "$#" -gt 0 ] || return 0
  run_tests "$@"
  local rc=$?
  local save="${SAVE:-$REPORTS/node$NODE_MAJOR}"
  echo $rc >"$REPORTS/rc.$name"
  node scripts/test-count.mjs --save "$save" ${RAN_ONLY:+--ran-only} "$@"
  node scripts/test-count.mjs --exit "$save" "$rc" "$@"
  echo "test: lane $name done at $((SECONDS - started)) s"
}
# The lane of one server: its restarting package without the restart scenarios (where they had
# their phase), then its other packages.
server_lane() { # name, packages...
  local name=$1 pkg
  shift
  for pkg in "$@"; do
    (
      if [ "$restart_phase" = 1 ] && [[ " ${RESTARTING[*]} " == *" $pkg "* ]]; then T_ARGS=(-t "$NOT_RESTARTS"); fi
      if [ "$bouncer" = 1 ] && [ "$pkg" = "$BOUNCER_PKG" ]; then T_ARGS+=(--exclude "**/$BOUNCER_FILES.*"); fi
      lane "$name-${pkg##*/}" "$pkg"
    )
  done
}
# The PgBouncer conformance files of dialect-postgres: a lane of their own beside the PostgreSQL
# lane (which then leaves them out), on a database of their own (through PgBouncer too), with a
# report file of their own, since the two runs of the package are at once. Made where the side
# databases would be; answers whether it is there.
BOUNCER_PKG=packages/dialect-postgres
BOUNCER_FILES=conformance.pgbouncer
BOUNCER_DB=sqlinbox_bouncer
bouncer_database() {
  [ "$split" = 1 ] && [ -z "${SQLINBOX_PG_URL:-}" ] && [ -z "${SQLINBOX_PGBOUNCER_URL:-}" ] || return 1
  [[ " ${PG_LANE[*]} " == *" $BOUNCER_PKG "* ]] || return 1
  psql -h 127.0.0.1 -U postgres -d postgres -qc "DROP DATABASE IF EXISTS $BOUNCER_DB WITH (FORCE)" >/dev/null 2>&1 &&
    psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE $BOUNCER_DB" >/dev/null 2>&1
}
bouncer_lane() {
  (
    T_ARGS=("$BOUNCER_FILES")
    [ "$restart_phase" = 1 ] && T_ARGS+=(-t "$NOT_RESTARTS")
    export SQLINBOX_PG_URL="postgres://postgres@127.0.0.1:5432/$BOUNCER_DB"
    export SQLINBOX_PGBOUNCER_URL="postgres://postgres@127.0.0.1:${SQLINBOX_PGBOUNCER_PORT:-6432}/$BOUNCER_DB"
    export SQLINBOX_VITEST_REPORT=.vitest/report-bouncer.json
    SAVE="$REPORTS/node$NODE_MAJOR-bouncer" lane postgres-bouncer "$BOUNCER_PKG"
  )
  psql -h 127.0.0.1 -U postgres -d postgres -qc "DROP DATABASE IF EXISTS $BOUNCER_DB WITH (FORCE)" >/dev/null 2>&1
  return 0
}
# The restart scenarios alone, on both servers at once: only the conformance files hold them, so
# only those are loaded.
restarts() {
  local pkg pids=()
  for pkg in "${RESTARTING[@]}"; do
    [ -d "$pkg" ] || continue
    (
      T_ARGS=(conformance -t "$RESTARTS")
      SAVE="$REPORTS/node$NODE_MAJOR-restarts" RAN_ONLY=1 lane "restarts-${pkg##*/}" "$pkg"
    ) &
    pids+=($!)
  done
  # Its own runs only: a bare `wait` would wait for the serverless lanes too.
  wait "${pids[@]}"
}
# Side databases for the packages after the MariaDB lane: made where both local servers answer
# and no URL names another; answers whether they are there.
SIDE_DB=sqlinbox_side
side_databases() {
  [ "$split" = 1 ] && [ -z "${SQLINBOX_PG_URL:-}" ] && [ -z "${SQLINBOX_MYSQL_URL:-}" ] || return 1
  psql -h 127.0.0.1 -U postgres -d postgres -qc "DROP DATABASE IF EXISTS $SIDE_DB" >/dev/null 2>&1 &&
    psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE $SIDE_DB" >/dev/null 2>&1 &&
    mariadb -h 127.0.0.1 -uroot -e "DROP DATABASE IF EXISTS $SIDE_DB; CREATE DATABASE $SIDE_DB" >/dev/null 2>&1
}
drop_side_databases() {
  psql -h 127.0.0.1 -U postgres -d postgres -qc "DROP DATABASE IF EXISTS $SIDE_DB" >/dev/null 2>&1
  mariadb -h 127.0.0.1 -uroot -e "DROP DATABASE IF EXISTS $SIDE_DB" >/dev/null 2>&1
  return 0
}
# The tables sqlinbox names by default (the migrations record, the schedules' ticks), which the
# conformance scenarios of every lane share in the default test databases, each deleting only its
# own rows: the ones this run created are dropped once every lane is done. The names found before
# the run, one per line, on each server.
SHARED_TABLES="'sqlinbox_migrations', 'sqlinbox_schedules'"
shared_tables() { # pg|mysql
  [ -z "${SQLINBOX_PG_URL:-}" ] && [ -z "${SQLINBOX_MYSQL_URL:-}" ] || return 0
  if [ "$1" = pg ]; then
    psql -h 127.0.0.1 -U postgres -d test -Atc \
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename IN ($SHARED_TABLES)" 2>/dev/null
  else
    mariadb -h 127.0.0.1 -uroot -N -e \
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'test' AND table_name IN ($SHARED_TABLES)" 2>/dev/null
  fi
  return 0
}
drop_new_shared_tables() {
  local t
  for t in $(shared_tables pg); do
    grep -qx "$t" <<<"$PG_SHARED_BEFORE" ||
      psql -h 127.0.0.1 -U postgres -d test -qc "DROP TABLE IF EXISTS public.$t" >/dev/null 2>&1
  done
  for t in $(shared_tables mysql); do
    grep -qx "$t" <<<"$MYSQL_SHARED_BEFORE" ||
      mariadb -h 127.0.0.1 -uroot -e "DROP TABLE IF EXISTS test.$t" >/dev/null 2>&1
  done
  return 0
}
PG_SHARED_BEFORE=$(shared_tables pg)
MYSQL_SHARED_BEFORE=$(shared_tables mysql)
free_lane() {
  lane free "${FREE_LANE[@]}"
  [ -n "${SQLINBOX_TEST_QUICK_NODE:-}" ] || return 0
  export PATH="$SQLINBOX_TEST_QUICK_NODE:$PATH"
  export npm_config_nodedir="${SQLINBOX_TEST_QUICK_NODE%/bin}"
  local major
  major="$(node -p 'process.versions.node.split(".")[0]')"
  for pkg in "${QUICK_PACKAGES[@]}"; do rm -rf "$pkg/.vitest"; done
  # The long timing and crash runs (the 2-minute schedule, the 10,000-job flow) ran on the full
  # line: this run takes their short versions.
  export SQLINBOX_TEST_QUICK=1
  run_tests "${QUICK_PACKAGES[@]}"
  local rc=$?
  echo $rc >"$REPORTS/rc.quick"
  node scripts/test-count.mjs --save "$REPORTS/node$major" "${QUICK_PACKAGES[@]}"
  node scripts/test-count.mjs --exit "$REPORTS/node$major" "$rc" "${QUICK_PACKAGES[@]}"
  echo "test: node $major run done at $((SECONDS - started)) s"
}
lane servers "${OWN_SERVERS_LANE[@]}" &
free_lane &
[ "$restart_phase" = 1 ] && restarts
side=0
if [ "${#LAST[@]}" -gt 0 ] && side_databases; then side=1; fi
bouncer=0
if bouncer_database; then bouncer=1; fi
[ "$bouncer" = 1 ] && bouncer_lane &
server_lane postgres "${PG_LANE[@]}" &
(
  server_lane mysql "${MYSQL_LANE[@]}"
  if [ "$side" = 1 ]; then
    echo "after the MariaDB lane, on the databases $SIDE_DB: ${LAST[*]}"
    SQLINBOX_PG_URL="postgres://postgres@127.0.0.1:5432/$SIDE_DB" SQLINBOX_MYSQL_DATABASE="$SIDE_DB" lane last "${LAST[@]}"
    drop_side_databases
  fi
) &
wait
if [ "${#LAST[@]}" -gt 0 ] && [ "$side" = 0 ]; then
  echo "after the lanes: ${LAST[*]}"
  lane last "${LAST[@]}"
fi
drop_new_shared_tables
rc=0
for f in "$REPORTS"/rc.*; do [ "$(cat "$f")" -eq 0 ] || rc=1; done
if [ "$own_reports" = 1 ]; then
  node scripts/test-count.mjs "$REPORTS"/node*
  rm -rf "$REPORTS"
fi
exit "$rc"
