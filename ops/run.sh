#!/usr/bin/env bash
# `make run`: everything a newcomer needs to see Photo3D on http://localhost:8080.
# Installs what is missing, starts a project-local Postgres under .data/ when
# DATABASE_URL is unset, migrates, builds the web app into the api, and runs api
# and worker until Ctrl-C, which stops all of it. Data survives restarts.
set -euo pipefail
cd "$(dirname "$0")/.."
. ops/lib.sh

need_go; need_node; need_curl; need_ffmpeg  # the worker cuts turntable videos into frames
export PORT=${PORT:-8080}
# A laptop has no mail relay: DEV_MODE keeps account mail (the verification
# link a new account needs) in the Outbox page /dev/mail, which only this
# machine can open. Set SMTP_ADDR to send through a real relay.
export DEV_MODE=${DEV_MODE:-true}
if [ "$DEV_MODE" = true ]; then
  # Nor a payment provider: purchases are accepted unpaid, on purpose and
  # said so below. Servers default to BILLING_PROVIDER=none, and refuse
  # test-mode without DEV_MODE.
  export BILLING_PROVIDER=${BILLING_PROVIDER:-test-mode}
  # Webhook receivers under development run on this machine (http://localhost…):
  # let endpoints use http and private addresses here only. Servers refuse them.
  export WEBHOOK_ALLOW_PRIVATE=${WEBHOOK_ALLOW_PRIVATE:-true}
fi
PGDIR=.data/pg
started_pg=0
if [ -z "${DATABASE_URL:-}" ]; then
  say "starting the local Postgres in $PGDIR"
  DATABASE_URL=$(ops/postgres.sh start "$PGDIR" "${PGPORT:-54329}" photo3d)
  export DATABASE_URL
  started_pg=1
fi

say "downloading Go modules"
go mod download || die "go mod download failed (is the Go module proxy reachable?)"
build_web
build_go

say "migrating the database"
bin/worker migrate

pids=()
cleanup() {
  trap - INT TERM EXIT
  say "stopping"
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if [ $started_pg = 1 ]; then ops/postgres.sh stop "$PGDIR"; fi
  say "stopped (data kept in .data/)"
}
trap cleanup INT TERM EXIT

bin/worker & pids+=($!)
bin/api & pids+=($!)

if wait_http "http://127.0.0.1:$PORT/healthz" 60; then
  say "Photo3D is running at ${PUBLIC_BASE_URL:-http://localhost:$PORT}  (Ctrl-C stops it)"
  if [ -n "${SMTP_ADDR:-}" ]; then
    say "account mail: sent through SMTP_ADDR=$SMTP_ADDR"
  elif [ "$DEV_MODE" = true ]; then
    say "account mail (sign-up verification, password resets): open the Outbox at http://localhost:$PORT/dev/mail"
  else
    say "account mail: dropped (no SMTP_ADDR and DEV_MODE=false) — new accounts cannot verify their address"
  fi
  bin/api phone-hint | while IFS= read -r l; do say "$l"; done || true
  if [ "${BILLING_PROVIDER:-}" = test-mode ]; then
    say "billing: test-mode — add-ons and plans are granted without payment (development only)"
  fi
else
  die "the api did not become healthy on port $PORT"
fi
# Exit when either process dies, so a crash is not hidden.
wait -n "${pids[@]}" || true
