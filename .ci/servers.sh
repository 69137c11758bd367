#!/usr/bin/env bash
# Installs (when missing) and starts the PostgreSQL and MariaDB servers the integration tests and
# benchmarks use, with the settings of the published peer figures (docs/benchmarks.md), and creates
# the test databases and users. Idempotent: safe to run when the servers are already up.
set -euo pipefail

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
pgver=$(ls /etc/postgresql 2>/dev/null | sort -n | tail -1 || true)
if [ -z "$pgver" ]; then
  pgver=$(ls /usr/lib/postgresql | sort -n | tail -1)
  pg_createcluster "$pgver" main >/dev/null
fi
conf=/etc/postgresql/$pgver/main/conf.d/cairn.conf
if [ ! -f "$conf" ]; then
  cat > "$conf" <<CONF
shared_buffers = 2GB
max_connections = 300
listen_addresses = 'localhost'
CONF
  pg_ctlcluster "$pgver" main stop >/dev/null 2>&1 || true
fi
if ! pg_isready -q -h 127.0.0.1 -p 5432; then
  pg_ctlcluster "$pgver" main start
fi
for i in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
su postgres -c "psql -qAt -c \"SELECT 1 FROM pg_roles WHERE rolname='cairn'\"" | grep -q 1 ||
  su postgres -c "psql -q -c \"CREATE ROLE cairn LOGIN SUPERUSER PASSWORD 'cairn'\""
su postgres -c "psql -qAt -c \"SELECT 1 FROM pg_database WHERE datname='cairn'\"" | grep -q 1 ||
  su postgres -c "createdb -O cairn cairn"
su postgres -c "psql -qAt -c \"SELECT 1 FROM pg_database WHERE datname='cairn_test'\"" | grep -q 1 ||
  su postgres -c "createdb -O cairn cairn_test"

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
  printf '%s\n' "$want" > "$mycnf"
  mysqladmin --protocol=socket -uroot shutdown >/dev/null 2>&1 || true
  sleep 1
fi
if ! mysqladmin --protocol=socket -uroot ping >/dev/null 2>&1; then
  mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
  [ -d /var/lib/mysql/mysql ] || mariadb-install-db --user=mysql --datadir=/var/lib/mysql >/dev/null
  (setsid mysqld_safe --user=mysql >/dev/null 2>&1 &)
  for i in $(seq 1 60); do mysqladmin --protocol=socket -uroot ping >/dev/null 2>&1 && break; sleep 1; done
fi
mysql --protocol=socket -uroot <<SQL
CREATE DATABASE IF NOT EXISTS cairn;
CREATE DATABASE IF NOT EXISTS cairn_test;
CREATE USER IF NOT EXISTS 'cairn'@'localhost' IDENTIFIED BY 'cairn';
CREATE USER IF NOT EXISTS 'cairn'@'127.0.0.1' IDENTIFIED BY 'cairn';
GRANT ALL ON *.* TO 'cairn'@'localhost';
GRANT ALL ON *.* TO 'cairn'@'127.0.0.1';
FLUSH PRIVILEGES;
SQL
echo "ci: postgres $pgver and mariadb are up"
