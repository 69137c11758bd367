#!/usr/bin/env bash
# Measures what cairn serve costs a run: the same oltp run (BENCH_WORKLOAD, default point-select,
# at BENCH_CLIENTS VUs, default 8, on 1 table x BENCH_ROWS rows, default 100,000) run by the command
# line, and as a job of cairn serve with a client connected to its event stream the whole time (as
# the web UI's live view is) and /metrics scraped every second (as Prometheus would, at a much
# shorter interval than its default). The two sides alternate, the plain one first in odd rounds,
# BENCH_TIME seconds each (default 20) after a 2 s rampup, BENCH_ROUNDS rounds (default 5), in one
# session, against BENCH_DB (default PostgreSQL's cairn_bench, made when missing). Each round's
# figure is served TPS / plain TPS, from each run's result document (the job's through
# GET /api/v1/results/ID); the wanted median is >= 0.99 (under 1% lost).
#
#   BENCH_TIME=5 BENCH_ROUNDS=2 bench/serve.sh     # a short check that the script works
#
# Usage: bench/serve.sh    Needs .ci/servers.sh to have run (for the default database), curl, jq.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
CLIENTS=${BENCH_CLIENTS:-8}
T=${BENCH_TIME:-20}
ROUNDS=${BENCH_ROUNDS:-5}
ROWS=${BENCH_ROWS:-100000}
WL=${BENCH_WORKLOAD:-point-select}
DB=${BENCH_DB:-postgres://cairn:cairn@127.0.0.1:5432/cairn_bench}
out=${BENCH_OUT:-$PWD/bench/out/serve}
mkdir -p "$out"
export CAIRN_RESULTS="$out/results.db" PGPASSWORD=cairn
go build -o "$out/cairn" ./cmd/cairn
C="$out/cairn"
if [ -z "${BENCH_DB:-}" ]; then
  psql -h 127.0.0.1 -U cairn -d cairn -tAc "SELECT 1 FROM pg_database WHERE datname = 'cairn_bench'" | grep -q 1 ||
    psql -h 127.0.0.1 -U cairn -d cairn -qc "CREATE DATABASE cairn_bench"
fi
"$C" oltp prepare --db "$DB" --tables 1 --table-size "$ROWS" | tail -1
"$C" oltp run --db "$DB" --workload "$WL" --vu "$CLIENTS" --rampup 2s --duration "${T}s" --progress 5s --print-spec > "$out/spec.yaml"

# One cairn serve for the whole session, on a free loopback port (no token on loopback). The spec
# names the password as ${CAIRN_PASSWORD}, which the service reads from its environment.
CAIRN_PASSWORD=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.urlsplit(sys.argv[1]).password or "")' "$DB")
export CAIRN_PASSWORD
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
API="http://127.0.0.1:$port"
"$C" serve --listen "127.0.0.1:$port" > "$out/serve.log" 2>&1 &
serve_pid=$!
trap 'kill "$serve_pid" 2> /dev/null || true' EXIT
for _ in $(seq 50); do curl -sf "$API/healthz" > /dev/null && break; sleep 0.1; done
curl -sf "$API/healthz" > /dev/null || { echo "cairn serve did not start: $(tail -3 "$out/serve.log")"; exit 1; }

FIG="$out/figures.txt"
: > "$FIG"
# plain ROUND: the run from the command line; prints its TPS.
plain() {
  "$C" oltp run --db "$DB" --workload "$WL" --vu "$CLIENTS" --rampup 2s --duration "${T}s" --progress 5s \
    --no-store --json "$out/plain-$1.json" > "$out/plain-$1.txt" 2>&1
  jq -r '.result.headline.value' "$out/plain-$1.json"
}
# served ROUND: the same spec as a job, its events read by a client until the stream ends and
# /metrics scraped every second meanwhile; prints its TPS.
served() {
  local id rid scraper
  id=$(jq -Rs '{kind: "run", spec: .}' "$out/spec.yaml" | curl -sS --fail-with-body -H 'Content-Type: application/json' --data-binary @- "$API/api/v1/jobs" | jq -r .id)
  (while sleep 1; do curl -sf "$API/metrics" > /dev/null || true; done) &
  scraper=$!
  curl -sfN "$API/api/v1/jobs/$id/events" > "$out/served-$1.events"
  kill "$scraper" 2> /dev/null || true
  wait "$scraper" 2> /dev/null || true
  curl -sf "$API/api/v1/jobs/$id" > "$out/served-$1.job.json"
  rid=$(jq -r '.result_id // empty' "$out/served-$1.job.json")
  [ -n "$rid" ] || { echo "job $id stored no result: $(jq -r '.state + " " + (.error // "")' "$out/served-$1.job.json")" >&2; return 1; }
  curl -sf "$API/api/v1/results/$rid" > "$out/served-$1.json"
  jq -r '.result.headline.value' "$out/served-$1.json"
}

for r in $(seq "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then a=$(plain "$r"); b=$(served "$r"); else b=$(served "$r"); a=$(plain "$r"); fi
  ticks=$(grep -c '^event: tick' "$out/served-$r.events" || true)
  ratio=$(ratio "$b" "$a" 4)
  echo "round $r: plain $a TPS, served $b TPS ($ticks tick events streamed): ratio $ratio"
  echo "$ratio" >> "$FIG"
done
m=$(grep -v n/a "$FIG" | median 4)
echo "median served/plain TPS over $ROUNDS rounds: $m (want >= 0.99)"
