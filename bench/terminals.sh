#!/usr/bin/env bash
# Measures what TPC-C terminals cost the client (issue 31, item 2): peak RSS and CPU against the
# terminal count, all keying and thinking as the specification says, served by a fixed pool of
# connections. Each count runs once, in its own cairn process, after a baseline run of
# BENCH_BASE terminals; the per-terminal figures are the differences from the baseline divided
# by the extra terminals, so the process's fixed memory (runtime, drivers, histograms) is left out.
#
# Terminals per warehouse may exceed the specification's 10 here: the memory a terminal costs does
# not depend on its warehouse, and 10,000 terminals at 10 per warehouse need 1,000 warehouses
# (100 GB). The runs then do more transactions per warehouse than the spec allows, and their
# efficiency figure is not a TPC-C result.
#
# Usage: bench/terminals.sh   (prepares BENCH_WAREHOUSES warehouses when the database has none)
# Environment: BENCH_PG (cairn's URL; default $CAIRN_TEST_PG), BENCH_WAREHOUSES (10),
# BENCH_TERMINALS ("1000 5000 10000"), BENCH_BASE (100), BENCH_CONNECTIONS (10), BENCH_RAMPUP (10s),
# BENCH_DURATION (60s), CAIRN (a cairn binary; default: built from this tree).
set -euo pipefail
cd "$(dirname "$0")/.."
PG=${BENCH_PG:-${CAIRN_TEST_PG:?set BENCH_PG or CAIRN_TEST_PG to a PostgreSQL URL}}
W=${BENCH_WAREHOUSES:-10}
COUNTS=${BENCH_TERMINALS:-1000 5000 10000}
BASE=${BENCH_BASE:-100}
CONNS=${BENCH_CONNECTIONS:-10}
RAMPUP=${BENCH_RAMPUP:-10s}
DURATION=${BENCH_DURATION:-60s}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CAIRN=${CAIRN:-}
if [ -z "$CAIRN" ]; then
	CAIRN=$tmp/cairn
	go build -o "$CAIRN" ./cmd/cairn
fi
export CAIRN_RESULTS=$tmp/results.db

"$CAIRN" tpcc prepare --db "$PG" -w "$W" >/dev/null 2>&1 || {
	echo "terminals.sh: $PG holds no TPC-C schema of $W warehouses (cairn tpcc prepare -w $W failed)" >&2
	exit 1
}

# run N: one keying and thinking run of N terminals; prints "N rss_bytes cpu_seconds window_s txns".
run() {
	"$CAIRN" tpcc run --db "$PG" --terminals "$1" --connections "$CONNS" --keying-thinking \
		--rampup "$RAMPUP" --duration "$DURATION" --progress 0 --observe off --json "$tmp/$1.json" >"$tmp/$1.log" 2>&1 || {
		cat "$tmp/$1.log" >&2
		exit 1
	}
	python3 - "$tmp/$1.json" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
txns = sum(t["count"] for t in d["transactions"].values())
print(sys.argv[2], d["client"].get("peak_rss_bytes", 0), d["client"]["cpu_seconds"], d["window"]["client_seconds"], txns)
PY
}

echo "TPC-C terminals over $CONNS connections on $W warehouses, keying and thinking, rampup $RAMPUP, window $DURATION"
read -r _ base_rss base_cpu base_win base_txns < <(run "$BASE")
printf '%-9s %10s %9s %10s %12s %14s %12s\n' terminals "RSS MiB" "CPU %" "txns/s" "KiB/terminal" "CPU %/1k term" "CPU µs/txn"
printf '%-9s %10.1f %9.2f %10.1f %12s %14s %12.0f\n' "$BASE" "$(awk -v r="$base_rss" 'BEGIN{print r/1048576}')" \
	"$(awk -v c="$base_cpu" -v w="$base_win" 'BEGIN{print 100*c/w}')" "$(awk -v n="$base_txns" -v w="$base_win" 'BEGIN{print n/w}')" - - \
	"$(awk -v c="$base_cpu" -v n="$base_txns" 'BEGIN{print n ? c*1e6/n : 0}')"
for n in $COUNTS; do
	read -r _ rss cpu win txns < <(run "$n")
	awk -v n="$n" -v b="$BASE" -v rss="$rss" -v brss="$base_rss" -v cpu="$cpu" -v win="$win" -v txns="$txns" 'BEGIN {
		printf "%-9s %10.1f %9.2f %10.1f %12.2f %14.3f %12.0f\n", n, rss/1048576, 100*cpu/win, txns/win,
			(rss-brss)/1024/(n-b), 100*cpu/win/n*1000, txns ? cpu*1e6/txns : 0 }'
done
