#!/usr/bin/env bash
# Starts MariaDB servers of their own on this host, for a shard set over several servers
# (docs/fanout.md): the fan-out's acceptance runs and studies/fanout-spin-wait-delay.yaml on one
# machine. Each server has its own data directory under DIR (copied from one installed seed, as
# internal/testutil/mariadb.go does for the tests), listens on 127.0.0.1:PORT, lets user cairn
# (password cairn) do everything from 127.0.0.1, and gets the databases named after --.
#
#   bench/mariadbs.sh start DIR PORT... [-- DB...]   e.g. start /tmp/shards 3316 3317 3318 3319 -- shard_{0..7}
#   bench/mariadbs.sh stop DIR                       stops them (SIGTERM, then SIGKILL after 30 s) and removes DIR
#
# MARIADB_OPTS adds server options (default: a 128M buffer pool, max_connections 1000,
# performance_schema off).
set -euo pipefail
cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start DIR PORT... [-- DB...] | stop DIR" >&2; exit 2; }
shift 2
case $cmd in
start)
  ports=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do ports+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  dbs=("$@")
  [ ${#ports[@]} -gt 0 ] || { echo "$0: give the ports" >&2; exit 2; }
  [ -e "$dir" ] && { echo "$0: $dir exists: stop the servers there first ($0 stop $dir)" >&2; exit 2; }
  mkdir -p "$dir"
  user=(); [ "$(id -u)" = 0 ] && user=(--user=root)
  printf "CREATE USER IF NOT EXISTS 'cairn'@'127.0.0.1' IDENTIFIED BY 'cairn';\nGRANT ALL ON *.* TO 'cairn'@'127.0.0.1' WITH GRANT OPTION;\n" > "$dir/init.sql"
  mariadb-install-db --no-defaults --datadir="$dir/seed" --auth-root-authentication-method=normal --skip-test-db "${user[@]}" > "$dir/install.log" 2>&1 ||
    { tail "$dir/install.log" >&2; exit 1; }
  for p in "${ports[@]}"; do
    cp -a "$dir/seed" "$dir/d$p"
    # shellcheck disable=SC2086
    mariadbd --no-defaults --datadir="$dir/d$p" --port="$p" --bind-address=127.0.0.1 --socket="$dir/s$p.sock" \
      --pid-file="$dir/p$p.pid" --log-error="$dir/server$p.log" --init-file="$dir/init.sql" --innodb-log-file-size=64M \
      --skip-name-resolve ${MARIADB_OPTS:---innodb-buffer-pool-size=128M --max-connections=1000 --performance-schema=OFF} \
      "${user[@]}" > /dev/null 2>&1 &
  done
  for p in "${ports[@]}"; do
    for _ in $(seq 300); do
      mysql -h 127.0.0.1 -P "$p" -u cairn -pcairn -e "SELECT 1" > /dev/null 2>&1 && break
      sleep 0.2
    done
    mysql -h 127.0.0.1 -P "$p" -u cairn -pcairn -e "SELECT 1" > /dev/null || { tail "$dir/server$p.log" >&2; exit 1; }
    for d in "${dbs[@]}"; do mysql -h 127.0.0.1 -P "$p" -u cairn -pcairn -e "CREATE DATABASE IF NOT EXISTS \`$d\`"; done
    echo "mysql://cairn:cairn@127.0.0.1:$p/"
  done
  ;;
stop)
  for f in "$dir"/p*.pid; do
    [ -e "$f" ] || continue
    pid=$(cat "$f")
    kill -TERM "$pid" 2> /dev/null || continue
    for _ in $(seq 150); do kill -0 "$pid" 2> /dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2> /dev/null || true
  done
  rm -rf "$dir"
  ;;
*) echo "usage: $0 start DIR PORT... [-- DB...] | stop DIR" >&2; exit 2 ;;
esac
