#!/usr/bin/env bash
# Event append throughput (issue 18 item 4), fsync on and off, on throwaway
# clusters on this machine's disk:
#   - the disk's flush rate (pg_test_fsync): one writer with one event per
#     transaction cannot commit faster than one flush each;
#   - BenchmarkAppend (internal/eventstore): 1 writer on 1 stream and 32
#     writers on 32 streams, one event per transaction (pgdb.WithTx + Append,
#     what the api's write paths do), with and without a pgdb.Notifier;
#   - BenchmarkCreateCatalogConcurrent (internal/httpapi): POST /api/catalogs
#     end to end by 32 merchants at once.
#
#   ops/appendbench.sh                 this tree
#   BASE=fa13bbd ops/appendbench.sh    also the same benchmarks built from that
#                                      commit, alternating with this tree's on
#                                      the same clusters (before/after)
#   BENCHTIME=5s ROUNDS=3 ops/appendbench.sh   longer / repeated runs
#
# Results go to stdout and artifacts/appendbench.txt, with the load average:
# on a loaded machine the figures are indicative only.
set -euo pipefail
cd "$(dirname "$0")/.."
. ops/lib.sh
need_go
BENCHTIME=${BENCHTIME:-3s}
ROUNDS=${ROUNDS:-1}
bench_workdir  # $TMP; its clusters go on exit unless KEEP=1
mkdir -p artifacts
OUT=artifacts/appendbench.txt
: >"$OUT"
report() { printf '%s\n' "$*" | tee -a "$OUT"; }

build() { # build DIR NAME: the two benchmark binaries of the tree in DIR
  (cd "$1" && go test -c -o "$TMP/$2-eventstore.test" ./internal/eventstore &&
    go test -c -o "$TMP/$2-httpapi.test" ./internal/httpapi) || die "cannot build benchmarks in $1"
}
say "building benchmarks"
build . this
TREES=(this)
if [ -n "${BASE:-}" ]; then
  mkdir -p "$TMP/base" && git archive "$BASE" | tar -x -C "$TMP/base"
  # The end-to-end benchmark is newer than some bases: bring it along.
  [ -f "$TMP/base/internal/httpapi/write_bench_test.go" ] || cp internal/httpapi/write_bench_test.go "$TMP/base/internal/httpapi/"
  build "$TMP/base" base
  TREES=(base this)
fi

BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
PORT_ON=$(free_port)
ops/postgres.sh start "$TMP/pg" "$PORT_ON" postgres >/dev/null
PORT_OFF=$(free_port)
PG_EXTRA_OPTS="-c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
  ops/postgres.sh start "$TMP/pg-off" "$PORT_OFF" postgres >/dev/null
trap 'ops/postgres.sh stop "$TMP/pg-off" >/dev/null 2>&1 || true; bench_cleanup' EXIT INT TERM
DATABASE_URL="postgres://postgres@127.0.0.1:$PORT_ON/postgres?sslmode=disable"

report "# appendbench $(date -u +%FT%TZ) $(git rev-parse --short HEAD) base=${BASE:-none}"
report "## disk flush rate (pg_test_fsync -s 2, one 8 kB write, same disk as the clusters)"
"$BIN/pg_test_fsync" -s 2 -f "$TMP/fsync-test" 2>&1 | sed -n '/one 8kB write/,/^$/p' | tee -a "$OUT"

for round in $(seq 1 "$ROUNDS"); do
  for fsync in on off; do
    port=$PORT_ON; [ "$fsync" = off ] && port=$PORT_OFF
    url="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
    for tree in "${TREES[@]}"; do
      report "## round $round, fsync $fsync, $tree tree, $(uptime | sed 's/.*load/load/')"
      (cd internal/eventstore && TEST_DATABASE_URL=$url "$TMP/$tree-eventstore.test" -test.run '^$' \
        -test.bench 'Append/.*/streams=(1|32)$' -test.benchtime "$BENCHTIME") | grep -E '^Benchmark|FAIL' | tee -a "$OUT"
      (cd internal/httpapi && TEST_DATABASE_URL=$url "$TMP/$tree-httpapi.test" -test.run '^$' \
        -test.bench 'CreateCatalogConcurrent' -test.benchtime "$BENCHTIME") | grep -E '^Benchmark|FAIL' | tee -a "$OUT"
    done
  done
done
