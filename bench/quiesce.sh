#!/usr/bin/env bash
# Sourced by bench/tpcc.sh, or run as bench/quiesce.sh postgres|mysql (HammerDB's scripts call it
# between their schema build and their run, through HDB_SETTLE).
#
# quiesce KIND: lets the server settle before a load or a run, so that nobody's figure pays for the
# previous tool's writes. PostgreSQL: a CHECKPOINT. MariaDB: wait (at most 120 s) until InnoDB's
# dirty pages are below 1,000 and its purge has caught up (history list below 1,000), or neither
# has fallen for 5 s. A load right after another one varied from 4.2 to 5.8 s, and from 4.8 to
# 5.1 s after this wait.
quiesce() {
  if [ "$1" = postgres ]; then
    PGPASSWORD=cairn psql -h 127.0.0.1 -U cairn -d cairn -qc CHECKPOINT >/dev/null 2>&1 || true
    return
  fi
  local prev=-1 same=0 d
  for _ in $(seq 120); do
    d=$(mysql --no-defaults -h "${BENCH_MY_HOST:-127.0.0.1}" -P "${BENCH_MY_PORT:-3306}" -u "${BENCH_MY_USER:-cairn}" \
      -p"${BENCH_MY_PASS:-cairn}" -N -e "SHOW GLOBAL STATUS WHERE Variable_name IN
      ('Innodb_buffer_pool_pages_dirty', 'Innodb_history_list_length')" | awk '{ s += $2 } END { print s + 0 }')
    [ "$d" -lt 2000 ] && break
    if [ "$prev" -ge 0 ] && [ "$d" -ge "$prev" ]; then
      same=$((same + 1)); [ "$same" -ge 5 ] && break
    else
      same=0
    fi
    prev=$d; sleep 1
  done
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  quiesce "${1:?usage: bench/quiesce.sh postgres|mysql}"
fi
