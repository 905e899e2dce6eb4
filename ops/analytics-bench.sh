#!/usr/bin/env bash
# The analytics dashboard at scale (issue 14): generates EVENTS (default
# 10,000,000) shopper events for one merchant over 90 days in a throwaway
# Postgres (fsync off), runs the worker's rollup over every day (shopper_days
# and the day cells of migration 0019), then times every dashboard query
# shape RUNS times (default 40) and prints p50/p95 per shape: GET
# /api/analytics for 7d/30d/90d/custom with no filter, each filter, two
# filters, the four triples and all four; the Breakdowns drawer and the
# product page tiles (also with 3 and 4 filters); Top Products.
# Also prints the generation and rollup times and the table sizes.
#
#   ops/analytics-bench.sh                       10M events, 40 runs per shape
#   EVENTS=1000000 RUNS=20 ops/analytics-bench.sh
#   EXACT_BELOW=-1 ops/analytics-bench.sh        time the exact path only
#   KEEP=1 ops/analytics-bench.sh                leave the cluster running (prints its URL)
#
# Results go to stdout and artifacts/analytics-bench.txt, with the load
# average: timings are the machine's.
set -euo pipefail
cd "$(dirname "$0")/.."
. ops/lib.sh
need_go
EVENTS=${EVENTS:-10000000}
RUNS=${RUNS:-40}
EXACT_BELOW=${EXACT_BELOW:-0}
bench_workdir  # $TMP; its throwaway cluster $TMP/pg goes on exit unless KEEP=1
mkdir -p artifacts
OUT=artifacts/analytics-bench.txt
: >"$OUT"

say "building worker and shoppers"
go build -o "$TMP/worker" ./cmd/worker
go build -o "$TMP/shoppers" ./ops/shoppers
PGPORT=$(free_port)
PG_EXTRA_OPTS="-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=512MB -c work_mem=64MB -c max_wal_size=4GB" \
  ops/postgres.sh start "$TMP/pg" "$PGPORT" postgres >/dev/null
export DATABASE_URL="postgres://postgres@127.0.0.1:$PGPORT/bench?sslmode=disable"
psql -q -X "postgres://postgres@127.0.0.1:$PGPORT/postgres" -c 'CREATE DATABASE bench'
"$TMP/worker" migrate >/dev/null

{
  echo "analytics-bench: EVENTS=$EVENTS RUNS=$RUNS EXACT_BELOW=$EXACT_BELOW  $(date -u +%FT%TZ)  cpus $(nproc)"
  echo "load before: $(uptime)"
  say "generating ~$EVENTS events and rolling up every day"
  "$TMP/shoppers" generate -db "$DATABASE_URL" -owner bench-owner -events "$EVENTS"
  echo "table total_size (pg_total_relation_size, partitions included)"
  psql -q -X -A -t -F ' ' "$DATABASE_URL" -c "
    SELECT t, pg_size_pretty(sum(pg_total_relation_size(c.oid))) FROM (VALUES ('shopper_events'), ('shopper_days'), ('shopper_day_cells')) v(t)
    JOIN pg_class c ON c.relname = v.t OR c.oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = v.t::regclass) GROUP BY t"
  psql -q -X -A -t "$DATABASE_URL" -c "SELECT 'shopper_days rows: ' || count(*) FROM shopper_days" \
    -c "SELECT 'day cells rows: ' || count(*) FROM shopper_day_cells"
  say "timing the dashboard queries"
  "$TMP/shoppers" dashboard -db "$DATABASE_URL" -owner bench-owner -runs "$RUNS" -exact-below "$EXACT_BELOW"
  echo "load after: $(uptime)"
} 2>&1 | tee -a "$OUT"
