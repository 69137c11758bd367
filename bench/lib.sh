# Shell helpers shared by the bench scripts (sourced, not run).

# ratio_or_empty A B [PLACES]: A/B to PLACES places (default 2), or nothing when A is empty or B is
# not positive (an empty figure is left out of medians); ratio prints n/a instead.
ratio_or_empty() { awk -v a="$1" -v b="$2" -v p="${3:-2}" 'BEGIN { if (a != "" && b > 0) printf "%." p "f", a / b }'; }
ratio() { local r; r=$(ratio_or_empty "$@"); echo "${r:-n/a}"; }
# median [PLACES]: the median of the numbers on stdin, one per line, to PLACES places (default 2).
median() { sort -g | awk -v p="${1:-2}" '{ v[NR] = $1 } END { if (NR) printf "%." p "f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# cpu_per_txn TIMEFILE TXNS: microseconds of user+system CPU per transaction, from GNU time's
# "cpu %U %S" line.
cpu_per_txn() { awk -v n="$2" '/^cpu/ { if (n > 0) printf "%.1f", ($2 + $3) * 1e6 / n; else print "n/a" }' "$1"; }
# url_parts URL DEFAULT_PORT: the host, port, user, password and database of a postgres:// or
# mysql:// URL on one line (127.0.0.1, DEFAULT_PORT, cairn, cairn and cairn_bench where it has
# none), for the clients (psql, mysql) that make the database the URL names.
url_parts() {
  python3 -c 'import sys, urllib.parse as u
p = u.urlparse(sys.argv[1])
print(p.hostname or "127.0.0.1", p.port or sys.argv[2], u.unquote(p.username or "cairn"), u.unquote(p.password or "cairn"), p.path.strip("/") or "cairn_bench")' "$1" "$2"
}
# per A N [SCALE] [PLACES]: A × SCALE / N to PLACES places (default 1 and 2), or nothing when A is
# empty or N is not positive: a count over a run divided by its statements.
per() { awk -v a="$1" -v n="$2" -v s="${3:-1}" -v p="${4:-2}" 'BEGIN { if (a != "" && n > 0) printf "%." p "f", a * s / n }'; }
# server_pid PORT: the pid of the process listening on TCP PORT of this host (ss -ltnp; the
# postmaster for PostgreSQL, mariadbd or mysqld), or nothing.
server_pid() { ss -ltnpH "sport = :$1" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2 || true; }
