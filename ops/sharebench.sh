#!/usr/bin/env bash
# Share page speed, measured on this machine in one run (issue 18):
#   1. throughput: GET /v/{slug} (every request a new, metered viewer) against
#      nginx serving the very same bytes as a static file, both on loopback,
#      same wrk load; prints req/s, p99 and the ratio;
#   2. a shopper's phone: Debian's Chromium, 390×844, 9 Mbit/s, 150 ms RTT,
#      software WebGL (ops/sharepage-load.mjs): LCP, model load, bytes.
#   3. metering under that load: many distinct shoppers (own address via
#      X-Forwarded-For from a trusted proxy, own viewer id) open the page of a
#      merchant with a small balance (10,000 views) and send the `view` beacon;
#      after the api stops, the database must hold every accepted view, the
#      counted ones must equal the views taken from the ledger, and none may
#      go over the balance (ops/loadtest meter + verify; exits non-zero if not).
# Everything runs against a throwaway Postgres and stops by itself.
#
#   ops/sharebench.sh                       bin/api as built (make build)
#   API_BINS="bin/api /tmp/old-api" ops/sharebench.sh   compare builds in one run
#   DURATION=15s CONNS=32 THREADS=2 PHONE_RUNS=3 SKIP_PHONE=1 SKIP_METER=1 SKIP_WRK=1 ...
#   SKIP_WRK=1 SKIP_METER=1 PHONE_RUNS=5 ops/sharebench.sh    the phone figures alone
#   PHONE_AB=variants.txt SKIP_WRK=1 SKIP_METER=1 SKIP_LOAD=1 ops/sharebench.sh   markup variants side by side
#   TRACE=/tmp/traces SKIP_WRK=1 SKIP_METER=1 PHONE_RUNS=1 ops/sharebench.sh   + where the phone's time goes
#   FLOOR=1 SKIP_WRK=1 SKIP_METER=1 SKIP_LOAD=1 PHONE_RUNS=10 ops/sharebench.sh   the page against its
#       floor: the same page with a one-triangle model (ops/sharepage-ab.mjs), interleaved; what is
#       left between the two is all the model costs, the floor is model-viewer's own on this machine
#   STACK=1 SKIP_PHONE=1 SKIP_METER=1 ops/sharebench.sh   the stack a merchant runs (`make run`): Postgres
#       with its default durability (fsync on), api and worker at make run's log level (info), all on
#       this machine's cores, instead of the lean bench settings (fsync off, LOG_LEVEL=warn)
#   BROWSER=1 ...   every request asks as Chrome does (Accept-Encoding: gzip, deflate, br, zstd): the api
#       sends its gzip page, nginx the same gzip bytes (gzip_static); without it, the plain page (curl, crawlers)
#   CEILING=1 ...   also a bare Go net/http server (ops/loadtest ceiling) answering with the api's own
#       response, headers and page, through the api's listener and timeouts, with nothing else: the most
#       any Go handler can reach against nginx here, printed beside the api
#   EXPERIMENT=1 ...   also a product page running a two-arm experiment against the same model's product
#       page without one, wrk on each twice, interleaved (plain, experiment, plain, experiment): every
#       request a new shopper, so each is assigned an arm and given the p3d_vid cookie (issue 52: within 5 %)
#   PROFILE=DIR ...   also a CPU profile of the api and of the worker during the api's wrk run (PPROF on
#       their internal metrics listeners), with `go tool pprof -top` of each printed and the files in DIR
set -euo pipefail
cd "$(dirname "$0")/.."
. ops/lib.sh
need_go
command -v wrk >/dev/null || die "wrk is missing: apt-get install -y wrk"
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || die "nginx is missing: apt-get install -y nginx-light"
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
API_BINS=${API_BINS:-bin/api}
DURATION=${DURATION:-15s}
CONNS=${CONNS:-32}
THREADS=${THREADS:-2}
[ -x bin/worker ] || build_go

TMP=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  ops/postgres.sh stop "$TMP/pg" >/dev/null 2>&1 || true
  rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

PGPORT=$(free_port)
if [ -n "${STACK:-}" ]; then
  # make run's stack: Postgres as ops/postgres.sh starts it for make run, make run's log level.
  ops/postgres.sh start "$TMP/pg" "$PGPORT" postgres >/dev/null
  LOG_LEVEL=${LOG_LEVEL:-info}
else
  PG_EXTRA_OPTS="-c fsync=off -c synchronous_commit=off" ops/postgres.sh start "$TMP/pg" "$PGPORT" postgres >/dev/null
  LOG_LEVEL=${LOG_LEVEL:-warn}
fi
export DATABASE_URL="postgres://postgres@127.0.0.1:$PGPORT/postgres?sslmode=disable"
# DEV_MODE only lets the seeding verify its merchants' addresses from the mail outbox; the rate
# limit and trusted proxy let wrk's viewers (one X-Forwarded-For each) through, as shoppers would be.
WORKER_MPORT=$(free_port)
[ -z "${PROFILE:-}" ] || export PPROF=true
export DATA_DIR="$TMP/data" LOG_LEVEL DEV_MODE=true PUBLIC_RATE_LIMIT=100000000 TRUSTED_PROXIES=127.0.0.1/32 \
  WORKER_METRICS_ADDR=127.0.0.1:$WORKER_MPORT
bin/worker migrate >/dev/null
bin/worker >"$TMP/worker.log" 2>&1 & WORKER_PID=$!; pids+=($WORKER_PID)
go build -o "$TMP/loadtest" ./ops/loadtest

start_api() { # $1 binary; sets API_PID, API and API_METRICS
  local port mport; port=$(free_port); mport=$(free_port)
  API_METRICS="http://127.0.0.1:$mport"
  METRICS_ADDR=127.0.0.1:$mport PORT=$port PUBLIC_BASE_URL="http://127.0.0.1:$port" "$1" >"$TMP/api-$port.log" 2>&1 & API_PID=$!
  pids+=($API_PID)
  API="http://127.0.0.1:$port"
  wait_http "$API/healthz" 60 || { tail -20 "$TMP/api-$port.log"; die "api $1 did not start"; }
}
stop_api() { kill -TERM "$API_PID"; wait "$API_PID" 2>/dev/null || true; }

# One merchant, one published model, shared by every build measured.
first=${API_BINS%% *}
start_api "$first"
say "seeding a published model"
SHARE=$("$TMP/loadtest" seed -base "$API" -views 10000 | tail -1)
SLUG=${SHARE##*/}
if [ -z "${SKIP_METER:-}" ]; then
  # A second merchant on the free plan with exactly one pack of views.
  SHARE2=$("$TMP/loadtest" seed -base "$API" -views 10000 -free 2>"$TMP/seed2.err" | tail -1)
  BALANCE=$(awk '/public views balance/ {print $NF}' "$TMP/seed2.err")
  [ -n "$BALANCE" ] || die "seed did not report the balance: $(cat "$TMP/seed2.err")"
fi
if [ -n "${EXPERIMENT:-}" ]; then
  say "seeding two product pages, one running an experiment"
  read -r EXP_PLAIN EXP_RUNNING < <("$TMP/loadtest" seed -base "$API" -views 10000 -experiment | tail -1)
  [ -n "$EXP_RUNNING" ] || die "seed -experiment printed no URLs"
fi
stop_api

# CPU seconds (user + system) a process, or every process whose command line
# names a pattern, has used so far: where a run's time goes across the stack.
cpu_of_pid() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$1/stat" 2>/dev/null || echo 0; }
cpu_of_cmd() { local t=0 p; for p in $(pgrep -f "$1"); do t=$(awk -v a="$t" -v b="$(cpu_of_pid "$p")" 'BEGIN {print a + b}'); done; echo "$t"; }
stack_cpu() { echo "$(cpu_of_pid "$API_PID") $(cpu_of_pid "$WORKER_PID") $(cpu_of_cmd "$TMP/pg")"; }

[ -z "${BROWSER:-}" ] || export ACCEPT_ENCODING="gzip, deflate, br, zstd" # read by ops/sharebench-viewers.lua
wrk_run() { # $1 url → "req/s p99"
  wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency -s ops/sharebench-viewers.lua "$1" >"$TMP/wrk.txt" 2>&1
  local rps p99
  rps=$(awk '/Requests\/sec/ {print $2}' "$TMP/wrk.txt")
  p99=$(awk '$1=="99%" {print $2}' "$TMP/wrk.txt")
  non2xx=$(awk '/Non-2xx/ {print $NF}' "$TMP/wrk.txt")
  echo "$rps $p99 ${non2xx:-0}"
}

printf '\n%-28s %12s %10s %8s %8s\n' "target ($CONNS conns, $DURATION)" "req/s" "p99" "non-2xx" "ratio" >&2
for bin in $API_BINS; do
  start_api "$bin"
  page="$API/v/$SLUG"
  # nginx serves exactly the bytes this build sends for the page.
  mkdir -p "$TMP/www"
  curl -fsS -A "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0 sharebench" "$page" >"$TMP/www/page.html"
  if [ -n "${CEILING:-}" ]; then # the api's own headers and page, for the bare net/http server
    curl -fsS -D "$TMP/www/page.headers" -o "$TMP/www/ceiling.html" -A "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0 sharebench" "$page"
  fi
  if [ -n "${BROWSER:-}" ]; then # the api's own gzip bytes, for nginx's gzip_static
    curl -fsS -H "Accept-Encoding: gzip" -A "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0 sharebench" "$page" >"$TMP/www/page.html.gz"
    gzip -t "$TMP/www/page.html.gz" || die "the api sent no gzip page"
  fi
  NPORT=$(free_port)
  cat >"$TMP/nginx.conf" <<CONF
worker_processes $(nproc);
pid $TMP/nginx.pid;
error_log $TMP/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $TMP/nginx-tmp; proxy_temp_path $TMP/nginx-tmp; fastcgi_temp_path $TMP/nginx-tmp;
  uwsgi_temp_path $TMP/nginx-tmp; scgi_temp_path $TMP/nginx-tmp;
  server { listen 127.0.0.1:$NPORT; root $TMP/www; default_type text/html;
    location / { try_files /page.html =404; add_header Cache-Control "private, no-store"; gzip_static on; gzip_vary on; } }
}
CONF
  mkdir -p "$TMP/nginx-tmp"
  "$NGINX" -c "$TMP/nginx.conf" -g 'daemon off;' 2>"$TMP/nginx.err" & NGINX_PID=$!; pids+=($NGINX_PID)
  wait_http "http://127.0.0.1:$NPORT/" 10 || die "nginx did not start: $(cat "$TMP/nginx.err")"
  if [ -n "${BROWSER:-}" ]; then
    for u in "http://127.0.0.1:$NPORT/" "$page"; do
      curl -fsS -o /dev/null -D - -H "Accept-Encoding: $ACCEPT_ENCODING" "$u" | grep -qi '^content-encoding: gzip' || die "$u sent no gzip page"
    done
  fi

  if [ -z "${SKIP_WRK:-}" ]; then
  read -r nrps np99 nbad < <(wrk_run "http://127.0.0.1:$NPORT/")
  if [ -n "${PROFILE:-}" ]; then # profile 10 s in the middle of the api's run
    mkdir -p "$PROFILE"; tag=$(basename "$bin")
    (sleep 2; curl -fsS -o "$PROFILE/$tag-api.pprof" "$API_METRICS/debug/pprof/profile?seconds=10") & prof_pids=($!)
    (sleep 2; curl -fsS -o "$PROFILE/$tag-worker.pprof" "http://127.0.0.1:$WORKER_MPORT/debug/pprof/profile?seconds=10") & prof_pids+=($!)
  fi
  read -r c_api0 c_worker0 c_pg0 < <(stack_cpu); t0=$(date +%s.%N)
  read -r arps ap99 abad < <(wrk_run "$page")
  read -r c_api1 c_worker1 c_pg1 < <(stack_cpu); t1=$(date +%s.%N)
  ratio=$(awk -v a="$arps" -v n="$nrps" 'BEGIN {printf "%.2f", a/n}')
  printf '%-28s %12s %10s %8s %8s\n' "nginx static" "$nrps" "$np99" "$nbad" "" >&2
  printf '%-28s %12s %10s %8s %8s\n' "$bin /v/{slug}" "$arps" "$ap99" "$abad" "${ratio}x" >&2
  if [ -n "${CEILING:-}" ]; then
    CPORT=$(free_port)
    "$TMP/loadtest" ceiling ${CEILING_FLAGS:-} -addr "127.0.0.1:$CPORT" -headers "$TMP/www/page.headers" -body "$TMP/www/ceiling.html" >/dev/null 2>"$TMP/ceiling.err" & CEIL_PID=$!
    pids+=($CEIL_PID)
    wait_http "http://127.0.0.1:$CPORT/" 10 || die "the ceiling server did not start: $(cat "$TMP/ceiling.err")"
    read -r crps cp99 cbad < <(wrk_run "http://127.0.0.1:$CPORT/")
    printf '%-28s %12s %10s %8s %8s\n' "bare net/http ${CEILING_FLAGS:-(ceiling)}" "$crps" "$cp99" "$cbad" "$(awk -v a="$crps" -v n="$nrps" 'BEGIN {printf "%.2f", a/n}')x" >&2
    kill -TERM "$CEIL_PID"; wait "$CEIL_PID" 2>/dev/null || true
  fi
  awk -v w="$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" -v a0="$c_api0" -v a1="$c_api1" -v k0="$c_worker0" -v k1="$c_worker1" \
    -v p0="$c_pg0" -v p1="$c_pg1" -v n="$(nproc)" 'BEGIN {
      printf "  CPU during the api run (%.1f s wall, %d cores = %.1f core-s): api %.1f, worker %.2f, postgres %.2f core-s; the rest (wrk, the kernel, other load) %.1f\n",
        w, n, w * n, a1 - a0, k1 - k0, p1 - p0, w * n - (a1 - a0) - (k1 - k0) - (p1 - p0) }' >&2
  if [ -n "${PROFILE:-}" ]; then
    wait "${prof_pids[@]}" || true
    for who in api worker; do
      printf '\n%s CPU profile (%s), top 15:\n' "$who" "$PROFILE/$tag-$who.pprof" >&2
      go tool pprof -top -nodecount=15 "$PROFILE/$tag-$who.pprof" 2>/dev/null | sed -n '1,22p' >&2 || true
    done
  fi
  fi
  if [ -n "${EXPERIMENT:-}" ] && [ -z "${SKIP_WRK:-}" ]; then
    plain="$API/v/${EXP_PLAIN##*/}" running="$API/v/${EXP_RUNNING##*/}"
    curl -fsS -A "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0 sharebench" "$running" | grep -q 'name="p3d-arm"' || die "the experiment page names no arm"
    sum_plain=0 sum_running=0
    for _ in $(seq "${EXP_PAIRS:-3}"); do
      for u in "$plain" "$running"; do
        read -r rps p99 bad < <(wrk_run "$u")
        if [ "$u" = "$plain" ]; then sum_plain=$(awk -v s="$sum_plain" -v x="$rps" 'BEGIN {print s + x}'); label="product page"
        else sum_running=$(awk -v s="$sum_running" -v x="$rps" 'BEGIN {print s + x}'); label="product page, experiment"; fi
        printf '%-28s %12s %10s %8s\n' "$label" "$rps" "$p99" "$bad" >&2
      done
    done
    awk -v p="$sum_plain" -v r="$sum_running" -v n="${EXP_PAIRS:-3}" 'BEGIN {
      printf "  experiment / plain: %.3f (means of %d runs each: %.0f vs %.0f req/s)\n", r / p, n, r / n, p / n }' >&2
  fi
  kill -TERM "$NGINX_PID"; wait "$NGINX_PID" 2>/dev/null || true

  if [ -z "${SKIP_PHONE:-}" ]; then
    need_chromium
    [ -n "${SKIP_LOAD:-}" ] || (cd web && node ../ops/sharepage-load.mjs "$page" "${PHONE_RUNS:-3}") | sed "s|^|$bin  |" >&2
    # PHONE_AB=FILE: also markup variants A/B (ops/sharepage-ab.mjs), one variant a line in FILE.
    if [ -n "${PHONE_AB:-}" ]; then
      mapfile -t variants <"$PHONE_AB"
      (cd web && SHOT_TAG="$(basename "$bin")-" node ../ops/sharepage-ab.mjs "$page" "${PHONE_RUNS:-3}" "${variants[@]}") | sed "s|^|$bin ab  |" >&2
    fi
    # FLOOR=1: the page against the same page with a one-triangle model (ops/sharepage-ab.mjs).
    if [ -n "${FLOOR:-}" ]; then
      (cd web && node ../ops/sharepage-ab.mjs "$page" "${PHONE_RUNS:-3}" page floor) | sed "s|^|$bin floor  |" >&2
    fi
    # TRACE=DIR: also one traced cold load per build (ops/sharepage-trace.mjs), trace files kept in DIR.
    if [ -n "${TRACE:-}" ]; then
      mkdir -p "$TRACE"
      (cd web && WARM=${WARM:-} node ../ops/sharepage-trace.mjs "$page" "$TRACE/$(basename "$bin")-$(date +%H%M%S).json") | sed "s|^|$bin trace  |" >&2
    fi
  fi
  stop_api
done

if [ -z "${SKIP_METER:-}" ]; then
  bin=${API_BINS##* }
  printf '\nmetering under load (%s, %s conns, %s, balance %s views)\n' "$bin" "$CONNS" "$DURATION" "$BALANCE" >&2
  start_api "$bin"
  "$TMP/loadtest" meter -url "$API/v/${SHARE2##*/}" -c "$CONNS" -d "$DURATION" -out "$TMP/meter.txt" >&2
  stop_api # the meter returns its lease and the event buffer is written
  read -r accepted notices <"$TMP/meter.txt"
  "$TMP/loadtest" verify -slug "${SHARE2##*/}" -beacons "$accepted" -notices "$notices" -balance "$BALANCE" >&2
fi
