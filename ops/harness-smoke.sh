#!/usr/bin/env bash
# The reliability harnesses at their smallest size, so that they cannot rot
# unnoticed outside the suite (issue 53): `make test` runs this after the
# Go tests. Each run asserts what it asserts in full and fails the script
# when its harness breaks:
#   ops/chaos      a few jobs, two workers, a few kill -9s, one Postgres restart,
#                  and every scenario (erasure and exports, Stripe webhooks
#                  across the outage, mail across an SMTP outage)
#   ops/scaletest  three jobs on one and on two worker processes
#   ops/loadtest   smoke: seed, run, meter and verify on a throwaway stack
# The three run side by side (the chaos run mostly waits); each prints to its
# own log under $ARTIFACTS_DIR (default artifacts/), shown when it fails.
#
#   ops/harness-smoke.sh            uses bin/api and bin/worker (builds them if missing)
#   SMOKE_ONLY="chaos" ops/harness-smoke.sh   one of chaos, scaletest, loadtest
set -euo pipefail
cd "$(dirname "$0")/.."
. ops/lib.sh
need_go
ARTIFACTS=${ARTIFACTS_DIR:-$PWD/artifacts}
mkdir -p "$ARTIFACTS"
[ -x bin/api ] && [ -x bin/worker ] || build_go
need_stripe_mock

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for tool in chaos scaletest loadtest; do
  go build -o "$TMP/$tool" "./ops/$tool" || die "go build ./ops/$tool failed"
done

want() { [ -z "${SMOKE_ONLY:-}" ] || [[ " $SMOKE_ONLY " == *" $1 "* ]]; }
declare -A runs=()
if want chaos; then
  "$TMP/chaos" -bin bin -stripe-mock bin/stripe-mock -m 6 -workers 2 -chaos 15s -kill-every 1500ms \
    -pg-restart-at 6s -pg-down 2s -reconstruct-timeout 4s -settle 100s -max 150s >"$ARTIFACTS/smoke-chaos.log" 2>&1 &
  runs[chaos]=$!
fi
if want scaletest; then
  "$TMP/scaletest" -bin bin -m 3 -procs 1,2 -max 120s >"$ARTIFACTS/smoke-scaletest.log" 2>&1 &
  runs[scaletest]=$!
fi
if want loadtest; then
  "$TMP/loadtest" smoke -bin bin -c 4 -d 3s -max 120s >"$ARTIFACTS/smoke-loadtest.log" 2>&1 &
  runs[loadtest]=$!
fi

failed=()
for name in "${!runs[@]}"; do
  if wait "${runs[$name]}"; then
    printf '%s: ' "$name"; grep -E '^(PASS|every job completed)' "$ARTIFACTS/smoke-$name.log" | tail -1
  else
    printf '\n!! %s smoke FAILED (%s):\n' "$name" "$ARTIFACTS/smoke-$name.log" >&2
    tail -25 "$ARTIFACTS/smoke-$name.log" >&2
    failed+=("$name")
  fi
done
[ ${#failed[@]} -eq 0 ] || die "harness smoke failed: ${failed[*]}"
