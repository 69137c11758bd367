#!/usr/bin/env bash
# Crashes the local MariaDB server (SIGKILL); mysqld_safe, which .ci/servers.sh starts it under,
# starts it again. Waits until it answers, for the test of a restart in the middle of a run.
set -euo pipefail
pkill -9 -x mariadbd || pkill -9 -x mysqld
sleep 1
for i in $(seq 1 60); do mysqladmin --protocol=socket -uroot ping >/dev/null 2>&1 && exit 0; sleep 1; done
echo "mariadb did not come back" >&2
exit 1
