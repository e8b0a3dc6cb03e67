#!/usr/bin/env bash
# `pnpm test`: every package's tests, in lanes side by side: the packages whose tests use
# PostgreSQL, those that use MariaDB, those that use no server, and those that start servers of
# their own (packages/clusters: every PostgreSQL line from 11 to 18, a primary and its standby, a
# Galera cluster; on ports and in directories of their own). Each lane runs its packages one
# at a time, so no two packages share a server: the PostgreSQL tests restart PostgreSQL and end
# sessions by database, the MariaDB tests restart MariaDB and kill every session of their database.
# Packages that use both servers, and any package no lane names, run after the lanes, one at a
# time (a new package's tests run there until it is named in a lane below).
#
# Arguments go to vitest (`pnpm test -- -t 'R-LEASE'`). Ends with one plain line
# "N passed, N failed" read from vitest's JSON reports.
#   SQLINBOX_CI_SKIP_RESTARTS=1   leave out the scenarios that restart the servers
#   SQLINBOX_TEST_REPORTS=dir     keep the report summaries there (CI sums them with another run)
#   SQLINBOX_TEST_QUICK_NODE=bin  after the serverless lane, run the unit, SQLite and pack tests
#                                 again on the Node whose bin directory this is (CI: Node 26)
set -uo pipefail
cd "$(dirname "$0")/.."

PG_LANE=(packages/dialect-postgres packages/dashboard examples/tutorial)
MYSQL_LANE=(packages/dialect-mysql)
FREE_LANE=(packages/core packages/sql packages/conformance packages/opentelemetry packages/health packages/dialect-sqlite
  packages/dialect-mssql packages/docs-check examples/pack examples/pglite-dialect examples/sqlite3-dialect)
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
if [ "${SQLINBOX_CI_SKIP_RESTARTS:-0}" = 1 ]; then ARGS+=(-t '^(?!.*server restarted)'); fi
VITEST_ARGS=()
if [ "${#ARGS[@]}" -gt 0 ]; then VITEST_ARGS=(-- "${ARGS[@]}"); fi

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
rm -rf packages/*/.vitest/report.json examples/*/.vitest/report.json bench/.vitest/report.json

# Builds once (cached when nothing changed), so the lanes never build the same package at once.
pnpm exec turbo run build --output-logs=errors-only || exit 1

# Runs the tests of the packages given, one package at a time.
run_tests() {
  local filters=()
  for pkg in "$@"; do filters+=("--filter=./$pkg"); done
  pnpm exec turbo run test --only --concurrency=1 --continue "${filters[@]}" "${VITEST_ARGS[@]}"
}
started=$SECONDS
lane() { # name, packages...: the lane's tests, then their reports saved; rc in $REPORTS/rc.<name>
  local name=$1
  shift
  [ "$#" -gt 0 ] || return 0
  run_tests "$@"
  local rc=$?
  echo $rc >"$REPORTS/rc.$name"
  node scripts/test-count.mjs --save "$REPORTS/node$NODE_MAJOR" "$@"
  node scripts/test-count.mjs --exit "$REPORTS/node$NODE_MAJOR" "$rc" "$@"
  echo "test: lane $name done at $((SECONDS - started)) s"
}
free_lane() {
  lane free "${FREE_LANE[@]}"
  [ -n "${SQLINBOX_TEST_QUICK_NODE:-}" ] || return 0
  export PATH="$SQLINBOX_TEST_QUICK_NODE:$PATH"
  export npm_config_nodedir="${SQLINBOX_TEST_QUICK_NODE%/bin}"
  local major
  major="$(node -p 'process.versions.node.split(".")[0]')"
  for pkg in "${QUICK_PACKAGES[@]}"; do rm -rf "$pkg/.vitest"; done
  run_tests "${QUICK_PACKAGES[@]}"
  local rc=$?
  echo $rc >"$REPORTS/rc.quick"
  node scripts/test-count.mjs --save "$REPORTS/node$major" "${QUICK_PACKAGES[@]}"
  node scripts/test-count.mjs --exit "$REPORTS/node$major" "$rc" "${QUICK_PACKAGES[@]}"
  echo "test: node $major run done at $((SECONDS - started)) s"
}
lane postgres "${PG_LANE[@]}" &
lane mysql "${MYSQL_LANE[@]}" &
lane servers "${OWN_SERVERS_LANE[@]}" &
free_lane &
wait
if [ "${#LAST[@]}" -gt 0 ]; then
  echo "after the lanes: ${LAST[*]}"
  lane last "${LAST[@]}"
fi
rc=0
for f in "$REPORTS"/rc.*; do [ "$(cat "$f")" -eq 0 ] || rc=1; done
if [ "$own_reports" = 1 ]; then
  node scripts/test-count.mjs "$REPORTS"/node*
  rm -rf "$REPORTS"
fi
exit "$rc"
