#!/usr/bin/env bash
# Measures a change of cairn against cairn before it: the working tree's build ("new") and the
# build of BASE, a git revision (default HEAD), run alternately in one session on the same data,
# the base first in odd rounds and the new build first in even ones. The cases are those of
# bench/micro.sh and bench/tpcc.sh, where the speed ratios against the peers are kept:
#   - tpcb --script select-only (PostgreSQL, scale 10), and oltp --workload point-select
#     (PostgreSQL and MariaDB, 1 table x 1,000,000 rows), at each VU count in BENCH_CLIENTS
#     (default "4 16"), BENCH_TIME seconds each (default 20);
#   - TPC-C with 4 VUs on 4 warehouses, --mode procs and --mode sql, on PostgreSQL and MariaDB,
#     rampup 10 s and a window of BENCH_TPCC_TIME seconds (default 30);
#   - a TPC-C load of 4 warehouses on each server.
# Each figure is cairn's own, read the same way from both builds: TPS or NOPM from the result
# document, client CPU per transaction over the window from the document, load seconds by wall
# clock. Ratios are new/base: throughput wants >= 1, CPU per transaction and load time <= 1; on
# this noisy machine a ratio within about 5% of 1 is noise. The client's CPU as a share of the
# server's (both per transaction over the window, from the result document, the server's process
# found by its listening socket) is printed too, per build, for the runs of a local server.
# BENCH_ROUNDS (default 3) rounds; the medians over the rounds are printed last.
#
# BENCH_FLAGS (default none) are more flags for every run of both builds: "--observe on" measures
# what a change to the observers costs, "--observe on --wait-sample 10ms" the same at ten times
# the samplers' rate.
# BENCH_BASE_BIN, a cairn binary, is the base instead of BASE's build: for a revision that does not
# build as committed (8e94ed6^, the build before the MySQL wire, lacks internal/serve/ui, committed
# later: build it with that directory from 492afa6).
# BENCH_CASES, a bash regular expression (default: every case), picks the cases by name (as printed:
# pg-select-only-4, mariadb-point-select-16, mariadb-tpcc-sql, pg-tpcc-load, …); a TPC-C run whose
# load is not picked runs on a schema the working tree's build loads once.
# BENCH_PG_DB and BENCH_MYSQL_DB (default cairn_bench) name the point selects' databases,
# BENCH_TPCC_DB (default cairn_regress_tpcc) the TPC-C one on each server, BENCH_PG_HOST and
# BENCH_PG_PORT (default 127.0.0.1 and 5432) the PostgreSQL server, and BENCH_MYSQL_HOST and
# BENCH_MYSQL_PORT (default 127.0.0.1 and 3306) the MariaDB server: private servers (a developer's,
# or a second pair) keep the comparison apart from whatever else uses the shared ones.
#
# Usage: bench/regress.sh [BASE]    Needs .ci/servers.sh to have run.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
base=${1:-HEAD}
CLIENTS=${BENCH_CLIENTS:-4 16}
T=${BENCH_TIME:-20}
TT=${BENCH_TPCC_TIME:-30}
ROUNDS=${BENCH_ROUNDS:-3}
read -ra FLAGS <<< "${BENCH_FLAGS:-}"
PGDB=${BENCH_PG_DB:-cairn_bench}
MYDB=${BENCH_MYSQL_DB:-cairn_bench}
TDB=${BENCH_TPCC_DB:-cairn_regress_tpcc}
PGHOST_=${BENCH_PG_HOST:-127.0.0.1}
PGPORT_=${BENCH_PG_PORT:-5432}
MYHOST=${BENCH_MYSQL_HOST:-127.0.0.1}
MYPORT=${BENCH_MYSQL_PORT:-3306}
PG=postgres://cairn:cairn@$PGHOST_:$PGPORT_/$PGDB
MY=mysql://cairn:cairn@$MYHOST:$MYPORT/$MYDB
TPG=postgres://cairn:cairn@$PGHOST_:$PGPORT_/$TDB
TMY=mysql://cairn:cairn@$MYHOST:$MYPORT/$TDB
out=$PWD/bench/out/regress
mkdir -p "$out"
export CAIRN_RESULTS="$out/results.db" PGPASSWORD=cairn

go build -o "$out/new" ./cmd/cairn
if [ -n "${BENCH_BASE_BIN:-}" ]; then
  cp "$BENCH_BASE_BIN" "$out/base"
  echo "base: $BENCH_BASE_BIN; new: the working tree"
else
  wt=$(mktemp -d)
  git worktree add --detach "$wt" "$base" >/dev/null 2>&1
  built=0
  (cd "$wt" && go build -o "$out/base" ./cmd/cairn) || built=$?
  git worktree remove --force "$wt"
  [ "$built" = 0 ] || { echo "bench/regress.sh: $base does not build (see BENCH_BASE_BIN)"; exit 1; }
  echo "base: $(git rev-parse --short "$base") ($(git log -1 --format=%s "$base" | cut -c1-60)…); new: the working tree"
fi

for db in "$PGDB" "$TDB"; do
  psql -h "$PGHOST_" -p "$PGPORT_" -U cairn -d cairn -tAc "SELECT 1 FROM pg_database WHERE datname = '$db'" | grep -q 1 ||
    psql -h "$PGHOST_" -p "$PGPORT_" -U cairn -d cairn -qc "CREATE DATABASE $db"
done
for db in "$MYDB" "$TDB"; do
  mysql -h "$MYHOST" -P "$MYPORT" -u cairn -pcairn -e "CREATE DATABASE IF NOT EXISTS $db" 2>/dev/null ||
    mysql -u root -e "CREATE DATABASE IF NOT EXISTS $db; GRANT ALL ON $db.* TO 'cairn'@'%'"
done
CASES=${BENCH_CASES:-.}
want() { [[ $1 =~ $CASES ]]; }
wantAny() { local c; for c in "$@"; do want "$c" && return 0; done; return 1; }
selects() { local n; for n in $CLIENTS; do echo "$1-$n"; done; }
wantAny $(selects pg-select-only) && "$out/new" tpcb prepare --db "$PG" --scale 10 | tail -1
wantAny $(selects pg-point-select) && "$out/new" oltp prepare --db "$PG" --tables 1 --table-size 1000000 | tail -1
wantAny $(selects mariadb-point-select) && "$out/new" oltp prepare --db "$MY" --tables 1 --table-size 1000000 | tail -1

FIG="$out/figures.txt"
: > "$FIG"
# measure BUILD NAME ARGS...: one run; records NAME|BUILD|throughput|cpu|client CPU / server CPU.
measure() {
  local build=$1 name=$2; shift 2
  "$out/$build" "$@" "${FLAGS[@]}" --no-store --progress 0 --json "$out/$name-$build.json" > "$out/$name-$build.txt" 2>&1
  python3 - "$out/$name-$build.json" "$name" "$build" >> "$FIG" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r, c = d["result"], d["client"]["cpu_us_per_txn"]
s = (d.get("server") or {}).get("cpu_us_per_txn")
print("%s|%s|%s|%s|%s" % (sys.argv[2], sys.argv[3], r.get("nopm") or r.get("tps"), c, "%.4f" % (c / s) if s else ""))
PY
}
# load BUILD NAME URL: a fresh TPC-C load of 4 warehouses; records NAME|BUILD|seconds|.
load() {
  local build=$1 name=$2 url=$3 t0
  "$out/$build" tpcc cleanup --db "$url" > /dev/null
  t0=$(date +%s.%N)
  "$out/$build" tpcc prepare --db "$url" -w 4 --seed 7 > "$out/$name-$build.txt" 2>&1
  echo "$name|$build|$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')||" >> "$FIG"
}
# both ROUND FN ARGS...: FN for the base and the new build, in the round's order.
both() {
  local r=$1 fn=$2; shift 2
  if [ $((r % 2)) -eq 1 ]; then "$fn" base "$@"; "$fn" new "$@"; else "$fn" new "$@"; "$fn" base "$@"; fi
}

for r in $(seq "$ROUNDS"); do
  echo "-- round $r"
  for n in $CLIENTS; do
    want "pg-select-only-$n" && both "$r" measure "pg-select-only-$n" tpcb run --db "$PG" --script select-only --vu "$n" --duration "${T}s" --rampup 0s
    want "pg-point-select-$n" && both "$r" measure "pg-point-select-$n" oltp run --db "$PG" --workload point-select --vu "$n" --duration "${T}s" --rampup 0s
    want "mariadb-point-select-$n" && both "$r" measure "mariadb-point-select-$n" oltp run --db "$MY" --workload point-select --vu "$n" --duration "${T}s" --rampup 0s
  done
  for kind in pg mariadb; do
    wantAny "$kind-tpcc-load" "$kind-tpcc-procs" "$kind-tpcc-sql" || continue
    url=$TPG; [ $kind = mariadb ] && url=$TMY
    if want "$kind-tpcc-load"; then
      both "$r" load "$kind-tpcc-load" "$url"
    elif [ "$r" = 1 ]; then
      "$out/new" tpcc cleanup --db "$url" > /dev/null
      "$out/new" tpcc prepare --db "$url" -w 4 --seed 7 > "$out/$kind-tpcc-prepare.txt" 2>&1
    fi
    for mode in procs sql; do
      want "$kind-tpcc-$mode" && both "$r" measure "$kind-tpcc-$mode" tpcc run --db "$url" --vu 4 --mode "$mode" --rampup 10s --duration "${TT}s"
    done
  done
done
wantAny pg-tpcc-load pg-tpcc-procs pg-tpcc-sql && "$out/new" tpcc cleanup --db "$TPG" > /dev/null
wantAny mariadb-tpcc-load mariadb-tpcc-procs mariadb-tpcc-sql && "$out/new" tpcc cleanup --db "$TMY" > /dev/null

echo
echo "== new / base, medians over $ROUNDS rounds (throughput wants >= 1; CPU per transaction and load seconds <= 1)"
printf "%-28s %-16s %-16s  %s\n" case "throughput" "CPU/txn or load" "rounds (throughput; cpu or load)"
cut -d'|' -f1 "$FIG" | awk '!seen[$0]++' | while IFS= read -r c; do
  tp=() cp=()
  for r in $(seq "$ROUNDS"); do
    b=$(grep "^$c|base|" "$FIG" | sed -n "${r}p") n=$(grep "^$c|new|" "$FIG" | sed -n "${r}p")
    tp+=("$(ratio "$(cut -d'|' -f3 <<<"$n")" "$(cut -d'|' -f3 <<<"$b")")")
    cp+=("$(ratio "$(cut -d'|' -f4 <<<"$n")" "$(cut -d'|' -f4 <<<"$b")")")
  done
  if [[ $c == *-load ]]; then
    printf "%-28s %-16s %-16s  %s\n" "$c" "" "×$(printf '%s\n' "${tp[@]}" | median)" "${tp[*]}"
  else
    printf "%-28s %-16s %-16s  %s; %s\n" "$c" "×$(printf '%s\n' "${tp[@]}" | median)" "×$(printf '%s\n' "${cp[@]}" | median)" "${tp[*]}" "${cp[*]}"
  fi
done
echo
echo "== the client's CPU as a share of the server's, medians over $ROUNDS rounds (base -> new)"
cut -d'|' -f1 "$FIG" | awk '!seen[$0]++' | while IFS= read -r c; do
  b=$(grep "^$c|base|" "$FIG" | cut -d'|' -f5 | grep . || true) n=$(grep "^$c|new|" "$FIG" | cut -d'|' -f5 | grep . || true)
  [ -n "$b" ] && [ -n "$n" ] || continue
  printf "%-28s %s%% -> %s%%   (rounds: base %s; new %s)\n" "$c" "$(awk '{ print $1 * 100 }' <<<"$b" | median 1)" \
    "$(awk '{ print $1 * 100 }' <<<"$n" | median 1)" "$(awk '{ printf "%.1f ", $1 * 100 }' <<<"$b")" "$(awk '{ printf "%.1f ", $1 * 100 }' <<<"$n")"
done
echo "every figure: $FIG (case|build|throughput or load seconds|client CPU µs per transaction|client CPU / server CPU)"
