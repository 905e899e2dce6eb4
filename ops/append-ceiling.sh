#!/usr/bin/env bash
# What this machine's Postgres can append at all (issue 18's targets: 10,000
# events/s with 32 writers on 32 streams, 5,000 on one stream, one event per
# transaction): pgbench, Postgres's own C client with prepared statements,
# runs the event store's version-checked insert (internal/eventstore appendSQL,
# one event, one transaction each) against the real events table (migration
# 0001), on a throwaway cluster with fsync on and then off. No Go client can
# beat these figures on the same machine, so they say whether a target is in
# reach here. It also prints the disk's flush rate (pg_test_fsync).
#
#   ops/append-ceiling.sh              8 s per run
#   SECONDS_PER_RUN=20 ops/append-ceiling.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. ops/lib.sh
T=${SECONDS_PER_RUN:-8}
PGBENCH=$(command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | tail -1 || true)
[ -n "$PGBENCH" ] && [ -x "$PGBENCH" ] || die "pgbench is missing (it comes with postgresql: apt-get install -y postgresql)"
TMP=$(mktemp -d)
cleanup() {
  ops/postgres.sh stop "$TMP/on" >/dev/null 2>&1 || true
  ops/postgres.sh stop "$TMP/off" >/dev/null 2>&1 || true
  rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

cat >"$TMP/append.sql" <<'SQL'
WITH current AS (SELECT coalesce(max(version), 0) AS v FROM events WHERE stream_id = 'bench-' || :client_id)
INSERT INTO events (stream_id, stream_type, version, type, data, metadata)
SELECT 'bench-' || :client_id, 'bench', current.v + 1, 'test.counted.v1', '{"n":1}', '{"actor":"bench"}' FROM current;
SQL
# The same, followed by the NOTIFY each append used to send after its commit.
{ cat "$TMP/append.sql"; echo "SELECT set_config('synchronous_commit', 'off', true), pg_notify('photo3d_events', '');"; } >"$TMP/append-notify.sql"
schema=$(sed -n '/CREATE TABLE events/,/CREATE INDEX events_type/p' migrations/0001_events.sql)

run() { # $1 label, $2 port, $3 clients, $4 script
  local tps
  tps=$(PGHOST=127.0.0.1 PGPORT=$2 PGUSER=postgres "$PGBENCH" -n -M prepared -c "$3" -j 2 -T "$T" -f "$4" postgres 2>&1 |
    awk '/^tps/ {printf "%.0f", $3}')
  printf '%-44s %8s tps\n' "$1" "${tps:-failed}"
}

for mode in on off; do
  port=$(free_port)
  opts=""
  [ "$mode" = off ] && opts="-c fsync=off -c synchronous_commit=off"
  PG_EXTRA_OPTS="$opts" ops/postgres.sh start "$TMP/$mode" "$port" postgres >/dev/null
  PGHOST=127.0.0.1 PGPORT=$port PGUSER=postgres psql -q -d postgres -c "$schema"
  run "fsync $mode, 1 writer, 1 stream" "$port" 1 "$TMP/append.sql"
  run "fsync $mode, 32 writers, 32 streams" "$port" 32 "$TMP/append.sql"
  run "fsync $mode, 32 writers, + NOTIFY after each" "$port" 32 "$TMP/append-notify.sql"
  if [ "$mode" = on ]; then
    fsync_tool=$(dirname "$(readlink -f "$PGBENCH")")/pg_test_fsync
    [ -x "$fsync_tool" ] || fsync_tool=$(ls /usr/lib/postgresql/*/bin/pg_test_fsync 2>/dev/null | head -1)
    if [ -n "$fsync_tool" ]; then
      printf '%-44s %s\n' "disk flush (pg_test_fsync, fdatasync)" \
        "$("$fsync_tool" -s 2 -f "$TMP/fsync.test" 2>/dev/null | awk '$1=="fdatasync" {print $2, $3, $4, $5; exit}')"
    fi
  fi
  ops/postgres.sh stop "$TMP/$mode" >/dev/null
done
printf '%-44s %s\n' "cores" "$(nproc)"
