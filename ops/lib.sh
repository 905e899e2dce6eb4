# Shared shell helpers for ops/run.sh and ops/test.sh (sourced, not executed).

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# need_go / need_node explain what to install when a toolchain is missing.
need_go() {
  command -v go >/dev/null 2>&1 || die "Go is not installed. Install Go 1.26 (https://go.dev/dl/) and run again."
}
need_node() {
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || die "Node.js and npm are not installed. Install Node 20 or newer (e.g. apt-get install -y nodejs npm) and run again."
}

# npm_ci DIR installs a front-end project's locked dependencies when they are
# missing or older than its package-lock.json.
npm_ci() {
  local dir=$1
  if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    say "installing npm packages in $dir"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci failed in $dir (is the npm registry reachable?)"
  fi
}

# build_web builds the single-page app into web/dist for the api to embed.
build_web() {
  npm_ci web
  say "building the web app"
  (cd web && npm run build --silent) || die "web build failed"
  touch web/dist/.keep
}

# build_go compiles both binaries into bin/.
build_go() {
  say "building api and worker"
  mkdir -p bin
  go build -o bin/api ./cmd/api && go build -o bin/worker ./cmd/worker || die "go build failed"
}

# need_stripe_mock installs stripe-mock (Stripe's official API mock, a Go
# module) into bin/ unless the pinned version is there: the billing tests,
# the e2e billing api and the chaos run's billing scenario talk to it.
STRIPE_MOCK_VERSION=v0.203.0
need_stripe_mock() {
  if [ -x bin/stripe-mock ] && [ "$(cat bin/.stripe-mock-version 2>/dev/null)" = "$STRIPE_MOCK_VERSION" ]; then return 0; fi
  say "building stripe-mock $STRIPE_MOCK_VERSION"
  mkdir -p bin
  GOBIN="$PWD/bin" go install "github.com/stripe/stripe-mock@$STRIPE_MOCK_VERSION" || die "go install stripe-mock failed (is the Go module proxy reachable?)"
  echo "$STRIPE_MOCK_VERSION" >bin/.stripe-mock-version
}

# free_port prints a TCP port nobody listens on, below the kernel's ephemeral range
# (32768–60999 on Linux): a port inside it can be handed to any outgoing connection
# between this check and the server's bind (a drill's worker once lost 58472 that way).
free_port() {
  local p lo=32768
  read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || lo=32768
  for _ in $(seq 1 50); do
    p=$(( (RANDOM % (lo - 15000)) + 15000 ))
    if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then echo $p; return 0; fi
  done
  die "no free port found"
}

# wait_http URL SECONDS waits until URL answers 200.
wait_http() {
  local url=$1 secs=${2:-30}
  for _ in $(seq 1 $((secs * 10))); do
    if curl -fsS -o /dev/null "$url" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  return 1
}

# need_chromium installs Debian's Chromium for browser tests (root), or explains.
need_chromium() {
  if [ -n "${CHROMIUM_PATH:-}" ] && [ -x "$CHROMIUM_PATH" ]; then return 0; fi
  if command -v chromium >/dev/null 2>&1; then export CHROMIUM_PATH=$(command -v chromium); return 0; fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing Chromium from Debian packages for the browser tests"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 && apt-get install -y -qq chromium >&2 || die "apt-get install chromium failed"
    export CHROMIUM_PATH=$(command -v chromium)
    return 0
  fi
  die "Chromium is needed for the browser tests: install it (sudo apt-get install -y chromium) or set CHROMIUM_PATH."
}

# need_ffmpeg installs Debian's FFmpeg (root), or explains: turntable videos
# (issue 48) are probed and cut into frames by ffprobe and ffmpeg, run by the
# worker and by the Go tests that encode real videos to check it.
need_ffmpeg() {
  command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing FFmpeg from Debian packages for turntable videos"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends ffmpeg; } >&2 || die "apt-get install ffmpeg failed"
    return 0
  fi
  die "FFmpeg is needed for turntable videos: install it (sudo apt-get install -y ffmpeg) and run again."
}

# need_mesa_gl installs Mesa's software OpenGL (llvmpipe) for the browser
# tests' WebGL. Chromium's own software renderer (SwiftShader) spends about
# 14 CPU-seconds on the first frame of every model-viewer page on a 2-core
# machine; llvmpipe behind ANGLE's GL-EGL backend about 3 (measured with
# one small model, same pixels). web/playwright.config.ts uses llvmpipe
# when its EGL driver is present, else SwiftShader: the tests pass either
# way, only slower.
need_mesa_gl() {
  if ls /usr/lib/*/libEGL_mesa.so.0 /usr/lib/*/dri/swrast_dri.so >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing Mesa's software OpenGL for the browser tests' WebGL"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq libegl1 libegl-mesa0 libgl1-mesa-dri; } >&2 && return 0
  fi
  printf '!! Mesa software OpenGL (libegl-mesa0, libgl1-mesa-dri) is missing: the browser tests use Chromium'"'"'s slower SwiftShader\n' >&2
}

need_curl() {
  command -v curl >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq >&2 && apt-get install -y -qq curl >&2 && return 0
  fi
  die "curl is needed: install it (sudo apt-get install -y curl)."
}

# need_jq: the API quick start of docs/api.md (run by a Go test) pipes answers
# through jq.
need_jq() {
  command -v jq >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq >&2 && apt-get install -y -qq jq >&2 && return 0
  fi
  die "jq is needed by the API quick-start test: install it (sudo apt-get install -y jq)."
}

# bench_workdir: a temporary folder ($TMP) for a benchmark's throwaway
# Postgres ($TMP/pg): both are removed when the script ends, unless KEEP is
# set, which leaves the cluster running and prints its DATABASE_URL.
bench_workdir() {
  TMP=$(mktemp -d)
  trap bench_cleanup EXIT INT TERM
}
bench_cleanup() {
  if [ -n "${KEEP:-}" ]; then say "cluster kept: $DATABASE_URL (stop: ops/postgres.sh stop $TMP/pg)"; return; fi
  ops/postgres.sh stop "$TMP/pg" >/dev/null 2>&1 || true
  rm -rf "$TMP"
}
