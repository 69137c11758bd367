#!/usr/bin/env bash
# Measures what observing costs: oltp point selects at BENCH_CLIENTS VUs (default 16) on
# PostgreSQL and MariaDB (1 table x 1,000,000 rows), with --observe on (per-core CPU every second,
# the server's CPU, wait events: PostgreSQL's pg_stat_activity sampled every 100 ms, MariaDB's
# performance_schema read at the window's edges and each progress line) and --observe off, run
# alternately in one session (off first in odd rounds), BENCH_TIME seconds each (default 20),
# BENCH_ROUNDS rounds (default 5), on the servers in BENCH_KINDS (default "postgres mariadb").
# Progress lines every 5 s in both, so that the cost of reading the waits per interval is counted.
#
# Each figure is cairn's own: TPS from the result document, and client CPU per transaction as
# user+system CPU of the whole process (GNU time) over its transactions. Ratios are on/off:
# throughput wants >= 0.99 and CPU per transaction <= 1.01 (issue 19's "under 1%").
#
# Usage: bench/observe.sh    Needs .ci/servers.sh to have run.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
CLIENTS=${BENCH_CLIENTS:-16}
T=${BENCH_TIME:-20}
ROUNDS=${BENCH_ROUNDS:-5}
KINDS=${BENCH_KINDS:-postgres mariadb}
PG=postgres://cairn:cairn@127.0.0.1:5432/cairn_bench
MY=mysql://cairn:cairn@127.0.0.1:3306/cairn_bench
out=$PWD/bench/out/observe
mkdir -p "$out"
export CAIRN_RESULTS="$out/results.db" PGPASSWORD=cairn
go build -o "$out/cairn" ./cmd/cairn
C="$out/cairn"
psql -h 127.0.0.1 -U cairn -d cairn -tAc "SELECT 1 FROM pg_database WHERE datname = 'cairn_bench'" | grep -q 1 ||
  psql -h 127.0.0.1 -U cairn -d cairn -qc "CREATE DATABASE cairn_bench"
mysql -h 127.0.0.1 -u cairn -pcairn -e "CREATE DATABASE IF NOT EXISTS cairn_bench" 2>/dev/null
"$C" oltp prepare --db "$PG" --tables 1 --table-size 1000000 | tail -1
"$C" oltp prepare --db "$MY" --tables 1 --table-size 1000000 | tail -1
echo "MariaDB performance_schema: $(mysql -h 127.0.0.1 -u cairn -pcairn -Nse 'SELECT @@performance_schema' 2>/dev/null)"

FIG="$out/figures.txt"
: > "$FIG"
# measure KIND URL MODE: one run; records KIND|MODE|tps|cpu per transaction.
measure() {
  local kind=$1 url=$2 mode=$3 name="$1-$3"
  /usr/bin/time -f "cpu %U %S" -o "$out/$name.time" "$C" oltp run --db "$url" --workload point-select --vu "$CLIENTS" \
    --rampup 0s --duration "${T}s" --progress 5s --observe "$mode" --no-store --json "$out/$name.json" > "$out/$name.txt" 2>&1
  local tps txns
  tps=$(python3 -c "import json;print(json.load(open('$out/$name.json'))['result']['tps'])")
  txns=$(python3 -c "import json;d=json.load(open('$out/$name.json'));print(sum(t['count'] for t in d['transactions'].values()))")
  echo "$kind|$mode|$tps|$(cpu_per_txn "$out/$name.time" "$txns")" >> "$FIG"
}
for r in $(seq "$ROUNDS"); do
  for kind in $KINDS; do
    url=$PG; [ $kind = mariadb ] && url=$MY
    if [ $((r % 2)) -eq 1 ]; then measure $kind "$url" off; measure $kind "$url" on; else measure $kind "$url" on; measure $kind "$url" off; fi
    on=$(grep "^$kind|on|" "$FIG" | tail -1) off=$(grep "^$kind|off|" "$FIG" | tail -1)
    printf "round %d %-9s on/off: tps ×%s  cpu/txn ×%s\n" "$r" "$kind" "$(ratio "$(cut -d'|' -f3 <<<"$on")" "$(cut -d'|' -f3 <<<"$off")" 3)" \
      "$(ratio "$(cut -d'|' -f4 <<<"$on")" "$(cut -d'|' -f4 <<<"$off")" 3)"
  done
done
echo
echo "== --observe on / off at $CLIENTS VUs, medians over $ROUNDS rounds (tps wants >= 0.99, cpu/txn <= 1.01)"
for kind in $KINDS; do
  tp=() cp=()
  for r in $(seq "$ROUNDS"); do
    on=$(grep "^$kind|on|" "$FIG" | sed -n "${r}p") off=$(grep "^$kind|off|" "$FIG" | sed -n "${r}p")
    tp+=("$(ratio "$(cut -d'|' -f3 <<<"$on")" "$(cut -d'|' -f3 <<<"$off")" 3)")
    cp+=("$(ratio "$(cut -d'|' -f4 <<<"$on")" "$(cut -d'|' -f4 <<<"$off")" 3)")
  done
  printf "%-9s tps ×%s  cpu/txn ×%s   (rounds: tps %s; cpu %s)\n" "$kind" "$(printf '%s\n' "${tp[@]}" | median 3)" \
    "$(printf '%s\n' "${cp[@]}" | median 3)" "${tp[*]}" "${cp[*]}"
done
echo "every figure: $FIG (kind|observe|tps|client CPU µs per transaction)"
