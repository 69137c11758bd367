#!/usr/bin/env bash
# Measures cairn's TPC-C against the peer figures of shared/reference/peers.md, on the issue's
# conditions: PostgreSQL 15 (shared_buffers=2GB) and MariaDB 10.11 (innodb_buffer_pool_size=2G),
# 4 warehouses, 4 VUs, 30 s rampup, 60 s window, no keying/think time.
#
# Peers run beside cairn in the same session when they are installed under $PEERS (default
# /opt/peers; none of them is part of this repository, and nothing here builds them):
#   $PEERS/bin/go-tpc                      go-tpc, built from github.com/pingcap/go-tpc
#   $PEERS/benchbase-{postgres,mariadb}/   BenchBase's unpacked release (cmu-db/benchbase), with
#                                          $BENCH_JAVA (default Temurin 25) to run it
#   $PEERS/hammerdb/                       HammerDB, run with $PEERS/hammerdb/run.sh SCRIPT.tcl
# Each peer gets the same server, the same warehouses, VUs, rampup and window, and its own
# database (peer_*), dropped afterwards. Without a peer, its figure comes from peers.md instead,
# and the script runs pgbench -S (4 clients, 20 s) as an anchor to tell a slow machine from a slow
# cairn: a ratio below 1 there means the machine is slower today than when peers.md was written.
#
# Usage: bench/tpcc.sh [postgres|mysql|all]   (default all). Needs .ci/servers.sh to have run.
# Environment: BENCH_RAMPUP (30s), BENCH_DURATION (60s), BENCH_WAREHOUSES (4), BENCH_VU (4).
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}
RAMPUP=${BENCH_RAMPUP:-30s}
DURATION=${BENCH_DURATION:-60s}
W=${BENCH_WAREHOUSES:-4}
VU=${BENCH_VU:-4}
PG=${BENCH_PG:-postgres://cairn:cairn@127.0.0.1:5432/cairn}
MY=${BENCH_MYSQL:-mysql://cairn:cairn@127.0.0.1:3306/cairn}
out=$PWD/bench/out
mkdir -p "$out"
go build -o "$out/cairn" ./cmd/cairn
C="$out/cairn"

# Peer figures from shared/reference/peers.md (same machine kind, same conditions).
declare -A HAMMERDB=([postgres]=58684 [mysql]=34022)
declare -A CLIENTSQL=([postgres]=30163 [mysql]=24405)   # best client-SQL peer: BenchBase on both
declare -A LOADFASTEST=([postgres]=20.0 [mysql]=13.5)    # go-tpc's load of 4 warehouses
PGBENCH_REF=34627                                        # pgbench -S -M prepared, 4 clients

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
ANCHOR=1   # today's pgbench -S over peers.md's; peer figures are scaled by it for the "normalized" ratios

anchor() {
  if command -v pgbench >/dev/null; then
    PGPASSWORD=cairn pgbench -h 127.0.0.1 -U cairn -i -s 10 -q cairn >/dev/null 2>&1
    tps=$(PGPASSWORD=cairn pgbench -h 127.0.0.1 -U cairn -S -M prepared -c 4 -j 4 -T 20 cairn 2>/dev/null |
      awk '/^tps/ { print int($3) }')
    ANCHOR=$(ratio "$tps" "$PGBENCH_REF")
    echo "machine anchor: pgbench -S -M prepared -c 4: $tps tps now vs $PGBENCH_REF in peers.md (ratio $ANCHOR)"
    PGPASSWORD=cairn psql -h 127.0.0.1 -U cairn -q -c "DROP TABLE IF EXISTS pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers" cairn
  fi
}

source bench/quiesce.sh

PEERS=${PEERS:-/opt/peers}
JAVA=${BENCH_JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
# cpu_run OUT CMD…: runs CMD with its output in OUT and sets CPU_SHARE to the CPU time of CMD and
# its children as a percentage of the rest of the host's busy CPU time over the same span (the
# definition of cairn's client.cpu_share_of_rest_of_host, except that it spans the peer's whole
# run: its rampup, and a JVM's start and JIT, are in it).
cpu_run() {
  local o=$1; shift
  CPU_SHARE=$(python3 - "$o" "$@" <<'PY'
import os, resource, subprocess, sys
def busy():
    v = [int(x) for x in open("/proc/stat").readline().split()[1:9]]
    return (sum(v) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")
def mine():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
h0, c0 = busy(), mine()
with open(sys.argv[1], "w") as f:
    subprocess.run(sys.argv[2:], stdout=f, stderr=subprocess.STDOUT)
h, c = busy() - h0, mine() - c0
print("%.1f" % (100 * c / (h - c)) if h > c else "n/a")
PY
)
}

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
rampsecs() { echo "${1%s}"; }   # "30s" -> 30 (the script takes durations in seconds)

# peer_gotpc KIND: go-tpc's load (-T one thread per warehouse, no post-load check) and a run of
# rampup+window seconds; go-tpc has no rampup, so its tpmC covers the whole run (as peers.md notes).
peer_gotpc() {
  local kind=$1 d port
  [ -x "$PEERS/bin/go-tpc" ] || return 0
  if [ "$kind" = postgres ]; then d=postgres; port=5432; else d=mysql; port=3306; fi
  local g=("$PEERS/bin/go-tpc" tpcc -d "$d" -H 127.0.0.1 -P "$port" -U cairn -p cairn -D peer_gotpc --warehouses "$W")
  [ "$kind" = postgres ] && g+=(--conn-params sslmode=disable)
  "${g[@]}" cleanup >/dev/null 2>&1 || true
  quiesce "$kind"
  local t0 t1; t0=$(date +%s.%N)
  "${g[@]}" prepare -T "$W" --no-check > "$out/gotpc-$kind-prepare.txt" 2>&1
  t1=$(date +%s.%N)
  GOTPC_LOAD=$(secs "$t0" "$t1")
  quiesce "$kind"
  cpu_run "$out/gotpc-$kind-run.txt" "${g[@]}" run -T "$VU" --time "$(( $(rampsecs "$RAMPUP") + $(rampsecs "$DURATION") ))s"
  GOTPC_TPMC=$(awk '/^tpmC:/ { gsub(",", "", $2); print int($2) }' "$out/gotpc-$kind-run.txt" | tail -1)
  "${g[@]}" cleanup >/dev/null 2>&1 || true
  echo "  go-tpc:    load $GOTPC_LOAD s, $GOTPC_TPMC tpmC (client SQL; its figure includes the rampup); client CPU $CPU_SHARE% of the rest of the host"
}

# peer_benchbase KIND: BenchBase's create+load, then warmup+window; tpmC = NewOrder rows of the
# measured window in raw.csv per minute of its elapsed time (its own figure is requests/s of all types).
peer_benchbase() {
  local kind=$1 dir
  if [ "$kind" = postgres ]; then dir=$PEERS/benchbase-postgres; else dir=$PEERS/benchbase-mariadb; fi
  [ -f "$dir/benchbase.jar" ] && [ -x "$JAVA" ] || return 0
  local cfg=$dir/cairn-bench.xml src
  src=$(ls "$dir"/tpcc_*.xml | head -1)
  sed -e "s|<scalefactor>[0-9]*</scalefactor>|<scalefactor>$W</scalefactor>|" \
      -e "s|<terminals>[0-9]*</terminals>|<terminals>$VU</terminals>|" \
      -e "s|<warmup>[0-9]*</warmup>|<warmup>$(rampsecs "$RAMPUP")</warmup>|" \
      -e "s|<time>[0-9]*</time>|<time>$(rampsecs "$DURATION")</time>|" "$src" > "$cfg"
  peer_db_drop "$kind" peer_benchbase; peer_db_create "$kind" peer_benchbase
  rm -rf "$dir/results"
  quiesce "$kind"
  local t0 t1; t0=$(date +%s.%N)
  (cd "$dir" && "$JAVA" -jar benchbase.jar -b tpcc -c "$(basename "$cfg")" --create=true --load=true > "$out/benchbase-$kind-load.txt" 2>&1)
  t1=$(date +%s.%N)
  BB_LOAD=$(secs "$t0" "$t1")
  quiesce "$kind"
  (cd "$dir" && cpu_run "$out/benchbase-$kind-run.txt" "$JAVA" -jar benchbase.jar -b tpcc -c "$(basename "$cfg")" --execute=true
   echo "$CPU_SHARE" > "$out/benchbase-$kind-cpu")
  CPU_SHARE=$(cat "$out/benchbase-$kind-cpu")
  BB_TPMC=$(python3 - "$dir/results" <<'PY'
import glob, json, sys, csv
d = sys.argv[1]
summ = json.load(open(glob.glob(d + "/*.summary.json")[0]))
el = summ["Elapsed Time (nanoseconds)"] / 1e9
with open(glob.glob(d + "/*.raw.csv")[0]) as f:
    n = sum(1 for r in csv.reader(f) if len(r) > 1 and r[1] == "NewOrder")
print(int(n * 60 / el))
PY
)
  peer_db_drop "$kind" peer_benchbase
  echo "  BenchBase: load $BB_LOAD s (create + load, including the JVM's start), $BB_TPMC tpmC (client SQL: NewOrder rows of the measured window per minute); client CPU $CPU_SHARE% of the rest of the host (with the JVM's start)"
}

# peer_hammerdb KIND: HammerDB's TPROC-C with stored procedures (bench/hammerdb/tpcc_*.tcl): schema
# build with one VU per warehouse, then rampup + window with $VU VUs, no keying/thinking time.
# Needs superuser accounts peer_hammer/peer_hammer on both servers (PostgreSQL: a superuser role;
# MariaDB: 'peer_hammer'@'127.0.0.1' with ALL on peer_hammerdb.*).
peer_hammerdb() {
  local kind=$1 k
  [ -f "$PEERS/hammerdb/hammerdbcli" ] || return 0
  # A run that was interrupted leaves HammerDB's database behind, and HammerDB refuses to build into it.
  if [ "$kind" = postgres ]; then peer_db_drop postgres peer_hammerdb
  else mysql -h 127.0.0.1 -u peer_hammer -ppeer_hammer -e "DROP DATABASE IF EXISTS peer_hammerdb" 2>/dev/null || true; fi
  quiesce "$kind"
  if [ "$kind" = postgres ]; then k=pg; else k=my; fi
  cp "bench/hammerdb/tpcc_$k.tcl" "$PEERS/hammerdb/cairn_tpcc_$k.tcl"
  local settle="bash $PWD/bench/quiesce.sh $kind"   # $PWD before the cd below
  (cd "$PEERS/hammerdb" && TMP=$PEERS/hammerdb/tmp TCLLIBPATH=$PEERS/hammerdb/lib \
    HDB_WAREHOUSES=$W HDB_VU=$VU HDB_RAMPUP=$(awk -v s="$(rampsecs "$RAMPUP")" 'BEGIN { print s / 60 }') \
    HDB_DURATION=$(awk -v s="$(rampsecs "$DURATION")" 'BEGIN { print s / 60 }') \
    HDB_SETTLE="$settle" \
    tclsh8.6 hammerdbcli auto "cairn_tpcc_$k.tcl" > "$out/hammerdb-$kind.txt" 2>&1)
  HDB_LOAD=$(awk '/HDB: SCHEMA BUILD COMPLETED/ { print $(NF-1) }' "$out/hammerdb-$kind.txt")
  HDB_NOPM=$(grep -o "achieved [0-9.]* NOPM" "$out/hammerdb-$kind.txt" | awk '{ print int($2) }' | tail -1)
  echo "  HammerDB:  load $HDB_LOAD s, $HDB_NOPM NOPM (stored procedures): $(grep -o "TEST RESULT.*" "$out/hammerdb-$kind.txt" | tail -1)"
}

peer_db_create() {
  if [ "$1" = postgres ]; then PGPASSWORD=cairn psql -h 127.0.0.1 -U cairn -d cairn -qc "CREATE DATABASE $2";
  else mysql -h 127.0.0.1 -u cairn -pcairn -e "CREATE DATABASE $2"; fi
}
peer_db_drop() {
  if [ "$1" = postgres ]; then PGPASSWORD=cairn psql -h 127.0.0.1 -U cairn -d cairn -qc "DROP DATABASE IF EXISTS $2" 2>/dev/null;
  else mysql -h 127.0.0.1 -u cairn -pcairn -e "DROP DATABASE IF EXISTS $2"; fi
}

bench_one() {
  local kind=$1 url=$2
  GOTPC_LOAD=; GOTPC_TPMC=; BB_LOAD=; BB_TPMC=; HDB_LOAD=; HDB_NOPM=
  echo "== $kind: peers in this session (those installed under $PEERS)"
  peer_hammerdb "$kind"
  peer_gotpc "$kind"
  peer_benchbase "$kind"
  local A=$ANCHOR
  if [ -n "$HDB_NOPM$GOTPC_TPMC$BB_TPMC" ]; then   # same-session peers need no anchor
    A=1; echo "  (the peer figures below were measured in this session, so 'normalized' equals the raw ratio)"
  fi
  [ -n "$HDB_NOPM" ] && HAMMERDB[$kind]=$HDB_NOPM
  local best=0 bestload=
  for v in $GOTPC_TPMC $BB_TPMC; do [ "$v" -gt "$best" ] && best=$v; done
  [ "$best" -gt 0 ] && CLIENTSQL[$kind]=$best
  for v in $GOTPC_LOAD $BB_LOAD $HDB_LOAD; do
    if [ -z "$bestload" ] || awk -v a="$v" -v b="$bestload" 'BEGIN { exit !(a < b) }'; then bestload=$v; fi
  done
  [ -n "$bestload" ] && LOADFASTEST[$kind]=$bestload
  echo "== $kind: prepare $W warehouses"
  "$C" tpcc cleanup --db "$url" >/dev/null
  quiesce "$kind"
  local t0 t1
  t0=$(date +%s.%N)
  "$C" tpcc prepare --db "$url" -w "$W" --seed 1 2>/dev/null | tail -1
  t1=$(date +%s.%N)
  local load
  load=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  echo "prepare: $load s wall (fastest peer ${LOADFASTEST[$kind]} s: speed-up $(ratio "${LOADFASTEST[$kind]}" "$load")×, normalized by the anchor $(ratio "${LOADFASTEST[$kind]}" "$(awk -v a="$load" -v b="$A" 'BEGIN{print a*b}')")×; target ≥ 2)"
  for mode in procs sql; do
    quiesce "$kind"
    "$C" tpcc run --db "$url" --vu "$VU" --rampup "$RAMPUP" --duration "$DURATION" --mode "$mode" \
      --seed 1 --progress 0 --json "$out/$kind-$mode.json" > "$out/$kind-$mode.txt"
    local nopm cpu share
    nopm=$(python3 -c "import json;print(json.load(open('$out/$kind-$mode.json'))['result']['nopm'])")
    cpu=$(python3 -c "import json;print(round(json.load(open('$out/$kind-$mode.json'))['client']['cpu_us_per_txn'],1))")
    share=$(python3 -c "import json;c=json.load(open('$out/$kind-$mode.json'))['client'];print(round(100*c.get('cpu_share_of_rest_of_host',0),1))")
    grep "TEST RESULT" "$out/$kind-$mode.txt"
    if [ "$mode" = procs ]; then
      echo "  procs: $nopm NOPM vs HammerDB ${HAMMERDB[$kind]}: ratio $(ratio "$nopm" "${HAMMERDB[$kind]}"), normalized by the anchor $(ratio "$nopm" "$(awk -v a="${HAMMERDB[$kind]}" -v b="$A" 'BEGIN{print a*b}')") (target ≥ 1.2); client CPU $cpu µs/txn = $share% of the rest of the host"
    else
      echo "  sql:   $nopm NOPM vs best client-SQL peer ${CLIENTSQL[$kind]}: ratio $(ratio "$nopm" "${CLIENTSQL[$kind]}"), normalized by the anchor $(ratio "$nopm" "$(awk -v a="${CLIENTSQL[$kind]}" -v b="$A" 'BEGIN{print a*b}')") (target ≥ 1.2); client CPU $cpu µs/txn = $share% of the rest of the host"
    fi
  done
  "$C" tpcc check --db "$url" | tail -1
}

anchor
case $which in
  postgres) bench_one postgres "$PG" ;;
  mysql) bench_one mysql "$MY" ;;
  all) bench_one postgres "$PG"; bench_one mysql "$MY" ;;
  *) echo "usage: $0 [postgres|mysql|all]" >&2; exit 2 ;;
esac
