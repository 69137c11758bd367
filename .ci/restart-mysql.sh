#!/usr/bin/env bash
# Crashes the local MariaDB server (SIGKILL); mysqld_safe, which .ci/servers.sh starts it under,
# starts it again. Waits until it answers, for the test of a restart in the middle of a run. Only
# that server: its pid is read from the pid file mysqld_safe gives it, so other MariaDB or MySQL
# servers on the host (a version of .ci/versions.sh, a private one) keep running.
set -euo pipefail
pid=$(cat /run/mysqld/mysqld.pid)
kill -9 "$pid"
sleep 1
for i in $(seq 1 60); do mysqladmin --protocol=socket -uroot ping >/dev/null 2>&1 && exit 0; sleep 1; done
echo "mariadb did not come back" >&2
exit 1
