#!/usr/bin/env bash
# Measures cairn's TPC-C against the peer figures of shared/reference/peers.md, on the issue's
# conditions: PostgreSQL 15 (shared_buffers=2GB) and MariaDB 10.11 (innodb_buffer_pool_size=2G),
# 4 warehouses, 4 VUs, 30 s rampup, 60 s window, no keying/think time.
#
# HammerDB, BenchBase and go-tpc cannot be installed on this machine (no network beyond the
# package registries; go-tpc is refused by the Go module proxy), so their figures are the ones
# measured on this kind of machine and recorded in peers.md. To tell a slow machine from a slow
# cairn, the script also runs pgbench -S (4 clients, 20 s) in the same session and prints it beside
# peers.md's figure for the same command: a ratio below 1 there means the machine is slower today.
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
out=bench/out
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

bench_one() {
  local kind=$1 url=$2
  echo "== $kind: prepare $W warehouses"
  "$C" tpcc cleanup --db "$url" >/dev/null
  local t0 t1
  t0=$(date +%s.%N)
  "$C" tpcc prepare --db "$url" -w "$W" --seed 1 2>/dev/null | tail -1
  t1=$(date +%s.%N)
  local load
  load=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  echo "prepare: $load s wall (fastest peer ${LOADFASTEST[$kind]} s: speed-up $(ratio "${LOADFASTEST[$kind]}" "$load")×, normalized by the anchor $(ratio "${LOADFASTEST[$kind]}" "$(awk -v a="$load" -v b="$ANCHOR" 'BEGIN{print a*b}')")×; target ≥ 2)"
  for mode in procs sql; do
    "$C" tpcc run --db "$url" --vu "$VU" --rampup "$RAMPUP" --duration "$DURATION" --mode "$mode" \
      --seed 1 --progress 0 --json "$out/$kind-$mode.json" > "$out/$kind-$mode.txt"
    local nopm cpu share
    nopm=$(python3 -c "import json;print(json.load(open('$out/$kind-$mode.json'))['result']['nopm'])")
    cpu=$(python3 -c "import json;print(round(json.load(open('$out/$kind-$mode.json'))['client']['cpu_us_per_txn'],1))")
    share=$(python3 -c "import json;c=json.load(open('$out/$kind-$mode.json'))['client'];print(round(100*c.get('cpu_share_of_rest_of_host',0),1))")
    grep "TEST RESULT" "$out/$kind-$mode.txt"
    if [ "$mode" = procs ]; then
      echo "  procs: $nopm NOPM vs HammerDB ${HAMMERDB[$kind]}: ratio $(ratio "$nopm" "${HAMMERDB[$kind]}"), normalized by the anchor $(ratio "$nopm" "$(awk -v a="${HAMMERDB[$kind]}" -v b="$ANCHOR" 'BEGIN{print a*b}')") (target ≥ 1.2); client CPU $cpu µs/txn = $share% of the rest of the host"
    else
      echo "  sql:   $nopm NOPM vs best client-SQL peer ${CLIENTSQL[$kind]}: ratio $(ratio "$nopm" "${CLIENTSQL[$kind]}"), normalized by the anchor $(ratio "$nopm" "$(awk -v a="${CLIENTSQL[$kind]}" -v b="$ANCHOR" 'BEGIN{print a*b}')") (target ≥ 1.2); client CPU $cpu µs/txn = $share% of the rest of the host"
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
