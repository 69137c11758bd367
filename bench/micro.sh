#!/usr/bin/env bash
# Measures cairn's point selects against the peers on the same server and the same data, run
# alternately in one session (issue 4's targets):
#   - pgbench -S -M prepared               vs  cairn tpcb run --script select-only   (PostgreSQL)
#   - sysbench oltp_point_select (pgsql)   vs  cairn oltp run --workload point-select (PostgreSQL)
#   - sysbench oltp_point_select (mysql)   vs  cairn oltp run --workload point-select (MariaDB)
# at each client count in BENCH_CLIENTS (default "4 16"), BENCH_TIME seconds per run (default 20),
# 1M-row tables: pgbench scale 10 (prepared by cairn tpcb prepare, pgbench's own schema and data)
# and one sbtest table of 1,000,000 rows (prepared by cairn oltp prepare, sysbench's schema and data).
#
# Throughput is each tool's own figure (pgbench's "tps … without initial connection time",
# sysbench's "transactions … per sec.", cairn's TPS over its measured window). Client CPU per
# transaction is measured the same way for every tool: user+system CPU of the whole process
# (GNU time) divided by the transactions it reported. Ratios are cairn / peer: throughput wants
# ≥ 1, CPU per transaction ≤ 1. This machine is shared and noisy; BENCH_ROUNDS > 1 repeats the
# alternation (the peer first in odd rounds, cairn first in even ones), prints every round and then
# the median ratio of each comparison over the rounds. Runs much shorter than 20 s flatter cairn:
# the peer's process start and connections weigh on its CPU per transaction.
#
# The header names MariaDB's performance_schema setting, read from the server, when MariaDB is run.
# BENCH_MYSQL_HOST and BENCH_MYSQL_PORT (default 127.0.0.1 and 3306) choose the MariaDB server, e.g.
# a private one started with performance_schema off beside the one .ci/servers.sh runs with it on;
# or BENCH_MYSQL, a URL (mysql://cairn:cairn@127.0.0.1:3380/cairn_bench), gives host, port and
# database at once. MySQL 8 is run as MariaDB is: `bash .ci/versions.sh start mysql80`, then
# BENCH_MYSQL=mysql://cairn:cairn@127.0.0.1:3380/cairn_bench bench/micro.sh sysbench-mysql (sysbench's
# client logs in with MySQL 8's caching_sha2_password; cairn's prepare loads with INSERTs there).
#
# Usage: bench/micro.sh [pgbench|sysbench-pg|sysbench-mysql|all]   (default all)
# Needs .ci/servers.sh to have run, and pgbench and sysbench installed (apt-get install sysbench).
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}
CLIENTS=${BENCH_CLIENTS:-4 16}
T=${BENCH_TIME:-20}
ROUNDS=${BENCH_ROUNDS:-1}
PGDB=${BENCH_PG_DB:-cairn_bench}
MYDB=${BENCH_MYSQL_DB:-cairn_bench}
PG=postgres://cairn:cairn@127.0.0.1:5432/$PGDB
MYHOST=${BENCH_MYSQL_HOST:-127.0.0.1}
MYPORT=${BENCH_MYSQL_PORT:-3306}
if [ -n "${BENCH_MYSQL:-}" ]; then
  read -r MYHOST MYPORT MYDB < <(python3 -c 'import sys, urllib.parse as u
p = u.urlparse(sys.argv[1])
print(p.hostname or "127.0.0.1", p.port or 3306, p.path.strip("/") or "cairn_bench")' "$BENCH_MYSQL")
fi
MY=mysql://cairn:cairn@$MYHOST:$MYPORT/$MYDB
# The label of the MySQL-kind server's lines: mariadb, or mysql for a MySQL server.
MYLABEL=$(mysql --no-defaults -h "$MYHOST" -P "$MYPORT" -u cairn -pcairn -Nse "SELECT IF(VERSION() LIKE '%MariaDB%', 'mariadb', 'mysql')" 2>/dev/null || echo mariadb)
out=bench/out
mkdir -p "$out"
go build -o "$out/cairn" ./cmd/cairn
C="$out/cairn"
export PGPASSWORD=cairn CAIRN_RESULTS="$out/results.db"

for tool in pgbench sysbench; do
  command -v "$tool" >/dev/null || { echo "bench/micro.sh: $tool is not installed (apt-get install sysbench postgresql-client)"; exit 2; }
done
psql -h 127.0.0.1 -U cairn -d cairn -tAc "SELECT 1 FROM pg_database WHERE datname = '$PGDB'" | grep -q 1 ||
  psql -h 127.0.0.1 -U cairn -d cairn -qc "CREATE DATABASE $PGDB"
mysql --no-defaults -h "$MYHOST" -P "$MYPORT" -u cairn -pcairn -e "CREATE DATABASE IF NOT EXISTS $MYDB" 2>/dev/null ||
  mysql -u root -e "CREATE DATABASE IF NOT EXISTS $MYDB; GRANT ALL ON $MYDB.* TO 'cairn'@'%'"

. bench/lib.sh
# cairn_run NAME ARGS...: runs cairn with --json, sets TPS, TXNS, CPU.
cairn_run() {
  local name=$1; shift
  /usr/bin/time -f "cpu %U %S" -o "$out/$name.time" "$C" "$@" --duration "${T}s" --rampup 0 --progress 0 --no-store \
    --json "$out/$name.json" > "$out/$name.txt"
  TPS=$(python3 -c "import json;print(round(json.load(open('$out/$name.json'))['result']['tps']))")
  TXNS=$(python3 -c "import json;d=json.load(open('$out/$name.json'));print(sum(t['count'] for t in d['transactions'].values()))")
  CPU=$(cpu_per_txn "$out/$name.time" "$TXNS")
  WCPU=$(python3 -c "import json;print(round(json.load(open('$out/$name.json'))['client']['cpu_us_per_txn'],1))")
}
# alternate ROUND PEERFN CAIRN-ARGS...: runs the peer and cairn, the peer first in odd rounds and
# cairn first in even ones, so that a machine that drifts during the session favours neither.
alternate() {
  local r=$1 peerfn=$2; shift 2
  if [ $((r % 2)) -eq 1 ]; then "$peerfn"; "$@"; else "$@"; "$peerfn"; fi
}
RATIOS="$out/micro-ratios.txt"
: > "$RATIOS"
line() { # round label clients peer_tps peer_cpu cairn_tps cairn_cpu cairn_window_cpu
  local rt rc
  rt=$(ratio "$6" "$4") rc=$(ratio "$7" "$5")
  printf "%-34s %3s  %8s %6s µs | %8s %6s µs (window %s) | tps ×%s  cpu ×%s\n" "round $1 $2" "$3" "$4" "$5" "$6" "$7" "$8" "$rt" "$rc"
  printf "%s|%s|%s|%s\n" "$2" "$3" "$rt" "$rc" >> "$RATIOS"
}
# summary: the median of each comparison's ratios over the rounds. One round on this shared
# machine can be 10-30% off in either direction; the median of several alternations is the figure
# to compare with a target.
summary() {
  [ "$ROUNDS" -gt 1 ] || return 0
  echo "== medians over $ROUNDS rounds (cairn/peer; throughput wants >= 1, CPU per transaction <= 1)"
  local key rows
  cut -d'|' -f1,2 "$RATIOS" | awk '!seen[$0]++' | while IFS= read -r key; do
    rows=$(grep -F "$key|" "$RATIOS")
    printf "%-34s %3s  tps ×%s  cpu ×%s   (rounds: tps %s; cpu %s)\n" "${key%%|*}" "${key#*|}" \
      "$(cut -d'|' -f3 <<<"$rows" | median)" "$(cut -d'|' -f4 <<<"$rows" | median)" \
      "$(cut -d'|' -f3 <<<"$rows" | paste -sd' ')" "$(cut -d'|' -f4 <<<"$rows" | paste -sd' ')"
  done
}

# The peers' runs set PTPS and PCPU. They read the loop's n (clients), and sysbench_peer also the
# kind and driver arguments of bench_sysbench.
pgbench_peer() {
  /usr/bin/time -f "cpu %U %S" -o "$out/pgbench.time" pgbench -h 127.0.0.1 -U cairn -S -M prepared -c "$n" -j "$n" -T "$T" "$PGDB" > "$out/pgbench.txt" 2>&1
  PTPS=$(awk '/^tps/ { print int($3) }' "$out/pgbench.txt")
  PCPU=$(cpu_per_txn "$out/pgbench.time" "$(awk '/actually processed/ { print $NF }' "$out/pgbench.txt")")
}
sysbench_peer() {
  /usr/bin/time -f "cpu %U %S" -o "$out/sysbench.time" sysbench oltp_point_select "${driver[@]}" --tables=1 --table-size=1000000 \
    --threads="$n" --time="$T" --report-interval=0 run > "$out/sysbench-$kind.txt" 2>&1
  PTPS=$(awk '/transactions:/ { gsub(/\(/, "", $3); print int($3) }' "$out/sysbench-$kind.txt")
  PCPU=$(cpu_per_txn "$out/sysbench.time" "$(awk '/transactions:/ { print $2 }' "$out/sysbench-$kind.txt")")
}

bench_pgbench() {
  echo "== pgbench -S -M prepared vs cairn tpcb --script select-only (PostgreSQL, scale 10)"
  "$C" tpcb prepare --db "$PG" --scale 10 | tail -1
  for r in $(seq "$ROUNDS"); do
    for n in $CLIENTS; do
      alternate "$r" pgbench_peer cairn_run "tpcb-$n" tpcb run --db "$PG" --script select-only --vu "$n"
      line "$r" "pgbench -S / cairn tpcb" "$n" "$PTPS" "$PCPU" "$TPS" "$CPU" "$WCPU"
    done
  done
}

bench_sysbench() { # kind url driver-args...
  local kind=$1 url=$2; shift 2
  local -a driver=("$@")
  echo "== sysbench oltp_point_select vs cairn oltp --workload point-select ($kind, 1 table × 1,000,000 rows)"
  "$C" oltp prepare --db "$url" --tables 1 --table-size 1000000 | tail -1
  for r in $(seq "$ROUNDS"); do
    for n in $CLIENTS; do
      alternate "$r" sysbench_peer cairn_run "oltp-$kind-$n" oltp run --db "$url" --workload point-select --vu "$n"
      line "$r" "sysbench / cairn oltp ($kind)" "$n" "$PTPS" "$PCPU" "$TPS" "$CPU" "$WCPU"
    done
  done
}

# MariaDB's figures depend on performance_schema (on in .ci/servers.sh, off in a default install):
# the header says which the server runs with, read from the server itself.
case $which in sysbench-mysql|all)
  echo "MySQL/MariaDB at $MYHOST:$MYPORT: $(mysql --no-defaults -h "$MYHOST" -P "$MYPORT" -u cairn -pcairn -Nse "SELECT CONCAT(VERSION(), ', performance_schema ', IF(@@performance_schema, 'ON', 'OFF'))" 2>/dev/null || echo "performance_schema: unknown (the server did not answer)")" ;;
esac
echo "                                   clients     peer tps   peer CPU |  cairn tps  cairn CPU              | ratios (cairn/peer)"
case $which in
  pgbench) bench_pgbench ;;
  sysbench-pg) bench_sysbench postgres "$PG" --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-user=cairn --pgsql-password=cairn --pgsql-db="$PGDB" ;;
  sysbench-mysql) bench_sysbench "$MYLABEL" "$MY" --db-driver=mysql --mysql-host="$MYHOST" --mysql-port="$MYPORT" --mysql-user=cairn --mysql-password=cairn --mysql-db="$MYDB" ;;
  all)
    bench_pgbench
    bench_sysbench postgres "$PG" --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-user=cairn --pgsql-password=cairn --pgsql-db="$PGDB"
    bench_sysbench "$MYLABEL" "$MY" --db-driver=mysql --mysql-host="$MYHOST" --mysql-port="$MYPORT" --mysql-user=cairn --mysql-password=cairn --mysql-db="$MYDB"
    ;;
  *) echo "usage: bench/micro.sh [pgbench|sysbench-pg|sysbench-mysql|all]"; exit 2 ;;
esac
summary
