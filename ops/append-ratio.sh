#!/usr/bin/env bash
# The event store's AppendCommitted (group commit) against Postgres's own
# ceiling, measured in the same run on the same throwaway cluster (fsync on),
# interleaved so that both see the same disk and the same load:
#   - ceiling: pgbench (C, prepared) running the store's version-checked insert,
#     one event per transaction, as ops/append-ceiling.sh does;
#   - store: BenchmarkAppend (internal/eventstore) "committed" (NOTIFY per batch)
#     and "committed+notifier" (one coalesced NOTIFY, as the api and worker run),
#     both group-committed, and "committed-1by1" (group commit off: one
#     transaction per append, what AppendCommitted did before).
# Each round runs 1 writer on 1 stream, then 32 writers on 32 streams: the
# ceiling, the store, the ceiling again; it prints the store's ratio to the
# mean of the two ceilings, with the load average (the machine is shared: only
# ratios within a round mean something).
#
#   ops/append-ratio.sh                       3 rounds of 5 s runs
#   ROUNDS=5 SECONDS_PER_RUN=8 ops/append-ratio.sh
#
# Results go to stdout and artifacts/append-ratio.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
. ops/lib.sh
need_go
T=${SECONDS_PER_RUN:-5}
ROUNDS=${ROUNDS:-3}
PGBENCH=$(command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | tail -1 || true)
[ -n "$PGBENCH" ] && [ -x "$PGBENCH" ] || die "pgbench is missing (it comes with postgresql: apt-get install -y postgresql)"
bench_workdir
mkdir -p artifacts
OUT=artifacts/append-ratio.txt
: >"$OUT"
report() { printf '%s\n' "$*" | tee -a "$OUT"; }

say "building the benchmark"
go test -c -o "$TMP/eventstore.test" ./internal/eventstore || die "cannot build the benchmark"
PORT=$(free_port)
ops/postgres.sh start "$TMP/pg" "$PORT" postgres >/dev/null
DATABASE_URL="postgres://postgres@127.0.0.1:$PORT/postgres?sslmode=disable"
export PGHOST=127.0.0.1 PGPORT=$PORT PGUSER=postgres
psql -q -d postgres -c "CREATE DATABASE ceiling"
psql -q -d ceiling -c "$(sed -n '/CREATE TABLE events/,/CREATE INDEX events_type/p' migrations/0001_events.sql)"
cat >"$TMP/append.sql" <<'SQL'
WITH current AS (SELECT coalesce(max(version), 0) AS v FROM events WHERE stream_id = 'bench-' || :client_id)
INSERT INTO events (stream_id, stream_type, version, type, data, metadata)
SELECT 'bench-' || :client_id, 'bench', current.v + 1, 'test.counted.v1', '{"n":1}', '{"actor":"bench"}' FROM current;
SQL

ceiling() { # clients -> tps
  psql -q -d ceiling -c "TRUNCATE events" -c "CHECKPOINT"
  "$PGBENCH" -n -M prepared -c "$1" -j 2 -T "$T" -f "$TMP/append.sql" ceiling 2>&1 | awk '/^tps/ {printf "%.0f", $3}'
}
store() { # benchmark regexp -> "mode events/s [p50 p99]" lines
  psql -q -d postgres -c "CHECKPOINT"
  (cd internal/eventstore && TEST_DATABASE_URL=$DATABASE_URL "$TMP/eventstore.test" -test.run '^$' \
    -test.bench "$1" -test.benchtime "${T}s") |
    awk '/^BenchmarkAppend/ && !/events-per-append/ {m=$1; sub(/^BenchmarkAppend\//, "", m); sub(/\/streams=.*/, "", m); eps=""; lat=""
      for (i = 3; i < NF; i++) { if ($(i+1) == "events/s") eps=$i; else if ($(i+1) ~ /^p(50|99)/) lat=lat " " $(i+1) " " $i }
      print m, eps, lat}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

report "# append-ratio $(date -u +%FT%TZ) $(git rev-parse --short HEAD), ${T} s per run, $(nproc) cores"
fsync_tool=$(dirname "$(readlink -f "$PGBENCH")")/pg_test_fsync
[ -x "$fsync_tool" ] || fsync_tool=$(ls /usr/lib/postgresql/*/bin/pg_test_fsync 2>/dev/null | head -1)
[ -n "$fsync_tool" ] && report "## disk flush rate (pg_test_fsync, fdatasync): $("$fsync_tool" -s 2 -f "$TMP/fsync.test" 2>/dev/null |
  awk '$1=="fdatasync" {print $2, $3, $4, $5; exit}')"
for round in $(seq 1 "$ROUNDS"); do
  for writers in 1 32; do
    load=$(uptime | sed 's/.*load average: //')
    before=$(ceiling "$writers")
    results=$(store "Append/^committed(-1by1|\+notifier)?\$/^streams=$writers\$")
    after=$(ceiling "$writers")
    # The disk's flush rate drifts with the neighbours' load: the store is
    # held to the mean of the ceilings measured just before and just after it.
    c=$(awk -v a="$before" -v b="$after" 'BEGIN { printf "%.0f", (a + b) / 2 }')
    report "## round $round, $writers writer(s) on $writers stream(s), load $load"
    report "ceiling (pgbench)          $c tps (before $before, after $after)"
    while read -r mode eps rest; do
      report "$(printf '%-26s %s events/s  %s  -> %sx ceiling' "$mode" "$eps" "$rest" "$(ratio "$eps" "$c")")"
    done <<<"$results"
  done
done
