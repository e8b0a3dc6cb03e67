#!/usr/bin/env bash
# A three-node MariaDB Galera cluster on 127.0.0.1, from the machine's MariaDB server and Debian's
# `galera-4` library, each node in a directory of its own under <dir>:
#
#   bash scripts/galera.sh start <dir> <base port>
#       nodes 1 to 3 listen for clients on <base>, <base>+1, <base>+2; Galera's group traffic uses
#       <base>+3..+5, incremental state transfer <base>+6..+8, full state transfer (rsync)
#       <base>+9..+11. Node 1 starts a new cluster, nodes 2 and 3 join it; waits until the cluster
#       has three synced nodes, makes the database `test`, and prints the nodes' URLs, one a line
#   bash scripts/galera.sh kill <dir> <node>      SIGKILL node 1, 2 or 3 (a crashed node)
#   bash scripts/galera.sh rejoin <dir> <node>    starts a killed node again: it rejoins the cluster
#       (incremental or full state transfer from a node still up) and is synced when this returns
#   bash scripts/galera.sh remove <dir>           SIGKILL every node and delete <dir>
#
# The root account has no password and is reached from 127.0.0.1 (a test set-up, never a
# production one). Under root the servers run as the `mysql` user. Needs mariadbd,
# mariadb-install-db, the galera library (/usr/lib/galera/libgalera_smm.so, or
# SQLINBOX_GALERA_LIBRARY) and rsync (the state transfer): the script fails saying which is
# missing, it never installs anything.
set -euo pipefail

die() { echo "galera.sh: $*" >&2; exit 1; }
# Servers started here get no descriptor beyond stdin, stdout and stderr: one inherited from a
# caller run under `flock LOCK ..` (the machine's heavy lock) would hold that lock for as long as
# the server ran. The script itself needs none.
# No redirection on the loop: bash would keep stderr in a descriptor above 9 for its length,
# the loop would close that copy, and stderr would stay /dev/null after it (every message lost).
for fd in /proc/self/fd/*; do
  fd="${fd##*/}"
  if [ "$fd" -gt 2 ] && [ "$fd" != 255 ]; then eval "exec $fd>&-"; fi
done || true
library="${SQLINBOX_GALERA_LIBRARY:-}"
if [ -z "$library" ]; then
  for f in /usr/lib/galera/libgalera_smm.so /usr/lib/galera-4/libgalera_smm.so /usr/lib64/galera-4/libgalera_smm.so \
    /usr/lib/libgalera_smm.so; do
    [ -f "$f" ] && library="$f" && break
  done
fi

need() { # checks the tools a start needs
  command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || die "no mariadbd (apt-get install -y mariadb-server)"
  command -v mariadb-install-db >/dev/null 2>&1 || die "no mariadb-install-db (apt-get install -y mariadb-server)"
  [ -n "$library" ] && [ -f "$library" ] || die "no Galera library (apt-get install -y galera-4)"
  command -v rsync >/dev/null 2>&1 || die "no rsync, Galera's state transfer (apt-get install -y rsync)"
}

mariadbd_bin() { command -v mariadbd 2>/dev/null || echo /usr/sbin/mariadbd; }

if [ "$(id -u)" = 0 ]; then
  id mysql >/dev/null 2>&1 || die "running as root needs a 'mysql' user to run the servers as"
  owner=mysql
else
  owner="$(id -un)"
fi

node_pid() { # dir n
  local f="$1/node$2/mariadbd.pid"
  [ -s "$f" ] && cat "$f"
}

client() { # dir n sql
  mariadb --protocol=socket -S "$1/node$2/sock" -uroot -N -B -e "$3"
}

status_of() { # dir n variable
  client "$1" "$2" "SHOW GLOBAL STATUS LIKE '$3'" 2>/dev/null | awk '{ print $2 }'
}

start_node() { # dir n base bootstrap [seconds to wait]
  local dir="$1" n="$2" base="$3" bootstrap="$4" d i cluster=""
  d="$dir/node$n"
  i=$((n - 1))
  for j in 0 1 2; do cluster="${cluster:+$cluster,}127.0.0.1:$((base + 3 + j))"; done
  mkdir -p "$d"
  chown "$owner" "$d"
  cat >"$d/my.cnf" <<EOF
[mysqld]
datadir=$d/data
socket=$d/sock
pid-file=$d/mariadbd.pid
log-error=$d/error.log
port=$((base + i))
bind-address=127.0.0.1
user=$owner
skip-name-resolve
innodb_buffer_pool_size=128M
innodb_log_file_size=64M
max_connections=300
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
wsrep_on=ON
wsrep_provider=$library
wsrep_cluster_name=sqlinbox
wsrep_cluster_address=gcomm://$cluster
wsrep_node_name=node$n
wsrep_node_address=127.0.0.1:$((base + 3 + i))
wsrep_provider_options=gmcast.listen_addr=tcp://127.0.0.1:$((base + 3 + i));ist.recv_addr=127.0.0.1:$((base + 6 + i));gcache.size=128M
wsrep_sst_method=rsync
wsrep_sst_receive_address=127.0.0.1:$((base + 9 + i))
EOF
  if [ ! -d "$d/data" ]; then
    mariadb-install-db --defaults-file="$d/my.cnf" --user="$owner" --datadir="$d/data" \
      --auth-root-authentication-method=normal --skip-test-db >"$d/install.log" 2>&1 ||
      { cat "$d/install.log" >&2; die "mariadb-install-db failed for node $n"; }
  fi
  local extra=() pid state="" tries=0 deadline
  [ "$bootstrap" = yes ] && extra=(--wsrep-new-cluster)
  # A start waits 120 s for the node; a rejoin (its crash recovery, then a state transfer, on a
  # machine busy with other tests) up to 300 s.
  deadline=$((SECONDS + ${5:-120}))
  while :; do
    # Started in the background, detached; its pid file says where it runs.
    setsid "$(mariadbd_bin)" --defaults-file="$d/my.cnf" "${extra[@]}" </dev/null >>"$d/stdout.log" 2>&1 &
    pid=$!
    while [ "$SECONDS" -lt "$deadline" ] && kill -0 "$pid" 2>/dev/null; do
      state="$(status_of "$dir" "$n" wsrep_local_state_comment)" || state=""
      [ "$state" = Synced ] && return 0
      sleep 0.2
    done
    tries=$((tries + 1))
    # A joiner whose state transfer failed exits; it is started once more (a second transfer),
    # not given up on.
    if [ "$SECONDS" -ge "$deadline" ] || [ "$tries" -ge 2 ]; then break; fi
    echo "galera.sh: node $n exited before it was synced; starting it once more" >&2
  done
  echo "galera.sh: node $n did not reach Synced (last state: ${state:-none}); its error log ends:" >&2
  tail -30 "$d/error.log" >&2 || true
  die "node $n did not reach Synced within ${5:-120} s"
}

kill_node() { # dir n
  local pid
  pid="$(node_pid "$1" "$2")" || return 0
  kill -9 "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  rm -f "$1/node$2/mariadbd.pid"
}

action="${1:-}"
shift || true
case "$action" in
  start)
    [ $# -eq 2 ] || die "usage: galera.sh start <dir> <base port>"
    dir="$1" base="$2"
    [[ "$base" =~ ^[0-9]+$ ]] && [ "$base" -gt 1024 ] && [ "$base" -lt 65500 ] || die "not a port: $base"
    [ ! -e "$dir/node1" ] || die "$dir already holds a cluster"
    need
    mkdir -p "$dir"
    touch "$dir/galera" # marks the directory as a cluster's (for clean-ups)
    echo "$base" >"$dir/base"
    chown "$owner" "$dir"
    start_node "$dir" 1 "$base" yes
    client "$dir" 1 "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'; GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION; CREATE DATABASE IF NOT EXISTS test"
    start_node "$dir" 2 "$base" no
    start_node "$dir" 3 "$base" no
    size="$(status_of "$dir" 1 wsrep_cluster_size)"
    [ "$size" = 3 ] || die "the cluster has $size nodes, not 3"
    for n in 1 2 3; do echo "mysql://root@127.0.0.1:$((base + n - 1))/test"; done
    ;;
  kill)
    [ $# -eq 2 ] || die "usage: galera.sh kill <dir> <node>"
    [[ "$2" =~ ^[123]$ ]] || die "no node $2 (1, 2 or 3)"
    kill_node "$1" "$2"
    ;;
  rejoin)
    [ $# -eq 2 ] || die "usage: galera.sh rejoin <dir> <node>"
    [[ "$2" =~ ^[123]$ ]] || die "no node $2 (1, 2 or 3)"
    [ -f "$1/base" ] || die "no cluster in $1"
    kill_node "$1" "$2"
    start_node "$1" "$2" "$(cat "$1/base")" no 300
    ;;
  remove)
    dir="${1:?usage: galera.sh remove <dir>}"
    for n in 1 2 3; do kill_node "$dir" "$n"; done
    rm -rf "$dir"
    ;;
  *)
    echo "usage: scripts/galera.sh start|kill|remove ..." >&2
    exit 2
    ;;
esac
