#!/usr/bin/env bash
# `make test`: the whole suite against a throwaway Postgres that this script
# starts and removes itself: Go tests (race detector), web unit tests (Vitest)
# and browser tests (Playwright driving Debian's Chromium against the real api
# + worker). Installs what is missing. Exits non-zero on any failure.
#
#   ops/test.sh            everything
#   ops/test.sh go|web|e2e one part (the throwaway Postgres is started as needed)
#   E2E_SPECS="e2e/share.spec.ts" ops/test.sh e2e   only those browser specs
set -euo pipefail
cd "$(dirname "$0")/.."
. ops/lib.sh

# Each step's heading carries the time since the start, so a slow step shows.
T0=$SECONDS
say() { printf '\033[1m==> [%dm%02ds] %s\033[0m\n' $(((SECONDS - T0) / 60)) $(((SECONDS - T0) % 60)) "$*" >&2; }

parts=${1:-all}
want() { [ "$parts" = all ] || [ "$parts" = "$1" ]; }

need_go; need_node; need_curl; need_jq
# The Go tests encode real turntable videos and cut them into frames (issue 48).
if want go; then need_ffmpeg; fi
ARTIFACTS=${ARTIFACTS_DIR:-$PWD/artifacts}
mkdir -p "$ARTIFACTS"

TMP=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  ops/postgres.sh stop "$TMP/pg" || true
  rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

say "starting a throwaway Postgres"
PGPORT=$(free_port)
PG_EXTRA_OPTS="-c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
  ops/postgres.sh start "$TMP/pg" "$PGPORT" postgres >/dev/null
export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$PGPORT/postgres?sslmode=disable"

say "downloading Go modules and test tools"
go mod download

if want go && git rev-parse --git-dir >/dev/null 2>&1; then
  # A fresh clone must build and vet with Go alone, before any web build
  # (web/embed.go embeds web/dist, which only the committed .keep fills).
  # A checkout that is HEAD and nothing else (CI's fresh clone: nothing
  # modified, nothing untracked, no web build in web/dist) is vetted where it
  # is. Go's build cache keys each package by its directory too, so vetting a
  # copy (a new directory each run) compiled the api's own packages again on
  # every run, cache or no cache: 18 s here with a warm cache, and building
  # the api and worker after it took 36 s instead of 16 s with a cold one. A
  # working tree vets a clean export of HEAD, as a fresh clone would.
  if [ -z "$(git status --porcelain --untracked-files=all)" ] && \
     [ -z "$(git status --porcelain --ignored=matching --untracked-files=all -- web/dist)" ]; then
    say "go vet (a clean checkout of HEAD, no web build)"
    vet_dir=.
  else
    say "go vet on a clean export of HEAD (no web build)"
    vet_dir=$TMP/clean
    mkdir -p "$vet_dir" && git archive HEAD | tar -x -C "$vet_dir"
  fi
  (cd "$vet_dir" && go vet ./web/ ./cmd/api/) || die "go vet fails on a fresh clone (is web/dist/.keep committed?)"
fi
if want go; then
  # CPU-bound Go tests that share nothing with the steps below start now, at
  # the lowest priority: they take only what the other steps leave idle (a
  # fifth of both cores while the browser tests wait on the api, the worker
  # and Chromium) and are waited for after those.
  lib_gcflags=()
  # The libraries that the shape code (compute_pkgs, below) calls to decode
  # and encode images, PNG/zlib streams and glTF files, and to hash passwords,
  # are race-instrumented in no step: pure functions over buffers their
  # caller owns. Uninstrumented they cut the CPU of internal/httpapi's tests
  # by a third (168 s to 110 s user), in a step that keeps both cores busy. A
  # race on a buffer between two of our goroutines is still seen where our
  # code touches it.
  for p in 'image/...' 'compress/...' 'hash/...' 'github.com/klauspost/compress/...' \
           'github.com/qmuntal/gltf/...' 'golang.org/x/image/...' 'golang.org/x/crypto/argon2' 'golang.org/x/crypto/blake2b'; do
    lib_gcflags+=("-gcflags=$p=-race=false")
  done
  shape_race_tests='^(TestSpinHalvesBesideTheSearchBuildTheSameModel|TestSpinBuildCancelledStopsItsHalves|TestPhotosPreparedSideBySideAreTheSameViews)$'
  shape_race_count=3
  # The real-product shape regression (issue 34): openly licensed models that
  # are fetched, never committed (internal/reconstruct/testdata/real/MANIFEST).
  # It runs when a copy of their source is on this machine (ops/realset.sh's
  # default, or REALSET_GIT), without the race detector (CPU-bound), started
  # here (see above; at normal priority it took 190 CPU-s from the steps before
  # the browser tests); otherwise it says so here instead of skipping unseen.
  realset_git=${REALSET_GIT:-/work/.mirror/DRx3D+glTF-Sample-Assets-OLD/repo}
  if [ -f internal/reconstruct/testdata/real/SheenChair/model.gltf ] || \
     { [ -d "$realset_git" ] && ops/realset.sh "$realset_git" >/dev/null; }; then
    # With it, the GPU path's scoring through fake inference servers: a perfect
    # model must score 1 and every poor shape must carry the low-fidelity warning.
    say "real-product shape regression and the GPU path's scoring (no race detector) started beside the next steps"
    REQUIRE_REALSET=1 nice -n 19 go test -count=1 -timeout 60m -run '^(TestRealSetRegression|TestRealSetScoresARemoteReconstructor)$' -v ./internal/reconstruct \
      >"$ARTIFACTS/realset.log" 2>&1 & realset_pid=$!; pids+=($realset_pid)
  else
    printf '\n!! real-product shape regression NOT run: its models are not on this machine (see internal/reconstruct/testdata/real/MANIFEST; REALSET_GIT=path/to/a/git/copy)\n\n' >&2
  fi
  # The shape packages' goroutines (concurrent_files) under the race
  # detector, the shape packages instrumented: about a minute of one core,
  # at the lowest priority from here on, so it only takes what the steps
  # after it leave idle; waited for at the very end.
  say "the spin set's halves beside its search, under the race detector, started beside the next steps"
  nice -n 19 go test -race "${lib_gcflags[@]}" -count=1 -timeout 20m -run "$shape_race_tests" -v ./internal/reconstruct \
    >"$ARTIFACTS/shape-race.log" 2>&1 & shape_race_pid=$!; pids+=($shape_race_pid)
fi
# stripe-mock (Stripe's official API mock, a Go module) answers the Stripe
# calls of the billing tests and of the e2e billing api: STRIPE_API_BASE.
need_stripe_mock
say "starting stripe-mock $STRIPE_MOCK_VERSION"
STRIPE_PORT=$(free_port)
bin/stripe-mock -http-addr "127.0.0.1:$STRIPE_PORT" -https-addr "127.0.0.1:$(free_port)" >"$ARTIFACTS/stripe-mock.log" 2>&1 & pids+=($!)
export STRIPE_API_BASE="http://127.0.0.1:$STRIPE_PORT"
for _ in $(seq 1 100); do curl -s -o /dev/null "$STRIPE_API_BASE/v1/customers" && break; sleep 0.1; done
curl -s -o /dev/null "$STRIPE_API_BASE/v1/customers" || die "stripe-mock did not start (see $ARTIFACTS/stripe-mock.log)"
npm_ci tools/gltf-validator
npm_ci tools/duckdb  # the analyst-query test reads exports with DuckDB
build_web   # the api embeds it; the browser tests use it
export REQUIRE_WEB_BUILD=1  # Go tests that need the built web app must not skip here

failed=()
if want go; then
  # The race detector slows CPU-bound code five- to tenfold. The shape and
  # sample packages start no goroutines (checked below), so their own tests
  # run without it; every other package's tests run with it.
  no_race='github.com/photo3d/photo3d/internal/(reconstruct(/[a-z]+)?|samples)$'
  # The same single-threaded compute code (shape reconstruction, JPEG
  # scaling, GLB writing, USDZ packing, image checks: no goroutines, no
  # locks, no shared state) is also linked into the api and worker tests,
  # which build models for real. There it is compiled without race
  # instrumentation (-gcflags PKG=-race=false): the race detector has no
  # concurrency of its own to watch in it, and instrumenting it tripled
  # the CPU of internal/httpapi's tests (368 s to 126 s user) and made
  # internal/job's seven times slower. The code around it, which owns the
  # goroutines, stays instrumented.
  compute_pkgs="$(go list ./internal/reconstruct/... | sed 's|.*/internal/||') samples jpegscale glbwrite channels/fit channels/usdz imagecheck"
  # The two exceptions (issue 48's speed target): a spin set's halves are
  # searched on a goroutine beside the whole set's search, and a set's photos
  # are decoded and segmented two at a time. Their tests run with the shape
  # packages instrumented, started above (shape_race_tests: each must pass).
  concurrent_files='internal/reconstruct/multiview/beside.go
internal/reconstruct/prepare.go'
  race_gcflags=()
  for p in $compute_pkgs; do
    if grep -l 'go func\|go [A-Za-z_.]*(\|errgroup\|sync\.\|singleflight' internal/$p/*.go 2>/dev/null | grep -v '_test.go$' | grep -vxF "$concurrent_files" | grep -q .; then
      die "internal/$p now starts goroutines or shares state: take it out of compute_pkgs in ops/test.sh (race-instrument it again)"
    fi
    race_gcflags+=("-gcflags=github.com/photo3d/photo3d/internal/$p=-race=false")
  done
  race_gcflags+=("${lib_gcflags[@]}")
  say "Go tests (race detector; single-threaded compute packages uninstrumented)"
  # internal/httpapi's tests run longest (about 200 s here) and finish the
  # step: named first, go test builds and starts them first, beside the rest.
  longest='github.com/photo3d/photo3d/internal/(httpapi|job)$'
  race_pkgs="$(go list ./... | grep -E "$longest") $(go list ./... | grep -Ev "$no_race" | grep -Ev "$longest")"
  if ! go test -race "${race_gcflags[@]}" -count=1 -timeout 15m $race_pkgs 2>&1 | tee "$ARTIFACTS/go-test.log"; then failed+=(go); fi
  # Issue 53: the chaos, scale and load harnesses at their smallest size
  # (ops/harness-smoke.sh), beside the CPU-bound steps below: the chaos run
  # mostly waits for River's rescuer, so it costs little wall time here.
  build_go
  say "reliability harness smoke (chaos, scaletest, loadtest) started beside the next steps"
  ops/harness-smoke.sh >"$ARTIFACTS/harness-smoke.log" 2>&1 & smoke_pid=$!; pids+=($smoke_pid)
  if want web; then
    # Vitest beside the uninstrumented Go tests and the drill, which leave
    # 35-47 % of a 2-core machine idle (the race step before leaves none).
    say "web unit tests (Vitest) started beside the next steps"
    (cd web && npm test --silent) >"$ARTIFACTS/vitest.log" 2>&1 & vitest_pid=$!; pids+=($vitest_pid)
  fi
  say "Go tests without the race detector (single-threaded shape code)"
  # The real-product tests run once, in the process started above (with their
  # data checked); a checkout that already holds the data would run them here too.
  if ! go test -count=1 -timeout 15m -skip '^(TestRealSetRegression|TestRealSetScoresARemoteReconstructor)$' \
      $(go list ./... | grep -E "$no_race") 2>&1 | tee -a "$ARTIFACTS/go-test.log"; then failed+=(go); fi
fi

if want go; then
  # Issue 31: back up a small seeded stack, restore it into a fresh cluster
  # and blob directory, replay every projection and compare (ops/backup-restore.sh).
  say "backup and restore drill"
  if ! ops/backup-restore.sh drill >"$ARTIFACTS/backup-drill.log" 2>&1; then
    tail -30 "$ARTIFACTS/backup-drill.log" >&2; failed+=(backup-drill)
  else
    grep -iE 'identical|recovery|restored' "$ARTIFACTS/backup-drill.log" | tail -5 || true
  fi
fi

if want go; then
  say "waiting for the reliability harness smoke"
  if wait "$smoke_pid"; then cat "$ARTIFACTS/harness-smoke.log"; else cat "$ARTIFACTS/harness-smoke.log" >&2; failed+=(harness-smoke); fi
fi

if want web; then
  if [ -n "${vitest_pid:-}" ]; then
    say "waiting for the web unit tests (Vitest)"
    if wait "$vitest_pid"; then tail -8 "$ARTIFACTS/vitest.log"; else cat "$ARTIFACTS/vitest.log"; failed+=(web); fi
  else
    say "web unit tests (Vitest)"
    if ! (cd web && npm test --silent) 2>&1 | tee "$ARTIFACTS/vitest.log"; then failed+=(web); fi
  fi
fi

if want e2e; then
  need_chromium
  need_mesa_gl
  build_go
  # The shopper simulator (analytics.spec.ts runs it against this stack).
  go build -o bin/shoppers ./ops/shoppers || die "go build ./ops/shoppers failed"
  say "browser tests against the real api + worker"
  E2E_DB="postgres://postgres@127.0.0.1:$PGPORT/e2e?sslmode=disable"
  psql "$TEST_DATABASE_URL" -qc 'DROP DATABASE IF EXISTS e2e WITH (FORCE)' -c 'CREATE DATABASE e2e' >/dev/null
  APIPORT=$(free_port)
  # The browser opens the app on 127.0.0.1 while PUBLIC_BASE_URL names
  # localhost: every URL the app hands the browser must work from whatever
  # host the user reached (same-origin blob URLs, CORS on signed GETs).
  # AUTH_RATE_LIMIT: two spec files at a time sign up and sign in from one
  # address, faster than the 20 a minute a real client gets.
  # ANALYTICS_ROLLUP_INTERVAL: analytics.spec.ts waits for the dashboard to
  # show its shoppers; at the default minute that wait held a test for 48 s.
  export DATABASE_URL=$E2E_DB DATA_DIR="$TMP/data" PORT=$APIPORT DEV_MODE=true LOG_LEVEL=warn \
    WORKER_METRICS_ADDR=127.0.0.1:$(free_port) PUBLIC_BASE_URL="http://localhost:$APIPORT" \
    WEBHOOK_ALLOW_PRIVATE=true AUTH_RATE_LIMIT=600 ANALYTICS_ROLLUP_INTERVAL=5s
  bin/worker migrate >/dev/null
  bin/worker >"$ARTIFACTS/worker.log" 2>&1 & pids+=($!)
  # TRUSTED_PROXIES: loopback may name the client in X-Forwarded-For, so each
  # simulated shopper (bin/shoppers) has an address of its own; browsers send
  # no such header and stay 127.0.0.1.
  TRUSTED_PROXIES=127.0.0.1/32 bin/api >"$ARTIFACTS/api.log" 2>&1 & pids+=($!)
  wait_http "http://127.0.0.1:$APIPORT/healthz" 60 || { tail -50 "$ARTIFACTS/api.log"; die "api did not start"; }
  # A second api on the same database sells through Stripe (stripe-mock):
  # billing.spec.ts runs against it; the other specs keep test-mode.
  BILLPORT=$(free_port)
  export E2E_STRIPE_WEBHOOK_SECRET="whsec_e2e_$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  PORT=$BILLPORT PUBLIC_BASE_URL="http://127.0.0.1:$BILLPORT" BILLING_PROVIDER=stripe \
    STRIPE_SECRET_KEY="sk_test_e2e0123456789abcdef0123456789abcdef" STRIPE_WEBHOOK_SECRET="$E2E_STRIPE_WEBHOOK_SECRET" \
    STRIPE_PRICE_PRO=price_pro_inr STRIPE_PRICE_CREDITS=price_credits_inr STRIPE_PRICE_VIEWS=price_views_inr \
    bin/api >"$ARTIFACTS/api-stripe.log" 2>&1 & pids+=($!)
  wait_http "http://127.0.0.1:$BILLPORT/healthz" 60 || { tail -50 "$ARTIFACTS/api-stripe.log"; die "the Stripe api did not start"; }
  export BILLING_BASE_URL="http://127.0.0.1:$BILLPORT"
  if ! (cd web && BASE_URL="http://127.0.0.1:$APIPORT" ARTIFACTS_DIR="$ARTIFACTS/screens" E2E_RETRIES=${E2E_RETRIES:-1} \
        npx playwright test ${E2E_SPECS:-}) 2>&1 | tee "$ARTIFACTS/e2e.log"; then
    failed+=(e2e)
  fi
  # A test that passed only on its retry is named, so a flaky test is seen and fixed.
  if grep -aqE '^\s+[0-9]+ flaky' "$ARTIFACTS/e2e.log"; then
    printf '\n!! flaky browser tests (passed on retry):\n' >&2
    sed -n '/^\s*[0-9]* flaky/,/^\s*[0-9]* passed/p' "$ARTIFACTS/e2e.log" >&2
  fi
fi

if want go && [ -n "${realset_pid:-}" ]; then
  say "waiting for the real-product shape regression and the GPU path's scoring"
  wait "$realset_pid" || true
  grep -E '^(\s+\||--- |ok|FAIL|\s+better|\s+fidelity)' "$ARTIFACTS/realset.log" || true
  grep -q '^--- PASS: TestRealSetRegression' "$ARTIFACTS/realset.log" || failed+=(realset)
  grep -q '^--- PASS: TestRealSetScoresARemoteReconstructor' "$ARTIFACTS/realset.log" || failed+=(realset-remote)
fi

if want go; then
  say "waiting for the spin set's halves under the race detector"
  if wait "$shape_race_pid" && [ "$(grep -c '^--- PASS' "$ARTIFACTS/shape-race.log")" = "$shape_race_count" ]; then
    grep -E '^(--- |ok)' "$ARTIFACTS/shape-race.log"
  else
    cat "$ARTIFACTS/shape-race.log" >&2; failed+=(shape-race)  # failed, or a test renamed and not run
  fi
fi

if [ ${#failed[@]} -gt 0 ]; then
  # The failing tests' names again, last: a CI log that keeps only its tail
  # must still say what failed.
  printf '\nWhat failed:\n' >&2
  case " ${failed[*]} " in *" go "*)
    grep -haE '^(--- FAIL|FAIL\s|panic:)' "$ARTIFACTS/go-test.log" | head -30 >&2 || true;; esac
  case " ${failed[*]} " in *" web "*)
    sed 's/\x1b\[[0-9;]*m//g' "$ARTIFACTS/vitest.log" | grep -aE '^ *(FAIL|×) ' | head -30 >&2 || true;; esac
  # The smoke's own log is printed long before this summary: repeat where it
  # failed, so that a CI log cut to its tail still says which harness and why.
  case " ${failed[*]} " in *" harness-smoke "*)
    { grep -aE -A25 '^!! .* smoke FAILED' "$ARTIFACTS/harness-smoke.log" || tail -15 "$ARTIFACTS/harness-smoke.log"; } | tail -60 >&2 || true;; esac
  case " ${failed[*]} " in *" e2e "*)
    grep -aE '^\s+[0-9]+\) \[chromium\]|^\s+✘' "$ARTIFACTS/e2e.log" | head -30 >&2 || true;; esac
  printf '\nFAILED: %s (logs and screenshots in %s)\n' "${failed[*]}" "$ARTIFACTS" >&2
  exit 1
fi
say "all tests passed"
