#!/usr/bin/env bash
# Measures what observing costs: oltp point selects at BENCH_CLIENTS VUs (default 16) on
# PostgreSQL and MariaDB (1 table x 1,000,000 rows), each comparison a pair of runs that differ
# in one thing, run alternately in one session (the cheaper side first in odd rounds),
# BENCH_TIME seconds each (default 20), BENCH_ROUNDS rounds (default 5), on the servers in
# BENCH_KINDS (default "postgres mariadb"), for the comparisons in BENCH_PAIRS (default
# "observe stacks running history"); BENCH_PG, BENCH_MYSQL and BENCH_OUT name other databases (made
# on the servers they name when missing) and another output directory:
#
#   observe  --observe on against --observe off: per-core CPU every second, the server's CPU,
#            wait events (PostgreSQL's pg_stat_activity sampled every 100 ms, MariaDB's
#            performance_schema read at the window's edges and each progress line) and the
#            running-threads sampler; wants tps >= 0.99, CPU per transaction <= 1.01
#   stacks   --observe stacks against --observe on: perf sampling the server's on-CPU stacks
#            (cpu-clock, 99 Hz, call graphs, every CPU; started disabled before the run and
#            enabled over the window) and perf script after the window; wants tps >= 0.98
#   running  --observe on against --observe on --running-sample 0s: the running threads of the
#            server and the host's run queue, one read each every 50 ms; wants tps >= 0.99
#   history  --observe on against --observe on --session-history off: the session history (on
#            MySQL/MariaDB one query more every --wait-sample, on PostgreSQL none: it counts the
#            waits' own samples); wants tps >= 0.99, the server's CPU per transaction <= 1.01
#
# Progress lines every 5 s in every run. Each figure is cairn's own: TPS from the result
# document; client CPU per transaction as user+system CPU of the whole process and its children
# (GNU time; perf and perf script are children of cairn) over its transactions; and, from the
# document, cairn's own CPU per transaction in the window (client.cpu_us_per_txn: perf apart) and
# the server's (server.cpu_us_per_txn). Ratios are with/without.
#
# BENCH_AMPLIFY=K (default 1) runs the stacks and running pairs at K times the default rate
# (perf at 99·K Hz, --stacks-hz; a running-threads sample every 50/K ms; for history, both sides'
# wait samples every 100/K ms, --wait-sample): a cost proportional to
# the rate then shows K times over the run-to-run noise, and the ratio's distance from 1, divided
# by K, is the cost at the default rate. The printed targets are for K = 1.
#
# Usage: bench/observe.sh    Needs .ci/servers.sh to have run (and linux-perf for stacks).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
CLIENTS=${BENCH_CLIENTS:-16}
T=${BENCH_TIME:-20}
ROUNDS=${BENCH_ROUNDS:-5}
KINDS=${BENCH_KINDS:-postgres mariadb}
PAIRS=${BENCH_PAIRS:-observe stacks running history}
AMPLIFY=${BENCH_AMPLIFY:-1}
PG=${BENCH_PG:-postgres://cairn:cairn@127.0.0.1:5432/cairn_bench}
MY=${BENCH_MYSQL:-mysql://cairn:cairn@127.0.0.1:3306/cairn_bench}
out=${BENCH_OUT:-$PWD/bench/out/observe}
mkdir -p "$out"
export CAIRN_RESULTS="$out/results.db"
go build -o "$out/cairn" ./cmd/cairn
C="$out/cairn"
# The databases are made on the servers BENCH_PG and BENCH_MYSQL name, not on the default ports.
read -r PGHOST PGPORT PGUSER PGPASSWORD PGDB < <(url_parts "$PG" 5432)
read -r MYHOST MYPORT MYUSER MYPASS MYDB < <(url_parts "$MY" 3306)
export PGHOST PGPORT PGUSER PGPASSWORD MYSQL_PWD=$MYPASS
psql -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$PGDB'" | grep -q 1 ||
  psql -d postgres -qc "CREATE DATABASE \"$PGDB\""
mysql --no-defaults -h "$MYHOST" -P "$MYPORT" -u "$MYUSER" -e "CREATE DATABASE IF NOT EXISTS \`$MYDB\`"
"$C" oltp prepare --db "$PG" --tables 1 --table-size 1000000 | tail -1
"$C" oltp prepare --db "$MY" --tables 1 --table-size 1000000 | tail -1
echo "MariaDB performance_schema: $(mysql --no-defaults -h "$MYHOST" -P "$MYPORT" -u "$MYUSER" -Nse 'SELECT @@performance_schema')"
command -v perf > /dev/null || echo "perf is not installed: the stacks pair measures a run that only says so (apt-get install linux-perf)"

# The two sides of each pair: with, then without, as cairn's observation flags.
declare -A WITH=([observe]="--observe on" [stacks]="--observe stacks --stacks-hz $((99 * AMPLIFY))"
  [running]="--observe on --running-sample $((50000 / AMPLIFY))us" [history]="--observe on --wait-sample $((100000 / AMPLIFY))us")
declare -A WITHOUT=([observe]="--observe off" [stacks]="--observe on" [running]="--observe on --running-sample 0s"
  [history]="--observe on --wait-sample $((100000 / AMPLIFY))us --session-history off")
declare -A WANT=([observe]="tps >= 0.99, cpu/txn <= 1.01" [stacks]="tps >= 0.98" [running]="tps >= 0.99"
  [history]="tps >= 0.99, server cpu/txn <= 1.01")

FIG="$out/figures.txt"
: > "$FIG"
# measure KIND URL PAIR SIDE: one run; records KIND|PAIR|SIDE|tps|cpu per transaction.
measure() {
  local kind=$1 url=$2 pair=$3 side=$4 name="$1-$3-$4" flags
  if [ "$side" = with ]; then flags=${WITH[$pair]}; else flags=${WITHOUT[$pair]}; fi
  # shellcheck disable=SC2086 # flags are words
  /usr/bin/time -f "cpu %U %S" -o "$out/$name.time" "$C" oltp run --db "$url" --workload point-select --vu "$CLIENTS" \
    --rampup 0s --duration "${T}s" --progress 5s $flags --no-store --json "$out/$name.json" > "$out/$name.txt" 2>&1
  local tps txns own srv
  tps=$(python3 -c "import json;print(json.load(open('$out/$name.json'))['result']['tps'])")
  txns=$(python3 -c "import json;d=json.load(open('$out/$name.json'));print(sum(t['count'] for t in d['transactions'].values()))")
  own=$(python3 -c "import json;print(round(json.load(open('$out/$name.json'))['client']['cpu_us_per_txn'],2))")
  srv=$(python3 -c "import json;print(round((json.load(open('$out/$name.json')).get('server') or {}).get('cpu_us_per_txn',0),2))")
  echo "$kind|$pair|$side|$tps|$(cpu_per_txn "$out/$name.time" "$txns")|$own|$srv" >> "$FIG"
}
# field KIND PAIR SIDE ROUND COLUMN: a recorded figure (column 4 tps, 5 cpu per transaction with
# children, 6 cairn's own in the window, 7 the server's).
field() { grep "^$1|$2|$3|" "$FIG" | sed -n "$4p" | cut -d'|' -f"$5"; }
for r in $(seq "$ROUNDS"); do
  for kind in $KINDS; do
    url=$PG; [ "$kind" = mariadb ] && url=$MY
    for pair in $PAIRS; do
      if [ $((r % 2)) -eq 1 ]; then measure "$kind" "$url" "$pair" without; measure "$kind" "$url" "$pair" with
      else measure "$kind" "$url" "$pair" with; measure "$kind" "$url" "$pair" without; fi
      printf "round %d %-9s %-8s with/without: tps ×%s (%s/%s)  cpu/txn ×%s  own cpu/txn ×%s  server cpu/txn ×%s\n" "$r" "$kind" "$pair" \
        "$(ratio "$(field "$kind" "$pair" with "$r" 4)" "$(field "$kind" "$pair" without "$r" 4)" 3)" \
        "$(field "$kind" "$pair" with "$r" 4 | cut -d. -f1)" "$(field "$kind" "$pair" without "$r" 4 | cut -d. -f1)" \
        "$(ratio "$(field "$kind" "$pair" with "$r" 5)" "$(field "$kind" "$pair" without "$r" 5)" 3)" \
        "$(ratio "$(field "$kind" "$pair" with "$r" 6)" "$(field "$kind" "$pair" without "$r" 6)" 3)" \
        "$(ratio "$(field "$kind" "$pair" with "$r" 7)" "$(field "$kind" "$pair" without "$r" 7)" 3)"
    done
  done
done
echo
echo "== with / without at $CLIENTS VUs, medians over $ROUNDS rounds [lowest–highest]"
for pair in $PAIRS; do
  echo "$pair: ${WITH[$pair]} against ${WITHOUT[$pair]} (wants ${WANT[$pair]})"
  for kind in $KINDS; do
    tp=() cp=() op=() sp=()
    for r in $(seq "$ROUNDS"); do
      tp+=("$(ratio_or_empty "$(field "$kind" "$pair" with "$r" 4)" "$(field "$kind" "$pair" without "$r" 4)" 3)")
      cp+=("$(ratio_or_empty "$(field "$kind" "$pair" with "$r" 5)" "$(field "$kind" "$pair" without "$r" 5)" 3)")
      op+=("$(ratio_or_empty "$(field "$kind" "$pair" with "$r" 6)" "$(field "$kind" "$pair" without "$r" 6)" 3)")
      sp+=("$(ratio_or_empty "$(field "$kind" "$pair" with "$r" 7)" "$(field "$kind" "$pair" without "$r" 7)" 3)")
    done
    span() { printf '%s [%s–%s]' "$(printf '%s\n' "$@" | median 3)" "$(printf '%s\n' "$@" | sort -g | head -1)" "$(printf '%s\n' "$@" | sort -g | tail -1)"; }
    printf "  %-9s tps ×%s  cpu/txn ×%s  own cpu/txn ×%s  server cpu/txn ×%s\n" "$kind" \
      "$(span "${tp[@]}")" "$(span "${cp[@]}")" "$(span "${op[@]}")" "$(span "${sp[@]}")"
  done
done
echo "every figure: $FIG (kind|pair|side|tps|client CPU µs per transaction, with children|cairn's own in the window|the server's)"
