#!/usr/bin/env bash
# Measures cairn's TPC-C against its peers in one session, in alternating rounds, on the issue's
# conditions: PostgreSQL 15 (shared_buffers=2GB) and MariaDB 10.11 (innodb_buffer_pool_size=2G),
# 4 warehouses, 4 VUs, 30 s rampup, 60 s window, no keying/think time, TCP to 127.0.0.1.
#
# Peers run when they are installed under $PEERS (default /opt/peers; none is part of this
# repository, and nothing here builds them; docs/benchmarks.md says what each is and where it goes):
#   $PEERS/hammerdb/hammerdbcli            HammerDB 4.12, run as tclsh8.6 hammerdbcli auto SCRIPT.tcl
#                                          with bench/hammerdb/tpcc_{pg,my}.tcl (stored procedures)
#   $PEERS/bin/go-tpc                      go-tpc (client SQL)
#   $PEERS/benchbase-{postgres,mariadb}/   BenchBase, benchbase.jar and a tpcc_*.xml config (client
#                                          SQL), run with $BENCH_JAVA (default Temurin 25)
# Each gets the same server, warehouses, VUs, rampup and window, its own database (peer_*),
# dropped afterwards, a freshly loaded schema for every run and a quiesced server (bench/quiesce.sh).
#
# Rounds: BENCH_ROUNDS (default 3) alternate the order, the peers first in odd rounds and cairn
# first in even ones, so that a machine drifting through the session favours nobody. Every run is
# also measured from outside by bench/window.py, the same way for every tool: its CPU (process and
# children) and the server's over the steady part of the window, and New-Orders by the database's
# own SUM(d_next_o_id). The script ends with the median of every ratio over the rounds, its spread
# (lowest–highest), and says when the spread is wider than the margin to the target.
#
# The figures compared:
#   load      fastest peer's load of W warehouses / cairn's prepare (target >= 2)
#   procs     cairn --mode procs NOPM / HammerDB's NOPM (both from SUM(d_next_o_id); target >= 1.2)
#   sql       cairn --mode sql NOPM / the best client-SQL peer's steady state: go-tpc's NEW_ORDER
#             TPM averaged over its own 10 s intervals after the rampup (go-tpc has no rampup of
#             its own, and its tpmC covers the whole run; its NEW_ORDER_ERR lines, the failed
#             New-Orders, are not the figure: the round's line says in how many intervals of the
#             run there were any), BenchBase's NewOrder rows of its
#             measured window per minute (target >= 1.2)
#   CPU       every tool's client CPU per transaction and as a share of the server's CPU (window.py)
#
# Usage: bench/tpcc.sh [postgres|mysql|all]   (default all). Needs .ci/servers.sh to have run.
# Environment: BENCH_ROUNDS (3), BENCH_RAMPUP (30s), BENCH_DURATION (60s), BENCH_WAREHOUSES (4),
# BENCH_VU (4), BENCH_PG, BENCH_MYSQL (cairn's URLs), PEERS, BENCH_JAVA.
#
# MySQL 8 instead of MariaDB: BENCH_MYSQL=mysql://cairn:cairn@127.0.0.1:3380/cairn bench/tpcc.sh mysql
# against the server of `bash .ci/versions.sh start mysql80` (docs/versions.md). Every tool then
# goes to that server: the mysql client, go-tpc and HammerDB (host and port from BENCH_MYSQL). On
# MySQL, HammerDB's user peer_hammer is made with mysql_native_password (its mysqltcl client may
# lack caching_sha2_password, MySQL 8's default), cairn's prepare loads with INSERTs where
# local_infile is OFF, and BenchBase, whose configuration is MariaDB's, is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}
ROUNDS=${BENCH_ROUNDS:-3}
RAMPUP=${BENCH_RAMPUP:-30s}
DURATION=${BENCH_DURATION:-60s}
W=${BENCH_WAREHOUSES:-4}
VU=${BENCH_VU:-4}
PG=${BENCH_PG:-postgres://cairn:cairn@127.0.0.1:5432/cairn}
MY=${BENCH_MYSQL:-mysql://cairn:cairn@127.0.0.1:3306/cairn}
# The MySQL server of $MY, for the mysql client, window.py, quiesce.sh and the peers.
read -r MYHOST MYPORT MYUSER MYPASS < <(python3 -c 'import sys, urllib.parse as u
p = u.urlparse(sys.argv[1])
print(p.hostname or "127.0.0.1", p.port or 3306, u.unquote(p.username or "cairn"), u.unquote(p.password or "-"))' "$MY")
export BENCH_MY_HOST=$MYHOST BENCH_MY_PORT=$MYPORT BENCH_MY_USER=$MYUSER BENCH_MY_PASS=$MYPASS
myc() { mysql --no-defaults -h "$MYHOST" -P "$MYPORT" -u "$MYUSER" -p"$MYPASS" "$@"; }
# MySQL or MariaDB: the peers' users and window.py's server process differ.
MYKIND=$(myc -Nse "SELECT IF(VERSION() LIKE '%MariaDB%', 'mariadb', 'mysql')" 2>/dev/null || echo mariadb)
export BENCH_MY_KIND=$MYKIND
PEERS=${PEERS:-/opt/peers}
JAVA=${BENCH_JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
out=$PWD/bench/out
mkdir -p "$out"
go build -o "$out/cairn" ./cmd/cairn
C="$out/cairn"
export CAIRN_RESULTS="$out/results.db"
source bench/quiesce.sh

secs() { echo "${1%s}"; }   # "30s" -> 30 (durations are given in seconds)
R=$(secs "$RAMPUP")
D=$(secs "$DURATION")
. bench/lib.sh
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
kv() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2"; }   # kv KEY "K=V K=V…"

# Every figure of every round goes into one file: round|kind|tool|figure|value.
FIG="$out/tpcc-figures.txt"
: > "$FIG"
put() { [ -n "$5" ] && echo "$1|$2|$3|$4|$5" >> "$FIG"; return 0; }

# window KIND DB TOOL ROUND OUTFILE MARKER CMD…: runs CMD under bench/window.py and records the
# outside figures: nopm_w, cpu_us, cpu_share.
window() {
  local kind=$1 db=$2 tool=$3 r=$4 o=$5 marker=$6; shift 6
  local res
  res=$(python3 bench/window.py "$kind" "$db" "$R" "$D" "$o" "$marker" -- "$@")
  put "$r" "$kind" "$tool" nopm_w "$(kv NOPM "$res")"
  put "$r" "$kind" "$tool" cpu_us "$(kv CPU_US_PER_TXN "$res")"
  put "$r" "$kind" "$tool" cpu_share "$(kv CPU_SHARE "$res")"
  WIN=$res
}

db_drop() {
  if [ "$1" = postgres ]; then PGPASSWORD=cairn psql -h 127.0.0.1 -U cairn -d cairn -qc "DROP DATABASE IF EXISTS $2" 2>/dev/null || true
  else myc -e "DROP DATABASE IF EXISTS $2" 2>/dev/null || true; fi
}
db_create() {
  if [ "$1" = postgres ]; then PGPASSWORD=cairn psql -h 127.0.0.1 -U cairn -d cairn -qc "CREATE DATABASE $2"
  else myc -e "CREATE DATABASE $2"; fi
}

# cairn: prepare (timed) and a run, once per mode, each on a freshly prepared schema.
run_cairn() {
  local kind=$1 url=$2 r=$3 db=${2##*/} mode t0 t1 nopm
  for mode in procs sql; do
    "$C" tpcc cleanup --db "$url" >/dev/null
    quiesce "$kind"
    t0=$(date +%s.%N)
    "$C" tpcc prepare --db "$url" -w "$W" --seed 1 > "$out/cairn-$kind-prepare.txt" 2>/dev/null
    t1=$(date +%s.%N)
    put "$r" "$kind" cairn "load_s" "$(elapsed "$t0" "$t1")"
    quiesce "$kind"
    window "$kind" "$db" "cairn-$mode" "$r" "$out/cairn-$kind-$mode.txt" - \
      "$C" tpcc run --db "$url" --vu "$VU" --rampup "$RAMPUP" --duration "$DURATION" --mode "$mode" \
      --seed 1 --progress 0 --no-store --json "$out/cairn-$kind-$mode.json"
    nopm=$(python3 -c "import json;print(json.load(open('$out/cairn-$kind-$mode.json'))['result']['nopm'])")
    put "$r" "$kind" "cairn-$mode" nopm "$nopm"
    echo "  round $r cairn $mode: load $(val "$r" "$kind" cairn load_s) s, $nopm NOPM; outside: $WIN"
  done
  "$C" tpcc check --db "$url" | tail -1
  "$C" tpcc cleanup --db "$url" >/dev/null
}

# HammerDB: its schema build (one VU per warehouse, timed by the script) and its stored-procedure
# run; its figure is the NOPM of its TEST RESULT line.
run_hammerdb() {
  local kind=$1 r=$2 k o
  [ -f "$PEERS/hammerdb/hammerdbcli" ] || return 0
  # An interrupted run leaves HammerDB's database behind, and HammerDB refuses to build into it.
  if [ "$kind" = postgres ]; then db_drop postgres peer_hammerdb; k=pg
  else
    db_drop mysql peer_hammerdb; k=my
    # HammerDB's user, with the password HammerDB's script gives; on MySQL 8 with
    # mysql_native_password, which every client HammerDB may be built with speaks.
    # A user that may not grant (no GRANT OPTION, as .ci/servers.sh makes cairn) lends HammerDB
    # its own login instead.
    local how="IDENTIFIED BY 'peer_hammer'" h
    [ "$MYKIND" = mysql ] && how="IDENTIFIED WITH mysql_native_password BY 'peer_hammer'"
    HDB_USER=peer_hammer HDB_PASS=peer_hammer
    for h in 127.0.0.1 localhost; do
      myc -e "CREATE USER IF NOT EXISTS 'peer_hammer'@'$h' $how; GRANT ALL ON *.* TO 'peer_hammer'@'$h'" 2>/dev/null ||
        HDB_USER=$MYUSER HDB_PASS=$MYPASS
    done
    [ "$HDB_USER" = peer_hammer ] || myc -e "DROP USER IF EXISTS 'peer_hammer'@'127.0.0.1', 'peer_hammer'@'localhost'"
  fi
  quiesce "$kind"
  cp "bench/hammerdb/tpcc_$k.tcl" "$PEERS/hammerdb/cairn_tpcc_$k.tcl"
  o="$out/hammerdb-$kind.txt"
  window "$kind" peer_hammerdb hammerdb "$r" "$o" "HDB: TEST STARTED" \
    env TMP="$PEERS/hammerdb/tmp" TCLLIBPATH="$PEERS/hammerdb/lib" HDB_WAREHOUSES="$W" HDB_VU="$VU" \
      HDB_MYSQL_HOST="$MYHOST" HDB_MYSQL_PORT="$MYPORT" HDB_MYSQL_USER="${HDB_USER:-}" HDB_MYSQL_PASS="${HDB_PASS:-}" \
      HDB_RAMPUP="$(awk -v s="$R" 'BEGIN { print s / 60 }')" HDB_DURATION="$(awk -v s="$D" 'BEGIN { print s / 60 }')" \
      HDB_SETTLE="bash $PWD/bench/quiesce.sh $kind" \
      bash -c "cd '$PEERS/hammerdb' && exec tclsh8.6 hammerdbcli auto cairn_tpcc_$k.tcl"
  put "$r" "$kind" hammerdb load_s "$(awk '/HDB: SCHEMA BUILD COMPLETED/ { print $(NF-1) }' "$o")"
  put "$r" "$kind" hammerdb nopm "$(grep -o "achieved [0-9.]* NOPM" "$o" | awk '{ print int($2) }' | tail -1)"
  echo "  round $r HammerDB: load $(val "$r" "$kind" hammerdb load_s) s, $(grep -o "TEST RESULT.*" "$o" | tail -1); outside: $WIN"
}

# go-tpc: its load (-T one thread per warehouse, no post-load check) and a run of rampup+window
# seconds with 10 s intervals; its steady state is the mean NEW_ORDER TPM of the intervals after
# the rampup.
run_gotpc() {
  local kind=$1 r=$2 d port t0 t1 o
  [ -x "$PEERS/bin/go-tpc" ] || return 0
  local host=127.0.0.1 user=cairn pass=cairn
  if [ "$kind" = postgres ]; then d=postgres; port=5432; else d=mysql; host=$MYHOST port=$MYPORT user=$MYUSER pass=$MYPASS; fi
  local g=("$PEERS/bin/go-tpc" tpcc -d "$d" -H "$host" -P "$port" -U "$user" -p "$pass" -D peer_gotpc --warehouses "$W")
  [ "$kind" = postgres ] && g+=(--conn-params sslmode=disable)
  "${g[@]}" cleanup >/dev/null 2>&1 || true
  quiesce "$kind"
  t0=$(date +%s.%N)
  "${g[@]}" prepare -T "$W" --no-check > "$out/gotpc-$kind-prepare.txt" 2>&1
  t1=$(date +%s.%N)
  put "$r" "$kind" gotpc load_s "$(elapsed "$t0" "$t1")"
  quiesce "$kind"
  o="$out/gotpc-$kind-run.txt"
  window "$kind" peer_gotpc gotpc "$r" "$o" - "${g[@]}" run -T "$VU" --time "$((R + D))s" --interval 10s
  # "[Current] NEW_ORDER - Takes(s): 10.0, Count: N, TPM: X, …": the intervals that start at or
  # after the rampup's end. The interval's failed New-Orders are a line of their own,
  # "[Current] NEW_ORDER_ERR - …", which is not the figure: it is counted, not averaged in.
  put "$r" "$kind" gotpc nopm "$(awk -v skip=$(((R + 9) / 10)) '$1 == "[Current]" && $2 == "NEW_ORDER" && $3 == "-" { n++; if (n > skip) { gsub(",", "", $9); s += $9; k++ } } END { if (k) printf "%d", s / k }' "$o")"
  put "$r" "$kind" gotpc err_intervals "$(awk '$1 == "[Current]" && $2 == "NEW_ORDER" && $3 == "-" { n++ } $1 == "[Current]" && $2 == "NEW_ORDER_ERR" { e++ } END { printf "%d of %d", e, n }' "$o")"
  put "$r" "$kind" gotpc tpmc_whole "$(awk '/^tpmC:/ { gsub(",", "", $2); print int($2) }' "$o" | tail -1)"
  "${g[@]}" cleanup >/dev/null 2>&1 || true
  db_drop "$kind" peer_gotpc   # go-tpc creates its database and its cleanup leaves it
  echo "  round $r go-tpc: load $(val "$r" "$kind" gotpc load_s) s, steady state $(val "$r" "$kind" gotpc nopm) NEW_ORDER/min (tpmC over the whole run $(val "$r" "$kind" gotpc tpmc_whole)); intervals with New-Order errors: $(val "$r" "$kind" gotpc err_intervals); outside: $WIN"
}

# BenchBase: create+load (timed, with the JVM's start), then warmup+window; its figure is the
# NewOrder rows of the measured window in raw.csv per minute of its elapsed time.
run_benchbase() {
  local kind=$1 r=$2 dir cfg src t0 t1
  if [ "$kind" = postgres ]; then dir=$PEERS/benchbase-postgres; else dir=$PEERS/benchbase-mariadb; fi
  [ -f "$dir/benchbase.jar" ] && [ -x "$JAVA" ] || return 0
  if [ "$kind" = mysql ] && { [ "$MYKIND" = mysql ] || [ "$MYHOST:$MYPORT" != 127.0.0.1:3306 ]; }; then
    echo "  BenchBase: its configuration is MariaDB's on 127.0.0.1:3306; skipped on $MYKIND at $MYHOST:$MYPORT"
    return 0
  fi
  cfg=$dir/cairn-bench.xml
  src=$(ls "$dir"/tpcc_*.xml | head -1)
  sed -e "s|<scalefactor>[0-9]*</scalefactor>|<scalefactor>$W</scalefactor>|" \
      -e "s|<terminals>[0-9]*</terminals>|<terminals>$VU</terminals>|" \
      -e "s|<warmup>[0-9]*</warmup>|<warmup>$R</warmup>|" \
      -e "s|<time>[0-9]*</time>|<time>$D</time>|" "$src" > "$cfg"
  grep -q "<warmup>$R</warmup>" "$cfg" || { echo "  BenchBase: $src has no <warmup> element to set; skipped"; return 0; }
  db_drop "$kind" peer_benchbase; db_create "$kind" peer_benchbase
  rm -rf "$dir/results"
  quiesce "$kind"
  t0=$(date +%s.%N)
  (cd "$dir" && "$JAVA" -jar benchbase.jar -b tpcc -c "$(basename "$cfg")" --create=true --load=true > "$out/benchbase-$kind-load.txt" 2>&1)
  t1=$(date +%s.%N)
  put "$r" "$kind" benchbase load_s "$(elapsed "$t0" "$t1")"
  quiesce "$kind"
  window "$kind" peer_benchbase benchbase "$r" "$out/benchbase-$kind-run.txt" - \
    bash -c "cd '$dir' && exec '$JAVA' -jar benchbase.jar -b tpcc -c '$(basename "$cfg")' --execute=true"
  put "$r" "$kind" benchbase nopm "$(python3 - "$dir/results" <<'PY'
import csv, glob, json, sys
d = sys.argv[1]
summ = json.load(open(glob.glob(d + "/*.summary.json")[0]))
el = summ["Elapsed Time (nanoseconds)"] / 1e9
with open(glob.glob(d + "/*.raw.csv")[0]) as f:
    n = sum(1 for r in csv.reader(f) if len(r) > 1 and r[1] == "NewOrder")
print(int(n * 60 / el))
PY
)"
  db_drop "$kind" peer_benchbase
  echo "  round $r BenchBase: load $(val "$r" "$kind" benchbase load_s) s (with the JVM's start), $(val "$r" "$kind" benchbase nopm) NewOrder/min; outside: $WIN"
}

run_peers() { run_hammerdb "$@"; run_gotpc "$@"; run_benchbase "$@"; }

# val ROUND KIND TOOL FIGURE: one recorded figure, or empty.
val() { { grep "^$1|$2|$3|$4|" "$FIG" || true; } | tail -1 | cut -d'|' -f5; }
# The ratios of one round, into RAT: round|kind|comparison|value.
RAT="$out/tpcc-ratios.txt"
ratios() {
  local r=$1 kind=$2 best="" bestname="" v t fastest="" f
  for t in hammerdb gotpc benchbase; do
    f=$(val "$r" "$kind" "$t" load_s)
    if [ -n "$f" ] && { [ -z "$fastest" ] || awk -v a="$f" -v b="$fastest" 'BEGIN { exit !(a < b) }'; }; then fastest=$f; fi
  done
  # cairn prepared twice per round: the ratio is against its first load, the second is a check.
  local cl; cl=$({ grep "^$r|$kind|cairn|load_s|" "$FIG" || true; } | head -1 | cut -d'|' -f5)
  put "$r" "$kind" "load: fastest peer / cairn (>= 2)" x "$(ratio_or_empty "$fastest" "$cl")"
  put "$r" "$kind" "procs: cairn / HammerDB NOPM (>= 1.2)" x "$(ratio_or_empty "$(val "$r" "$kind" cairn-procs nopm)" "$(val "$r" "$kind" hammerdb nopm)")"
  for t in gotpc benchbase; do
    v=$(val "$r" "$kind" "$t" nopm)
    if [ -n "$v" ] && { [ -z "$best" ] || [ "$v" -gt "$best" ]; }; then best=$v; bestname=$t; fi
  done
  put "$r" "$kind" "sql: cairn / best client-SQL peer (>= 1.2)" x "$(ratio_or_empty "$(val "$r" "$kind" cairn-sql nopm)" "$best")"
  [ -n "$bestname" ] && put "$r" "$kind" "sql: best client-SQL peer" name "$bestname"
  return 0
}

# num V: a figure as it deserves: whole above 100, one decimal below.
num() { awk -v v="$1" 'BEGIN { if (v >= 100) printf "%d", v + 0.5; else printf "%.1f", v }'; }
# summary KIND: medians and spreads of every ratio and of every tool's figures.
summary() {
  local kind=$1 key vals med lo hi target margin spread
  echo
  echo "== $kind: medians over $ROUNDS rounds (lowest–highest in brackets)"
  for key in "load: fastest peer / cairn (>= 2)" "procs: cairn / HammerDB NOPM (>= 1.2)" "sql: cairn / best client-SQL peer (>= 1.2)"; do
    vals=$({ grep -F "|$kind|$key|x|" "$FIG" || true; } | cut -d'|' -f5)
    [ -n "$vals" ] || { printf "  %-44s no peer measured\n" "$key"; continue; }
    med=$(median <<<"$vals"); lo=$(sort -g <<<"$vals" | head -1); hi=$(sort -g <<<"$vals" | tail -1)
    target=$(sed 's/.*>= \([0-9.]*\).*/\1/' <<<"$key")
    margin=$(awk -v m="$med" -v t="$target" 'BEGIN { d = m - t; printf "%.2f", d < 0 ? -d : d }')
    spread=$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%.2f", b - a }')
    local verdict="met"; awk -v m="$med" -v t="$target" 'BEGIN { exit !(m < t) }' && verdict="NOT met"
    printf "  %-44s %s  [%s–%s]  %s" "$key" "$med" "$lo" "$hi" "$verdict"
    awk -v s="$spread" -v m="$margin" 'BEGIN { exit !(s > m) }' && printf " (the spread, %s, is wider than the margin to the target, %s: not decided by these rounds)" "$spread" "$margin"
    echo "  rounds: $(paste -sd' ' <<<"$vals")"
  done
  echo "  per tool (median [lowest–highest]): NOPM by its own figure · NOPM by SUM(d_next_o_id) from outside · client CPU µs per server-counted transaction · client CPU as % of the server's · load s"
  local tool fig
  for tool in cairn-procs cairn-sql cairn hammerdb gotpc benchbase; do
    local line=""
    for fig in nopm nopm_w cpu_us cpu_share load_s; do
      vals=$({ grep "^[0-9]*|$kind|$tool|$fig|" "$FIG" || true; } | cut -d'|' -f5)
      [ -n "$vals" ] || { line+=" ·"; continue; }
      line+=" $(num "$(median <<<"$vals")") [$(num "$(sort -g <<<"$vals" | head -1)")–$(num "$(sort -g <<<"$vals" | tail -1)")] ·"
    done
    [ "$(tr -d ' ·' <<<"$line")" = "" ] || printf "  %-12s%s\n" "$tool" "${line% ·}"
  done
}

bench_kind() {
  local kind=$1 url=$2 r
  echo "== $kind: $ROUNDS rounds, $W warehouses, $VU VUs, rampup ${R}s, window ${D}s (peers installed under $PEERS)"
  for r in $(seq "$ROUNDS"); do
    echo "-- round $r ($([ $((r % 2)) -eq 1 ] && echo "peers first" || echo "cairn first"))"
    if [ $((r % 2)) -eq 1 ]; then run_peers "$kind" "$r"; run_cairn "$kind" "$url" "$r"
    else run_cairn "$kind" "$url" "$r"; run_peers "$kind" "$r"; fi
    ratios "$r" "$kind"
  done
  summary "$kind"
}

case $which in
  postgres) bench_kind postgres "$PG" ;;
  mysql) bench_kind mysql "$MY" ;;
  all) bench_kind postgres "$PG"; bench_kind mysql "$MY" ;;
  *) echo "usage: $0 [postgres|mysql|all]" >&2; exit 2 ;;
esac
echo "every figure: $FIG"
