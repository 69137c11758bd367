#!/usr/bin/env bash
# Measures issue 5's two TPC-H targets, peer and cairn alternately in one session on this machine:
#   gen:  tpchgen-cli 4.0.0 (the Rust port, PyPI) -s SF   vs  cairn tpch gen --sf SF
#         wall and CPU (GNU time) of each, and a byte comparison of all eight files (both must
#         equal dbgen's output).
#   load: PostgreSQL's own server-side COPY of the eight .tbl files, eight at once, into empty
#         tables without keys   vs  cairn tpch prepare --sf SF up to the end of loading (its
#         "loaded … rows in X s": from creating the tables to the last row committed, including
#         building the text pool and generating every row).
# Ratios are cairn / peer; both targets want ≤ 1 for gen and ≤ 1.3 for load.
# BENCH_SF (default 1) and BENCH_ROUNDS (default 1) adjust the run.
#
# Usage: bench/tpch.sh [gen|load|all]   (default all)
# Needs: .ci/servers.sh has run; tpchgen-cli on PATH or in $TPCHGEN (pip install tpchgen-cli==4.0.0).
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}
SF=${BENCH_SF:-1}
ROUNDS=${BENCH_ROUNDS:-1}
DB=${BENCH_PG_DB:-cairn_tpch_bench}
out=bench/out/tpch
mkdir -p "$out"
go build -o bench/out/cairn ./cmd/cairn
C=bench/out/cairn
export PGPASSWORD=cairn CAIRN_RESULTS=bench/out/results.db
P="psql -h 127.0.0.1 -U cairn -q"
. bench/lib.sh
timed() { # FILE CMD...: runs CMD under GNU time, leaves "wall user sys" in FILE
  local f=$1; shift
  /usr/bin/time -f "%e %U %S" -o "$f" "$@" > /dev/null
}

if [[ $which == gen || $which == all ]]; then
  TG=${TPCHGEN:-$(command -v tpchgen-cli || echo /opt/tpchgen-venv/bin/tpchgen-cli)}
  [[ -x $TG ]] || { echo "bench/tpch.sh: tpchgen-cli not found (pip install tpchgen-cli==4.0.0, or set TPCHGEN)"; exit 2; }
  echo "gen SF $SF on $(nproc) CPUs: tpchgen-cli ($("$TG" --version 2>/dev/null | head -1)) vs cairn tpch gen"
  for r in $(seq "$ROUNDS"); do
    rm -rf "$out/peer" "$out/cairn"
    timed "$out/peer.time" "$TG" -s "$SF" --output-dir="$out/peer"
    timed "$out/cairn.time" "$C" tpch gen --sf "$SF" -o "$out/cairn" 2>/dev/null
    same=identical
    for f in "$out"/peer/*.tbl; do cmp -s "$f" "$out/cairn/$(basename "$f")" || same="DIFFERENT: $(basename "$f")"; done
    read -r pw pu ps < "$out/peer.time"; read -r cw cu cs < "$out/cairn.time"
    pc=$(awk -v a="$pu" -v b="$ps" 'BEGIN{print a+b}'); cc=$(awk -v a="$cu" -v b="$cs" 'BEGIN{print a+b}')
    printf "round %d: tpchgen-cli %6.2f s wall %6.2f s CPU | cairn %6.2f s wall %6.2f s CPU | wall ×%s  CPU ×%s | files %s\n" \
      "$r" "$pw" "$pc" "$cw" "$cc" "$(ratio "$cw" "$pw")" "$(ratio "$cc" "$pc")" "$same"
  done
  rm -rf "$out/peer"
fi

if [[ $which == load || $which == all ]]; then
  $P -d cairn -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1 || $P -d cairn -c "CREATE DATABASE $DB"
  PGURL=postgres://cairn:cairn@127.0.0.1:5432/$DB
  # The server reads files without dbgen's trailing '|' (COPY would see an extra column).
  mkdir -p "$out/files"
  if [[ ! -s $out/files/lineitem.tbl ]]; then
    [[ -s $out/cairn/lineitem.tbl ]] || "$C" tpch gen --sf "$SF" -o "$out/cairn" > /dev/null
    for f in "$out"/cairn/*.tbl; do sed 's/|$//' "$f" > "$out/files/$(basename "$f")"; done
  fi
  chmod -R a+rX "$out/files"
  files=$(cd "$out/files" && pwd)
  schema=$(awk '/^-- name:/{if(n++)print ";"; next} /^--/{next} {print} END{print ";"}' internal/workload/tpch/queries/sql/postgres/schema.sql)
  echo "load SF $SF into PostgreSQL: server-side COPY of 8 files at once vs cairn tpch prepare (to the end of loading)"
  for r in $(seq "$ROUNDS"); do
    "$C" tpch cleanup --db "$PGURL" > /dev/null
    $P -d "$DB" -c "$schema" -c "CHECKPOINT"
    t0=$(date +%s.%N)
    for t in region nation supplier customer part partsupp orders lineitem; do
      $P -d "$DB" -c "COPY $t FROM '$files/$t.tbl' WITH (DELIMITER '|')" &
    done
    wait
    peer=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}')
    "$C" tpch cleanup --db "$PGURL" > /dev/null
    $P -d "$DB" -c "CHECKPOINT"
    "$C" tpch prepare --db "$PGURL" --sf "$SF" 2>/dev/null > "$out/prepare.txt"
    mine=$(sed -n 's/^loaded .* rows in \([0-9.]*\) s.*/\1/p' "$out/prepare.txt")
    total=$(sed -n 's/^done in \([0-9.]*\) s.*/\1/p' "$out/prepare.txt")
    printf "round %d: server COPY %6.2f s | cairn load %6.2f s (with keys, indexes, statistics %s s) | ×%s\n" \
      "$r" "$peer" "$mine" "$total" "$(ratio "$mine" "$peer")"
  done
fi
