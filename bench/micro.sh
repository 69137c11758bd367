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
# Beside them, every run of every tool (bench/exchange.py; a point-select client's transaction is
# one statement), per statement the server counted over the run (MySQL/MariaDB's Com_select,
# PostgreSQL's xact_commit + xact_rollback of the database, read after the client's backends
# exit): a client may run statements outside the window its transactions are counted in (cairn's
# VUs connect and stop around its measured window), so the whole run's figures are divided by
# the whole run's statements; "statements / transactions" is that count over the client's own:
#   - the client's CPU per statement, as above but over the server's count;
#   - the server's CPU per statement: user + system CPU of the process listening on the server's
#     port (ss -ltnp) and its descendants (/proc/PID/stat; PostgreSQL's exited backends through the
#     postmaster's cutime + cstime) from just before the client starts to just after it exits;
#   - the client's CPU over the server's in the same run ("client CPU / server CPU"): both tools'
#     per-statement CPU moves with how fast the host runs in the run's 10-20 s (the two rise and
#     fall together, ±20% from one run to the next here), and their quotient much less, so its
#     ratio cairn/peer is the steadiest measure of what the client costs beside the server;
#   - context switches per statement, voluntary + involuntary: the server's threads' (per thread,
#     /proc/PID/task/TID/status, read every 0.25 s so that a thread exiting in the run counts up to
#     its last reading) and the client's own (GNU time's %w and %c: every thread of the process);
#   - the exchange per statement over a window from 30% to 80% of the run: bytes and TCP segments
#     (all, and those carrying data) each way of the client's sockets to the server, from `ss -tin`
#     at the window's ends, divided by the statements the server counted in it (MySQL/MariaDB's
#     Com_select) or, on PostgreSQL, which counts none at once, the client's tps × the window
#     (marked ≈); `ss -ti`'s delayed-ACK fields (ato, qack) of one socket;
#   - on MySQL/MariaDB, the server's commands and bytes per client transaction over the run (SHOW
#     GLOBAL STATUS: Questions, Com_stmt_execute/prepare/close/reset, admin commands such as
#     COM_PING, Bytes_received/sent).
# Each round prints them for both tools, and the summary the median over the rounds of each as a
# ratio cairn/peer. Once per comparison each tool also runs 2 s with one client under strace -f,
# which prints the socket options it set (TCP_NODELAY, TCP_QUICKACK, …) and, on MySQL/MariaDB, the
# capability flags of its handshake response and of the server's greeting (MariaDB's extended ones,
# MARIADB_CLIENT_CACHE_METADATA among them, included).
#
# The header names MariaDB's performance_schema setting, read from the server, when MariaDB is run.
# BENCH_MYSQL_HOST and BENCH_MYSQL_PORT (default 127.0.0.1 and 3306) choose the MariaDB server, e.g.
# a private one started with performance_schema off beside the one .ci/servers.sh runs with it on;
# or BENCH_MYSQL, a URL (mysql://cairn:cairn@127.0.0.1:3380/cairn_bench), gives host, port and
# database at once. BENCH_PG, a URL (default postgres://cairn:cairn@127.0.0.1:5432/cairn_bench, its
# database BENCH_PG_DB), chooses the PostgreSQL server the same way. The servers must run on this
# host: their figures are read from their processes. MySQL 8 is run as MariaDB is: `bash .ci/versions.sh start mysql80`, then
# BENCH_MYSQL=mysql://cairn:cairn@127.0.0.1:3380/cairn_bench bench/micro.sh sysbench-mysql (sysbench's
# client logs in with MySQL 8's caching_sha2_password; cairn's prepare loads with INSERTs there).
#
# BENCH_CAIRN_FLAGS adds flags to every cairn run (e.g. "--observe off", to see what the observers
# cost beside a peer that observes nothing).
#
# Usage: bench/micro.sh [pgbench|sysbench-pg|sysbench-mysql|all]   (default all)
# Needs .ci/servers.sh to have run (or BENCH_PG/BENCH_MYSQL), pgbench, sysbench, strace and ss
# installed (apt-get install sysbench strace iproute2), and root or the servers' user (ss -p, /proc).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
which=${1:-all}
CLIENTS=${BENCH_CLIENTS:-4 16}
T=${BENCH_TIME:-20}
ROUNDS=${BENCH_ROUNDS:-1}
read -r PGHOST PGPORT _ _ PGDB < <(url_parts "${BENCH_PG:-postgres://cairn:cairn@127.0.0.1:5432/${BENCH_PG_DB:-cairn_bench}}" 5432)
if [ -n "${BENCH_MYSQL:-}" ]; then
  read -r MYHOST MYPORT _ _ MYDB < <(url_parts "$BENCH_MYSQL" 3306)
else
  MYHOST=${BENCH_MYSQL_HOST:-127.0.0.1} MYPORT=${BENCH_MYSQL_PORT:-3306} MYDB=${BENCH_MYSQL_DB:-cairn_bench}
fi
PG=postgres://cairn:cairn@$PGHOST:$PGPORT/$PGDB
MY=mysql://cairn:cairn@$MYHOST:$MYPORT/$MYDB
export BENCH_MY_HOST=$MYHOST BENCH_MY_PORT=$MYPORT BENCH_MY_USER=cairn BENCH_MY_PASS=cairn \
  BENCH_PG_HOST=$PGHOST BENCH_PG_PORT=$PGPORT BENCH_PG_DBNAME=$PGDB
# The label of the MySQL-kind server's lines: mariadb, or mysql for a MySQL server.
MYLABEL=$(mysql --no-defaults -h "$MYHOST" -P "$MYPORT" -u cairn -pcairn -Nse "SELECT IF(VERSION() LIKE '%MariaDB%', 'mariadb', 'mysql')" 2>/dev/null || echo mariadb)
out=bench/out
mkdir -p "$out"
go build -o "$out/cairn" ./cmd/cairn
C="$out/cairn"
export PGPASSWORD=cairn CAIRN_RESULTS="$out/results.db"

for tool in pgbench sysbench strace ss; do
  command -v "$tool" >/dev/null || { echo "bench/micro.sh: $tool is not installed (apt-get install sysbench postgresql-client strace iproute2)"; exit 2; }
done
case $which in pgbench|sysbench-pg|all)
  psql -h "$PGHOST" -p "$PGPORT" -U cairn -d cairn -tAc "SELECT 1 FROM pg_database WHERE datname = '$PGDB'" | grep -q 1 ||
    psql -h "$PGHOST" -p "$PGPORT" -U cairn -d cairn -qc "CREATE DATABASE $PGDB" ;;
esac
case $which in sysbench-mysql|all)
  mysql --no-defaults -h "$MYHOST" -P "$MYPORT" -u cairn -pcairn -e "CREATE DATABASE IF NOT EXISTS $MYDB" 2>/dev/null ||
    mysql -u root -e "CREATE DATABASE IF NOT EXISTS $MYDB; GRANT ALL ON $MYDB.* TO 'cairn'@'%'" ;;
esac
# The server the comparison in hand runs against: KIND (postgres or mysql), SPORT, and SPID, the pid
# of the process listening on SPORT (bench_* set them).
KIND= SPORT= SPID=
# GNU time's figures of a client: CPU (user, system) and its own context switches (voluntary,
# involuntary), which count every thread of the process, exited ones too.
TIMEFMT=$'cpu %U %S\nctx %w %c'
declare -A X F
# measure NAME COMM OUTFILE CMD...: runs CMD (a client whose process is named COMM) under GNU time
# and bench/exchange.py, which measures the server's CPU and context switches over the run and the
# exchange over a window in it; X holds exchange.py's figures. A client that fails ends the script.
measure() {
  local name=$1 comm=$2 o=$3 line kv; shift 3
  line=$(python3 bench/exchange.py run "$KIND" "$SPID" "$SPORT" "$comm" "$T" "$o" -- /usr/bin/time -f "$TIMEFMT" -o "$out/$name.time" "$@" | tail -1)
  X=()
  for kv in $line; do X[${kv%%=*}]=${kv#*=}; done
  if [ "${X[EXIT]:-1}" != 0 ]; then echo "bench/micro.sh: $name failed (exit ${X[EXIT]:-?}); its output, $o:"; tail -5 "$o"; exit 1; fi
}
# take WHO NAME TXNS TPS: F[WHO.figure] = the per-statement figures of the run just measured. A
# point-select client's transaction is one statement. The window's statements are the server's own
# count (MySQL/MariaDB's Com_select); PostgreSQL counts none at once, so there they are the
# client's throughput times the window's length, and the wire figures are marked ≈.
take() {
  local who=$1 name=$2 txns=$3 tps=$4 ws=${X[W_STMTS]:-} k
  F[$who.approx]=
  if [ -z "$ws" ] && [ -n "${X[W_S]:-}" ]; then
    ws=$(awk -v a="$tps" -v b="${X[W_S]}" 'BEGIN { printf "%d", a * b }') F[$who.approx]="≈"
  fi
  # The whole run's figures go per statement the server counted over the run (a client may run
  # statements outside the window its transactions are counted in: cairn's VUs connect and stop
  # around its measured window), the client's transactions where the server counts none.
  local st=${X[STMTS]:-$txns}
  F[$who.stx]=$(per "$st" "$txns" 1 3)
  F[$who.ccpu]=$(awk -v n="$st" '/^cpu/ { if (n > 0) printf "%.1f", ($2 + $3) * 1e6 / n }' "$out/$name.time")
  F[$who.scpu]=$(per "${X[SERVER_CPU_S]:-}" "$st" 1e6 1)
  F[$who.share]=$(per "${F[$who.ccpu]}" "${F[$who.scpu]}" 1 3)
  F[$who.svcs]=$(per "${X[SERVER_VCS]:-}" "$st" 1 2)
  F[$who.sics]=$(per "${X[SERVER_ICS]:-}" "$st" 1 3)
  F[$who.cvcs]=$(awk -v n="$st" '/^ctx/ { if (n > 0) printf "%.2f", $2 / n }' "$out/$name.time")
  F[$who.cics]=$(awk -v n="$st" '/^ctx/ { if (n > 0) printf "%.3f", $3 / n }' "$out/$name.time")
  F[$who.bout]=$(per "${X[W_BYTES_OUT]:-}" "$ws" 1 1)
  F[$who.bin]=$(per "${X[W_BYTES_IN]:-}" "$ws" 1 1)
  F[$who.sout]=$(per "${X[W_SEGS_OUT]:-}" "$ws" 1 2)
  F[$who.sin]=$(per "${X[W_SEGS_IN]:-}" "$ws" 1 2)
  F[$who.dout]=$(per "${X[W_DSEGS_OUT]:-}" "$ws" 1 2)
  F[$who.din]=$(per "${X[W_DSEGS_IN]:-}" "$ws" 1 2)
  F[$who.ack]=${X[SS_INFO]:--}
  for k in QUESTIONS COM_STMT_EXECUTE COM_STMT_PREPARE COM_STMT_CLOSE COM_STMT_RESET COM_ADMIN BYTES_RECEIVED BYTES_SENT; do
    F[$who.$k]=$(per "${X[$k]:-}" "$txns" 1 3)
  done
}
# The per-statement figures compared, in the order printed: server CPU (µs), the server's threads'
# voluntary and involuntary context switches, the client's, and the wire's bytes, segments and
# data segments each way (out: client to server); then, on MySQL/MariaDB, the server's commands
# and bytes per transaction (SHOW GLOBAL STATUS).
FIGS="stx ccpu scpu share svcs sics cvcs cics bout bin sout sin dout din"
MYFIGS="QUESTIONS COM_STMT_EXECUTE COM_STMT_PREPARE COM_STMT_CLOSE COM_STMT_RESET COM_ADMIN BYTES_RECEIVED BYTES_SENT"
declare -A FIGNAME=([stx]="statements / transactions" [ccpu]="client CPU µs" [scpu]="server CPU µs" [share]="client CPU / server CPU" [svcs]="server cs voluntary" [sics]="server cs involuntary"
  [cvcs]="client cs voluntary" [cics]="client cs involuntary" [bout]="bytes out" [bin]="bytes in"
  [sout]="segments out" [sin]="segments in" [dout]="data segments out" [din]="data segments in"
  [QUESTIONS]="server: questions" [COM_STMT_EXECUTE]="server: COM_STMT_EXECUTE" [COM_STMT_PREPARE]="server: COM_STMT_PREPARE"
  [COM_STMT_CLOSE]="server: COM_STMT_CLOSE" [COM_STMT_RESET]="server: COM_STMT_RESET" [COM_ADMIN]="server: admin commands"
  [BYTES_RECEIVED]="server: bytes received" [BYTES_SENT]="server: bytes sent")
figs() { echo "$FIGS"; [ "$KIND" = postgres ] || echo "$MYFIGS"; }

# cairn_run NAME ARGS...: runs cairn with --json, sets TPS, TXNS, CPU.
cairn_run() {
  local name=$1; shift
  # shellcheck disable=SC2086 # BENCH_CAIRN_FLAGS is a list of flags
  measure "$name" cairn "$out/$name.txt" "$C" "$@" --duration "${T}s" --rampup 0 --progress 0 --no-store --json "$out/$name.json" ${BENCH_CAIRN_FLAGS:-}
  TPS=$(python3 -c "import json;print(round(json.load(open('$out/$name.json'))['result']['tps']))")
  TXNS=$(python3 -c "import json;d=json.load(open('$out/$name.json'));print(sum(t['count'] for t in d['transactions'].values()))")
  CPU=$(cpu_per_txn "$out/$name.time" "$TXNS")
  WCPU=$(python3 -c "import json;print(round(json.load(open('$out/$name.json'))['client']['cpu_us_per_txn'],1))")
  take cairn "$name" "$TXNS" "$TPS"
}
# alternate ROUND PEERFN CAIRN-ARGS...: runs the peer and cairn, the peer first in odd rounds and
# cairn first in even ones, so that a machine that drifts during the session favours neither.
alternate() {
  local r=$1 peerfn=$2; shift 2
  if [ $((r % 2)) -eq 1 ]; then "$peerfn"; "$@"; else "$@"; "$peerfn"; fi
}
RATIOS="$out/micro-ratios.txt" FRATIOS="$out/micro-figure-ratios.txt"
: > "$RATIOS"
: > "$FRATIOS"
line() { # round label clients peer_tps peer_cpu cairn_tps cairn_cpu cairn_window_cpu
  local rt rc f who rs=""
  rt=$(ratio "$6" "$4") rc=$(ratio "$7" "$5")
  printf "%-34s %3s  %8s %6s µs | %8s %6s µs (window %s) | tps ×%s  cpu ×%s\n" "round $1 $2" "$3" "$4" "$5" "$6" "$7" "$8" "$rt" "$rc"
  printf "%s|%s|%s|%s\n" "$2" "$3" "$rt" "$rc" >> "$RATIOS"
  for who in peer cairn; do
    printf "    %-5s %s statements / transaction; per statement: client %s µs, server %s µs (client/server %s), cs %s + %s | client cs %s + %s | wire %s out %s B, %s seg (%s data), in %s B, %s seg (%s data); %s" "$who" \
      "${F[$who.stx]}" "${F[$who.ccpu]}" "${F[$who.scpu]}" "${F[$who.share]}" "${F[$who.svcs]}" "${F[$who.sics]}" "${F[$who.cvcs]}" "${F[$who.cics]}" "${F[$who.approx]}" \
      "${F[$who.bout]}" "${F[$who.sout]}" "${F[$who.dout]}" "${F[$who.bin]}" "${F[$who.sin]}" "${F[$who.din]}" "${F[$who.ack]}"
    [ "$KIND" = postgres ] || printf " | server per txn: %s questions, %s execute, %s prepare, %s close, %s reset, %s admin, %s B in, %s B out" \
      "${F[$who.QUESTIONS]}" "${F[$who.COM_STMT_EXECUTE]}" "${F[$who.COM_STMT_PREPARE]}" "${F[$who.COM_STMT_CLOSE]}" \
      "${F[$who.COM_STMT_RESET]}" "${F[$who.COM_ADMIN]}" "${F[$who.BYTES_RECEIVED]}" "${F[$who.BYTES_SENT]}"
    echo
  done
  for f in $(figs); do
    printf "%s|%s|%s|%s\n" "$2" "$3" "$f" "$(ratio_or_empty "${F[cairn.$f]}" "${F[peer.$f]}")" >> "$FRATIOS"
    rs+=" ${FIGNAME[$f]} ×$(ratio "${F[cairn.$f]}" "${F[peer.$f]}");"
  done
  echo "    ratios:${rs%;}"
}
# summary: the median of each comparison's ratios over the rounds. One round on this shared
# machine can be 10-30% off in either direction; the median of several alternations is the figure
# to compare with a target.
summary() {
  [ "$ROUNDS" -gt 1 ] || return 0
  echo "== medians over $ROUNDS rounds (cairn/peer; throughput wants >= 1, CPU per transaction <= 1)"
  local key rows f
  cut -d'|' -f1,2 "$RATIOS" | awk '!seen[$0]++' | while IFS= read -r key; do
    rows=$(grep -F "$key|" "$RATIOS")
    printf "%-34s %3s  tps ×%s  cpu ×%s   (rounds: tps %s; cpu %s)\n" "${key%%|*}" "${key#*|}" \
      "$(cut -d'|' -f3 <<<"$rows" | median)" "$(cut -d'|' -f4 <<<"$rows" | median)" \
      "$(cut -d'|' -f3 <<<"$rows" | paste -sd' ')" "$(cut -d'|' -f4 <<<"$rows" | paste -sd' ')"
  done
  echo "== medians over $ROUNDS rounds of the per-statement figures (cairn/peer; a round whose peer figure is 0 is left out)"
  cut -d'|' -f1,2,3 "$FRATIOS" | awk '!seen[$0]++' | while IFS= read -r key; do
    rows=$(grep -F "$key|" "$FRATIOS" | cut -d'|' -f4 | grep . || true)
    f=${key##*|}
    key=${key%|*}
    if [ -n "$rows" ]; then
      printf "%-34s %3s  %-26s ×%s   (rounds: %s)\n" "${key%%|*}" "${key#*|}" "${FIGNAME[$f]}" \
        "$(median <<<"$rows")" "$(paste -sd' ' <<<"$rows")"
    else
      printf "%-34s %3s  %-26s n/a (0 for the peer in every round)\n" "${key%%|*}" "${key#*|}" "${FIGNAME[$f]}"
    fi
  done
}
# handshake NAME CMD...: runs CMD once under strace (one client, 2 s) and prints the socket options
# it set and, on MySQL/MariaDB, the capabilities it and the server announced.
handshake() {
  local name=$1; shift
  echo "    $name: $(python3 bench/exchange.py handshake "$KIND" "$SPORT" "$out/$name-handshake.txt" -- "$@" | tail -1)"
}

# The peers' runs set PTPS and PCPU. They read the loop's n (clients), and sysbench_peer also the
# kind and driver arguments of bench_sysbench.
pgbench_peer() {
  measure pgbench pgbench "$out/pgbench.txt" pgbench -h "$PGHOST" -p "$PGPORT" -U cairn -S -M prepared -c "$n" -j "$n" -T "$T" "$PGDB"
  PTPS=$(awk '/^tps/ { print int($3) }' "$out/pgbench.txt")
  local txns; txns=$(awk '/actually processed/ { print $NF }' "$out/pgbench.txt")
  PCPU=$(cpu_per_txn "$out/pgbench.time" "$txns")
  take peer pgbench "$txns" "$PTPS"
}
sysbench_peer() {
  measure sysbench sysbench "$out/sysbench-$kind.txt" sysbench oltp_point_select "${driver[@]}" --tables=1 --table-size=1000000 \
    --threads="$n" --time="$T" --report-interval=0 run
  PTPS=$(awk '/transactions:/ { gsub(/\(/, "", $3); print int($3) }' "$out/sysbench-$kind.txt")
  local txns; txns=$(awk '/transactions:/ { print $2 }' "$out/sysbench-$kind.txt")
  PCPU=$(cpu_per_txn "$out/sysbench.time" "$txns")
  take peer sysbench "$txns" "$PTPS"
}

# server KIND PORT: the comparison's server, for measure and handshake.
server() {
  KIND=$1 SPORT=$2 SPID=$(server_pid "$2")
  [ -n "$SPID" ] || { echo "bench/micro.sh: no process listens on port $SPORT of this host (ss -ltnp); the server's figures need its pid"; exit 2; }
}

bench_pgbench() {
  echo "== pgbench -S -M prepared vs cairn tpcb --script select-only (PostgreSQL, scale 10)"
  server postgres "$PGPORT"
  "$C" tpcb prepare --db "$PG" --scale 10 | tail -1
  echo "  once, under strace (1 client, 2 s):"
  handshake pgbench pgbench -h "$PGHOST" -p "$PGPORT" -U cairn -S -M prepared -c 1 -j 1 -T 2 "$PGDB"
  handshake cairn "$C" tpcb run --db "$PG" --script select-only --vu 1 --duration 2s --rampup 0 --progress 0 --no-store
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
  if [ "$kind" = postgres ]; then server postgres "$PGPORT"; else server mysql "$MYPORT"; fi
  "$C" oltp prepare --db "$url" --tables 1 --table-size 1000000 | tail -1
  echo "  once, under strace (1 client, 2 s):"
  handshake sysbench sysbench oltp_point_select "${driver[@]}" --tables=1 --table-size=1000000 --threads=1 --time=2 --report-interval=0 run
  handshake cairn "$C" oltp run --db "$url" --workload point-select --vu 1 --duration 2s --rampup 0 --progress 0 --no-store
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
echo "load before: $(uptime)"
echo "                                   clients     peer tps   peer CPU |  cairn tps  cairn CPU              | ratios (cairn/peer)"
PGARGS=(--db-driver=pgsql --pgsql-host="$PGHOST" --pgsql-port="$PGPORT" --pgsql-user=cairn --pgsql-password=cairn --pgsql-db="$PGDB")
MYARGS=(--db-driver=mysql --mysql-host="$MYHOST" --mysql-port="$MYPORT" --mysql-user=cairn --mysql-password=cairn --mysql-db="$MYDB")
case $which in
  pgbench) bench_pgbench ;;
  sysbench-pg) bench_sysbench postgres "$PG" "${PGARGS[@]}" ;;
  sysbench-mysql) bench_sysbench "$MYLABEL" "$MY" "${MYARGS[@]}" ;;
  all)
    bench_pgbench
    bench_sysbench postgres "$PG" "${PGARGS[@]}"
    bench_sysbench "$MYLABEL" "$MY" "${MYARGS[@]}"
    ;;
  *) echo "usage: bench/micro.sh [pgbench|sysbench-pg|sysbench-mysql|all]"; exit 2 ;;
esac
summary
echo "load after: $(uptime)"
