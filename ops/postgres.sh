#!/usr/bin/env bash
# Project-local PostgreSQL for development and tests. No system service is
# touched: clusters live in a directory of their own and listen on loopback.
#
#   ops/postgres.sh install                 install server binaries (apt, as root)
#   ops/postgres.sh start DIR PORT [DBNAME] init (if needed) and start a cluster in DIR
#   ops/postgres.sh stop DIR                stop the cluster in DIR
#
# start prints the DATABASE_URL on its last line.
set -euo pipefail

pgbin() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  if [ -n "$d" ] && [ -x "$d/initdb" ]; then echo "$d"; return 0; fi
  if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return 0; fi
  return 1
}

install() {
  if pgbin >/dev/null; then return 0; fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "==> installing PostgreSQL server from Debian packages" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 && apt-get install -y -qq postgresql >&2
    pgbin >/dev/null && return 0
  fi
  cat >&2 <<'MSG'
PostgreSQL server binaries (initdb, pg_ctl) were not found.
Install them, e.g. `sudo apt-get install -y postgresql`, or set DATABASE_URL
to an existing database (postgres://user:pass@host:5432/db) and run again.
MSG
  exit 1
}

# as_pg runs a command as the user that owns the cluster: initdb refuses root.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start() {
  local dir=$1 port=$2 db=${3:-photo3d}
  install
  local bin; bin=$(pgbin)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
    chown postgres:postgres "$dir"
    # The server user must be able to reach DIR (mktemp makes 0700 parents).
    local parent; parent=$(dirname "$dir")
    [ "$(stat -c %U "$parent")" = root ] && chmod o+x "$parent"
  fi
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    as_pg "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-locale --no-sync >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
  fi
  if ! as_pg "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
    as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 \
      -o "-k $dir -p $port -c listen_addresses=127.0.0.1 -c max_connections=300 ${PG_EXTRA_OPTS:-}" start >/dev/null \
      || { tail -20 "$dir/postgres.log" >&2; exit 1; }
  fi
  as_pg "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname = '$db'" | grep -q 1 \
    || as_pg "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres "$db"
  echo "postgres://postgres@127.0.0.1:$port/$db?sslmode=disable"
}

stop() {
  local dir=$1 bin
  bin=$(pgbin) || return 0
  [ -f "$dir/data/PG_VERSION" ] || return 0
  as_pg "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
}

cmd=${1:-}; shift || true
case "$cmd" in
  install) install ;;
  start) start "$@" ;;
  stop) stop "$@" ;;
  *) echo "usage: $0 install | start DIR PORT [DB] | stop DIR" >&2; exit 2 ;;
esac
