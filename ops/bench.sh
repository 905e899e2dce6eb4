#!/usr/bin/env bash
# Benchmarks against a throwaway Postgres: event store appends, projector
# throughput, the reconstruct pipeline (one core) and whatever else declares
# Benchmark functions. Results are printed and saved to artifacts/bench.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
. ops/lib.sh
need_go
TMP=$(mktemp -d)
trap 'ops/postgres.sh stop "$TMP/pg"; rm -rf "$TMP"' EXIT
PGPORT=$(free_port)
PG_EXTRA_OPTS="-c fsync=off -c synchronous_commit=off" ops/postgres.sh start "$TMP/pg" "$PGPORT" postgres >/dev/null
export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$PGPORT/postgres?sslmode=disable"
mkdir -p artifacts
npm_ci tools/gltf-validator
go test -run '^$' -bench "${BENCH:-.}" -benchtime "${BENCHTIME:-2s}" ${BENCHPKGS:-./...} | tee artifacts/bench.txt
