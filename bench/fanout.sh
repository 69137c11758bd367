#!/usr/bin/env bash
# Measures the fan-out's load generator (issue 29): cairn's client CPU per physical statement of
# `cairn fanout run` against its CPU per point select of `cairn oltp run --workload point-select`,
# on the same MariaDB server, run alternately in one session; and the fan-out's own scheduling
# delay per statement (from when a statement could be sent to when cairn sends it), which says
# whether cairn is a short board itself. BENCH_SHARDS databases (default 8) on BENCH_MYSQL's server
# (default 127.0.0.1:3306) are the shard set, BENCH_ROWS rows each (default 100000); the fan-out
# runs at BENCH_CLIENTS VUs (default "4 16"), each of BENCH_PARALLELISM statements in flight (default 8; a list, e.g. "1 4"),
# with each --protocol in BENCH_PROTOCOLS (default "prepared commented"), BENCH_TIME seconds per run
# (default 20), BENCH_ROUNDS rounds (default 1; the median ratio over them is printed). The
# point selects read one table of BENCH_OLTP_ROWS rows (default 1,000,000). BENCH_SET (a shard
# set) and BENCH_ONE (a database) name databases of your own instead of those made on BENCH_MYSQL.
#
# CPU per statement: user+system CPU of the cairn process over the measured window (the result's
# client.cpu_seconds) divided by the statements it sent in the window (the fan-out's
# extra.fanout.statements, the point selects' queries); the ratio fanout/oltp wants <= 1. The
# whole process's CPU (GNU time: connecting, rampup, the end included) per window statement is
# printed beside it ("whole"). Physical QPS is the fan-out's statements per second,
# for comparison with the point selects' QPS at the same VUs: the servers' capacity on this host.
#
# The fan-out's clock: "fanout ticks" is the window's per-second points per second of it (1.00 when
# the run's clock read every second on time), the longest gap between two of them (1 s on time;
# more than 1.5 s marks the run late_ticks), the window as the database's snapshots bound it
# against its plan (over plan beyond max(1 s, 2%)), and the run's not_as_planned codes ("-": none).
#
# One shard per request: the fan-out's statement sent by the same VU loop with --fanout 1
# --parallelism 1 (one connection per VU, oltp's shape) runs in each round too, so that the ratio
# splits in two: one-shard/oltp is what the statement costs the client (a heavier statement leaves
# the CPUs idle more, and each wake-up costs more), fanout/one-shard what fanning it out costs.
#
# One process or two: the fan-out at BENCH_SPLIT_VUS VUs (default 16; 0 skips it), with the last of
# BENCH_PARALLELISM and the first of BENCH_PROTOCOLS, in one cairn process and in two at half the
# VUs each at the same time, alternately; the physical QPS of one over the sum of the two wants
# >= 0.95 (a cairn that were the short board would serve fewer statements alone than two of it).
#
# Usage: bench/fanout.sh   (needs .ci/servers.sh's MariaDB, or BENCH_MYSQL)
set -euo pipefail
cd "$(dirname "$0")/.."
SHARDS=${BENCH_SHARDS:-8}
ROWS=${BENCH_ROWS:-100000}
CLIENTS=${BENCH_CLIENTS:-4 16}
PAR=${BENCH_PARALLELISM:-8}
PROTOCOLS=${BENCH_PROTOCOLS:-prepared commented}
T=${BENCH_TIME:-20}
ROUNDS=${BENCH_ROUNDS:-1}
SERVER=${BENCH_MYSQL:-mysql://cairn:cairn@127.0.0.1:3306}
out=${BENCH_OUT:-bench/out}
mkdir -p "$out"
go build -o "$out/cairn" ./cmd/cairn
C="$out/cairn"
export CAIRN_RESULTS="$out/results.db"
. bench/lib.sh

hostport=${SERVER#*@}
SET=${BENCH_SET:-}
ONE=${BENCH_ONE:-}
if [ -z "$SET" ] || [ -z "$ONE" ]; then
  user=${SERVER#mysql://}; user=${user%%@*}
  my() { mysql -h "${hostport%:*}" -P "${hostport#*:}" -u "${user%%:*}" -p"${user#*:}" -e "$1" 2>/dev/null; }
  for i in $(seq 0 $((SHARDS - 1))); do my "CREATE DATABASE IF NOT EXISTS cairn_bench_fan_$i"; done
  my "CREATE DATABASE IF NOT EXISTS cairn_bench_fan_oltp"
  SET="$SERVER/cairn_bench_fan_{0..$((SHARDS - 1))}"
  ONE="$SERVER/cairn_bench_fan_oltp"
fi
"$C" fanout prepare --db "$SET" --rows "$ROWS" --seed 1 >/dev/null
"$C" oltp prepare --db "$ONE" --tables 1 --table-size "${BENCH_OLTP_ROWS:-1000000}" --seed 1 >/dev/null

run() { # name args...: runs cairn with --json; sets STMTS, QPS, CPU and WHOLE (µs per statement), SCHED, TICKS
  local name=$1; shift
  /usr/bin/time -f "cpu %U %S" -o "$out/$name.time" "$C" "$@" --duration "${T}s" --rampup 2s --progress 0 --no-store \
    --json "$out/$name.json" > "$out/$name.txt"
  read -r STMTS QPS CPU SCHED TICKS < <(python3 - "$out/$name.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = d.get("extra", {}).get("fanout")
if f:
    n, qps, sched = f["statements"], f["statements_per_s"], "%s/%s/%s" % (f["sched_delay_ms"]["p50"], f["sched_delay_ms"]["p99"], f["sched_delay_ms"]["max"])
else:
    n, qps, sched = d["queries"]["total"], round(d["queries"]["per_second"], 1), "-"
# The per-second series: the window's points per second of it, the longest gap between two (from
# the window's start on), and the window (as the database's snapshots bound it) against its plan,
# with the run's not_as_planned codes if any.
w = d["window"]
pts, prev, gap = 0, w["rampup_seconds"], 0.0
for s in d.get("timeseries") or []:
    if s["window"]:
        pts, gap, prev = pts + 1, max(gap, s["t"] - prev), s["t"]
marks = ",".join(r["code"] for r in d.get("not_as_planned") or []) or "-"
ticks = "%.2f/s,gap%.2fs,%.2f/%gs,%s" % (pts / w["client_seconds"] if w["client_seconds"] else 0, gap, w["seconds"], w["planned_seconds"], marks)
print(n, qps, "%.1f" % (d["client"]["cpu_seconds"] * 1e6 / n) if n else "n/a", sched, ticks)
PY
)
  WHOLE=$(cpu_per_txn "$out/$name.time" "$STMTS")
}
RATIOS="$out/fanout-ratios.txt"
: > "$RATIOS"
echo "cairn fan-out over $(echo "$SET" | sed "s/:[^:@]*@/:xxxxx@/"), $ROWS rows each, ${T}s runs"
printf "%-28s %4s  %10s %7s %7s  %10s %7s  %10s %7s %7s  %-22s %-40s %s\n" "round protocol" "VUs" "oltp qps" "µs/stmt" "whole" \
  "1-shard qps" "µs/stmt" "fanout qps" "µs/stmt" "whole" "sched p50/p99/max ms" "fanout ticks,max gap,window/plan,marks" "cpu × oltp (1-shard/oltp, fanout/1-shard)"
for r in $(seq 1 "$ROUNDS"); do
  for n in $CLIENTS; do
    for par in $PAR; do
      for p in $PROTOCOLS; do
        o() { run "oltp-$n" oltp run --db "$ONE" --workload point-select --vu "$n"; OQPS=$QPS OCPU=$CPU OWHOLE=$WHOLE; }
        s() { run "one-$p-$n" fanout run --db "$SET" --vu "$n" --fanout 1 --parallelism 1 --protocol "$p"; SQPS=$QPS SCPU=$CPU; }
        f() { run "fanout-$p-$par-$n" fanout run --db "$SET" --vu "$n" --parallelism "$par" --protocol "$p"; FQPS=$QPS FCPU=$CPU FWHOLE=$WHOLE FSCHED=$SCHED FTICKS=$TICKS; }
        if [ $((r % 2)) -eq 1 ]; then o; s; f; else f; s; o; fi
        rc=$(ratio "$FCPU" "$OCPU")
        printf "%-28s %4s  %10s %7s %7s  %10s %7s  %10s %7s %7s  %-22s %-40s %s (%s, %s)\n" "round $r $p par $par" "$n" "$OQPS" "$OCPU" "$OWHOLE" \
          "$SQPS" "$SCPU" "$FQPS" "$FCPU" "$FWHOLE" "$FSCHED" "$FTICKS" "$rc" "$(ratio "$SCPU" "$OCPU")" "$(ratio "$FCPU" "$SCPU")"
        echo "$p par $par|$n|$rc|$(ratio "$SCPU" "$OCPU")|$(ratio "$FCPU" "$SCPU")" >> "$RATIOS"
      done
    done
  done
done
if [ "$ROUNDS" -gt 1 ]; then
  echo "== medians over $ROUNDS rounds (fanout CPU per statement / oltp CPU per point select; wants <= 1)"
  cut -d'|' -f1,2 "$RATIOS" | awk '!seen[$0]++' | while IFS= read -r key; do
    printf "%-20s %4s  cpu ×%s (1-shard/oltp %s, fanout/1-shard %s)\n" "${key%%|*}" "${key#*|}" "$(grep -F "$key|" "$RATIOS" | cut -d'|' -f3 | median)" \
      "$(grep -F "$key|" "$RATIOS" | cut -d'|' -f4 | median)" "$(grep -F "$key|" "$RATIOS" | cut -d'|' -f5 | median)"
  done
fi

SPLIT=${BENCH_SPLIT_VUS:-16}
if [ "$SPLIT" -gt 1 ]; then
  sp=${PAR##* } sproto=${PROTOCOLS%% *}
  echo "== one cairn process against two at $((SPLIT / 2)) VUs each: $SPLIT VUs in all, $sp in flight, $sproto (physical statements/s)"
  SPLITS="$out/fanout-split.txt"
  : > "$SPLITS"
  for r in $(seq 1 "$ROUNDS"); do
    one() { run split-one fanout run --db "$SET" --vu "$SPLIT" --parallelism "$sp" --protocol "$sproto"; ONEQ=$QPS; }
    two() {
      local pids=() k
      for k in a b; do
        "$C" fanout run --db "$SET" --vu $((SPLIT / 2)) --parallelism "$sp" --protocol "$sproto" --duration "${T}s" --rampup 2s \
          --progress 0 --no-store --json "$out/split-$k.json" > "$out/split-$k.txt" &
        pids+=($!)
      done
      wait "${pids[@]}"
      TWOQ=$(python3 -c 'import json, sys; print(round(sum(json.load(open(f))["extra"]["fanout"]["statements_per_s"] for f in sys.argv[1:]), 1))' "$out/split-a.json" "$out/split-b.json")
    }
    if [ $((r % 2)) -eq 1 ]; then one; two; else two; one; fi
    rs=$(ratio "$ONEQ" "$TWOQ")
    printf "round %-3s one process %10s   two processes %10s   one/two %s\n" "$r" "$ONEQ" "$TWOQ" "$rs"
    echo "$rs" >> "$SPLITS"
  done
  if [ "$ROUNDS" -gt 1 ]; then echo "median one/two: $(median < "$SPLITS") (wants >= 0.95)"; fi
fi
