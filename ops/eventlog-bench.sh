#!/usr/bin/env bash
# The event log at scale: fills a throwaway Postgres with EVENTS (default
# 1,000,000) events shaped like real traffic, then times `worker export`
# (NDJSON and Parquet) and `worker replay` of every read model over them.
#
#   ops/eventlog-bench.sh                 1M events, everything
#   EVENTS=200000 ops/eventlog-bench.sh   fewer
#   REPLAY="notifications" ops/eventlog-bench.sh   only those replays ("" none)
#   PROFILE=1 ops/eventlog-bench.sh       also writes CPU profiles of the exports
#   KEEP=1 ops/eventlog-bench.sh          leave the cluster running (prints its URL)
#   BASE=b530f3a ops/eventlog-bench.sh    also time the worker built from that
#                                         commit on the same data (before/after)
#
# Each job is 10 events in job-J and subscription-U streams (queued, credits
# reserved, started, progressed ×5, completed, credits consumed); every 100
# jobs a user registers and starts a trial. Events are written 10,000 per
# transaction, so the log spans ~100 transaction ids. Results go to stdout and
# artifacts/eventlog-bench.txt. Timings are the machine's: on a loaded machine
# say so (the script prints the load average).
set -euo pipefail
cd "$(dirname "$0")/.."
. ops/lib.sh
need_go
EVENTS=${EVENTS:-1000000}
REPLAY=${REPLAY-notifications workspace_items accounts subscriptions catalogue publications}
bench_workdir  # $TMP; its throwaway cluster $TMP/pg goes on exit unless KEEP=1
mkdir -p artifacts
OUT=artifacts/eventlog-bench.txt
: >"$OUT"
report() { printf '%s\n' "$*" | tee -a "$OUT"; }

say "building worker"
go build -o "$TMP/worker" ./cmd/worker
WORKERS=(worker)
if [ -n "${BASE:-}" ]; then
  say "building worker at $BASE"
  mkdir -p "$TMP/base" && git archive "$BASE" | tar -x -C "$TMP/base"
  (cd "$TMP/base" && go build -o "$TMP/worker-base" ./cmd/worker) || die "cannot build $BASE"
  WORKERS=(worker-base worker)
fi
PGPORT=$(free_port)
PG_EXTRA_OPTS="-c fsync=off -c synchronous_commit=off -c shared_buffers=256MB" \
  ops/postgres.sh start "$TMP/pg" "$PGPORT" postgres >/dev/null
export DATABASE_URL="postgres://postgres@127.0.0.1:$PGPORT/bench?sslmode=disable"
PSQL=(psql -q -X -v ON_ERROR_STOP=1 "$DATABASE_URL")
psql -q -X "postgres://postgres@127.0.0.1:$PGPORT/postgres" -c 'CREATE DATABASE bench'
"$TMP/worker" migrate >/dev/null

jobs=$(( EVENTS / 10 ))
chunk=1000 # jobs per transaction: 10,000 events
say "writing ~$EVENTS events ($jobs jobs)"
t0=$(date +%s)
for (( lo = 0; lo < jobs; lo += chunk )); do
  hi=$(( lo + chunk < jobs ? lo + chunk : jobs ))
  "${PSQL[@]}" <<SQL
INSERT INTO events (stream_id, stream_type, version, type, data, occurred_at)
SELECT e.stream_id, e.stream_type, e.version, e.type, e.data,
       timestamptz '2026-01-01 00:00:00+00' + j * interval '3 seconds' + e.ord * interval '10 ms'
FROM generate_series($lo, $hi - 1) AS j,
LATERAL (SELECT 'u' || lpad((j / 100)::text, 7, '0') AS u, 'j' || lpad(j::text, 9, '0') AS id,
                timestamptz '2026-01-01 00:00:00+00' + j * interval '3 seconds' AS at) k,
LATERAL (
  SELECT * FROM (VALUES
    (0, 'user-' || k.u, 'user', 1, 'user.registered.v1',
        jsonb_build_object('userId', k.u, 'email', k.u || '@example.com', 'name', 'Merchant ' || k.u,
                           'firstName', 'Merchant', 'lastName', k.u, 'at', k.at)),
    (1, 'subscription-' || k.u, 'subscription', 1, 'subscription.trial_started.v1',
        jsonb_build_object('userId', k.u, 'days', 14, 'at', k.at))
  ) v(ord, stream_id, stream_type, version, type, data) WHERE j % 100 = 0
  UNION ALL
  SELECT * FROM (VALUES
    (2, 'job-' || k.id, 'job', 1, 'job.queued.v1',
        jsonb_build_object('jobId', k.id, 'userId', k.u, 'uploadId', 'up' || k.id, 'name', 'Vase no. ' || j,
                           'imageKey', 'uploads/' || k.u || '/' || k.id || '.jpg', 'at', k.at)),
    (3, 'subscription-' || k.u, 'subscription', 2 + 2 * (j % 100), 'subscription.credits_reserved.v1',
        jsonb_build_object('userId', k.u, 'jobId', k.id, 'amount', 1)),
    (4, 'job-' || k.id, 'job', 2, 'job.started.v1',
        jsonb_build_object('jobId', k.id, 'attempt', 1, 'worker', 'worker-1', 'at', k.at + interval '1 second')),
    (5, 'job-' || k.id, 'job', 3, 'job.progressed.v1', jsonb_build_object('jobId', k.id, 'step', 'segment', 'percent', 10)),
    (6, 'job-' || k.id, 'job', 4, 'job.progressed.v1', jsonb_build_object('jobId', k.id, 'step', 'depth', 'percent', 30)),
    (7, 'job-' || k.id, 'job', 5, 'job.progressed.v1', jsonb_build_object('jobId', k.id, 'step', 'mesh', 'percent', 50)),
    (8, 'job-' || k.id, 'job', 6, 'job.progressed.v1', jsonb_build_object('jobId', k.id, 'step', 'texture', 'percent', 70)),
    (9, 'job-' || k.id, 'job', 7, 'job.progressed.v1', jsonb_build_object('jobId', k.id, 'step', 'export', 'percent', 90)),
    (10, 'job-' || k.id, 'job', 8, 'job.completed.v1',
        jsonb_build_object('jobId', k.id, 'assetId', 'a' || k.id, 'modelKey', 'models/' || k.id || '.glb',
                           'thumbnailKey', 'models/' || k.id || '.png', 'bytes', 812345, 'parts', '[]'::jsonb,
                           'stats', jsonb_build_object('vertices', 24000, 'faces', 48000), 'reconstructor', 'builtin',
                           'version', '1', 'at', k.at + interval '2 seconds')),
    (11, 'subscription-' || k.u, 'subscription', 3 + 2 * (j % 100), 'subscription.credits_consumed.v1',
        jsonb_build_object('userId', k.u, 'jobId', k.id, 'amount', 1))
  ) v(ord, stream_id, stream_type, version, type, data)
) e
ORDER BY j, e.ord;
SQL
done
"${PSQL[@]}" -c 'VACUUM ANALYZE events' >/dev/null
n=$("${PSQL[@]}" -Atc 'SELECT count(*) FROM events')
size=$("${PSQL[@]}" -Atc "SELECT pg_size_pretty(pg_total_relation_size('events'))")
report "events: $n in $(( $(date +%s) - t0 )) s, table with indexes $size; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

timed() { # label command…: wall seconds and the client's own CPU
  local label=$1; shift
  local s e
  s=$(date +%s.%N)
  /usr/bin/time -f '%U %S %M' -o "$TMP/time" "$@" >"$TMP/cmd.out" 2>&1 || { cat "$TMP/cmd.out" >&2; die "$label failed"; }
  e=$(date +%s.%N)
  read -r user sys rss <"$TMP/time"
  report "$(printf '%-36s %7.2f s wall  client %5.2f s user %5.2f s sys  %4d MB RSS  (load %s)' \
    "$label" "$(echo "$e - $s" | bc)" "$user" "$sys" $(( rss / 1024 )) "$(cut -d' ' -f1 /proc/loadavg)")"
  tail -1 "$TMP/cmd.out" | tee -a "$OUT"
}

prof() { [ -n "${PROFILE:-}" ] && echo "-cpuprofile artifacts/export-$1-$2.pprof" || true; }
for w in "${WORKERS[@]}"; do
  # shellcheck disable=SC2046
  timed "$w export ndjson" "$TMP/$w" export -out "$TMP/events.ndjson" $(prof "$w" ndjson)
  report "  $(du -m "$TMP/events.ndjson" | cut -f1) MB"
  # shellcheck disable=SC2046
  timed "$w export parquet" "$TMP/$w" export -format parquet -out "$TMP/events.parquet" $(prof "$w" parquet)
  report "  $(du -m "$TMP/events.parquet" | cut -f1) MB"
done
for name in $REPLAY; do
  for w in "${WORKERS[@]}"; do
    known=$("$TMP/$w" replay 2>&1 || true) # the usage line lists the read models it knows
    if ! grep -qw -- "$name" <<<"$known"; then
      report "$w replay $name: not in that version"; continue
    fi
    timed "$w replay $name" "$TMP/$w" replay "$name"
  done
done
