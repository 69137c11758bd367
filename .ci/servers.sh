#!/usr/bin/env bash
# Installs (when missing) and starts the PostgreSQL and MariaDB servers the integration tests and
# benchmarks use, with the settings of the published peer figures (docs/benchmarks.md), and creates
# the test databases and users. Idempotent: safe to run when the servers are already up.
#
#   bash .ci/servers.sh            the default pair: PostgreSQL on 5432, MariaDB on 3306
#   bash .ci/servers.sh second     a second pair of the same binaries and settings, on
#                                  $CAIRN_CI2_PG_PORT (5433) and $CAIRN_CI2_MYSQL_PORT (3307)
#
# CI (.ci/run) tests internal/cli on the default pair and every other package on the second at
# the same time: the packages of one stream share their pair's test databases, the streams don't.
# The second pair is PostgreSQL cluster "ci2" (Debian's pg_createcluster, so its configuration is
# the default cluster's) and a MariaDB reading the same /etc/mysql files, its data directory,
# socket, pid file and port given on its command line, under $CAIRN_CI2_DATA
# (/var/lib/cairn-ci2). .ci/restart-pg.sh and .ci/restart-mysql.sh restart only the default pair.
set -euo pipefail
which=${1:-default}
case $which in default|second) ;; *) echo "usage: servers.sh [second]" >&2; exit 2 ;; esac

export DEBIAN_FRONTEND=noninteractive
need=()
command -v pg_ctlcluster >/dev/null 2>&1 || need+=(postgresql)
command -v mariadbd >/dev/null 2>&1 || need+=(mariadb-server mariadb-client)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# perf samples the servers' on-CPU stacks (--observe stacks, docs/diagnosis.md).
command -v perf >/dev/null 2>&1 || need+=(linux-perf)
if [ ${#need[@]} -gt 0 ]; then
  echo "ci: installing ${need[*]}"
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi
# Prometheus scrapes cairn serve in a test of the docs' Grafana dashboard; the test starts its own
# on loopback (Debian's package starts none here: no init system).
if ! command -v prometheus >/dev/null 2>&1; then
  echo "ci: installing prometheus"
  [ ${#need[@]} -gt 0 ] || apt-get update -qq
  apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi

# --- PostgreSQL ---------------------------------------------------------------------------------
if [ "$which" = default ]; then cluster=main pgport=5432; else cluster=ci2 pgport=${CAIRN_CI2_PG_PORT:-5433}; fi
pgver=$(ls /etc/postgresql 2>/dev/null | sort -n | tail -1 || true)
[ -n "$pgver" ] || pgver=$(ls /usr/lib/postgresql | sort -n | tail -1)
if [ ! -d "/etc/postgresql/$pgver/$cluster" ]; then
  pg_createcluster -p "$pgport" "$pgver" "$cluster" >/dev/null
fi
conf=/etc/postgresql/$pgver/$cluster/conf.d/cairn.conf
if [ ! -f "$conf" ]; then
  cat > "$conf" <<CONF
shared_buffers = 2GB
max_connections = 300
listen_addresses = 'localhost'
CONF
  pg_ctlcluster "$pgver" "$cluster" stop >/dev/null 2>&1 || true
fi
if ! pg_isready -q -h 127.0.0.1 -p "$pgport"; then
  pg_ctlcluster "$pgver" "$cluster" start
fi
for i in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p "$pgport" && break; sleep 1; done
psql="psql -p $pgport"
su postgres -c "$psql -qAt -c \"SELECT 1 FROM pg_roles WHERE rolname='cairn'\"" | grep -q 1 ||
  su postgres -c "$psql -q -c \"CREATE ROLE cairn LOGIN SUPERUSER PASSWORD 'cairn'\""
su postgres -c "$psql -qAt -c \"SELECT 1 FROM pg_database WHERE datname='cairn'\"" | grep -q 1 ||
  su postgres -c "createdb -p $pgport -O cairn cairn"
su postgres -c "$psql -qAt -c \"SELECT 1 FROM pg_database WHERE datname='cairn_test'\"" | grep -q 1 ||
  su postgres -c "createdb -p $pgport -O cairn cairn_test"

# --- MariaDB ------------------------------------------------------------------------------------
mycnf=/etc/mysql/mariadb.conf.d/99-cairn.cnf
# performance_schema on: the wait-event tests read InnoDB's waits from it (docs/waits.md).
want="[mysqld]
innodb_buffer_pool_size = 2G
max_connections = 500
local_infile = ON
bind-address = 127.0.0.1
performance_schema = ON"
if [ "$(cat "$mycnf" 2>/dev/null)" != "$want" ]; then
  # The second pair's MariaDB reads this file too: it is written, and the default one restarted
  # to read it, by the default pair's setup.
  if [ "$which" = second ]; then echo "ci: run bash .ci/servers.sh before bash .ci/servers.sh second" >&2; exit 1; fi
  printf '%s\n' "$want" > "$mycnf"
  mysqladmin --protocol=socket -uroot shutdown >/dev/null 2>&1 || true
  sleep 1
fi
if [ "$which" = default ]; then
  sock=/run/mysqld/mysqld.sock
  if ! mysqladmin --protocol=socket -uroot ping >/dev/null 2>&1; then
    mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
    [ -d /var/lib/mysql/mysql ] || mariadb-install-db --user=mysql --datadir=/var/lib/mysql >/dev/null
    (setsid mysqld_safe --user=mysql >/dev/null 2>&1 &)
    for i in $(seq 1 60); do mysqladmin --protocol=socket -uroot ping >/dev/null 2>&1 && break; sleep 1; done
  fi
else
  d=${CAIRN_CI2_DATA:-/var/lib/cairn-ci2} myport=${CAIRN_CI2_MYSQL_PORT:-3307}
  sock=$d/mysqld.sock
  mkdir -p "$d" && chown mysql:mysql "$d"
  if ! mysqladmin --protocol=socket --socket="$sock" -uroot ping >/dev/null 2>&1; then
    [ -d "$d/data/mysql" ] ||
      mariadb-install-db --user=mysql --datadir="$d/data" --skip-test-db >"$d/install.log" 2>&1 ||
      { tail -20 "$d/install.log" >&2; exit 1; }
    # The /etc/mysql files give every setting the default pair has; the command line, only where
    # this one differs.
    (setsid mariadbd --user=mysql --datadir="$d/data" --port="$myport" --socket="$sock" \
      --pid-file="$d/mysqld.pid" --log-error="$d/error.log" </dev/null >/dev/null 2>&1 &)
    for i in $(seq 1 60); do mysqladmin --protocol=socket --socket="$sock" -uroot ping >/dev/null 2>&1 && break; sleep 1; done
    mysqladmin --protocol=socket --socket="$sock" -uroot ping >/dev/null 2>&1 ||
      { echo "ci: the second MariaDB did not start:" >&2; tail -20 "$d/error.log" >&2; exit 1; }
  fi
fi
mysql --protocol=socket --socket="$sock" -uroot <<SQL
CREATE DATABASE IF NOT EXISTS cairn;
CREATE DATABASE IF NOT EXISTS cairn_test;
CREATE USER IF NOT EXISTS 'cairn'@'localhost' IDENTIFIED BY 'cairn';
CREATE USER IF NOT EXISTS 'cairn'@'127.0.0.1' IDENTIFIED BY 'cairn';
GRANT ALL ON *.* TO 'cairn'@'localhost';
GRANT ALL ON *.* TO 'cairn'@'127.0.0.1';
-- no anonymous users (mariadb-install-db may make them): they would shadow a test's user@%
DELETE FROM mysql.global_priv WHERE User='';
FLUSH PRIVILEGES;
SQL
echo "ci: postgres $pgver on $pgport and mariadb on $(mysql --protocol=socket --socket="$sock" -uroot -Nse 'SELECT @@port') are up ($which pair)"
