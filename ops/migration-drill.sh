#!/usr/bin/env bash
# Migration drill: a database made and used by an older commit, migrated by
# this tree. It builds api, worker and the seeder of BASE (a git revision) in
# a throw-away worktree, seeds three merchants on a fresh cluster (two with
# a published product, one with a running experiment), stops, then runs this
# tree's `worker migrate` and checks:
#   - every merchant row of a live account is in a workspace (issue 51);
#   - `worker replay teams` rebuilds the team tables the migration made;
#   - running the newest migration file again changes nothing;
#   - this tree's api serves the old merchants' pages.
#
#   BASE=93ffdfd ops/migration-drill.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. ops/lib.sh
base=${BASE:?set BASE to the revision whose database to migrate, e.g. BASE=93ffdfd}
tmp=$(mktemp -d /tmp/photo3d-migdrill.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  ops/postgres.sh stop "$tmp/pg" >/dev/null 2>&1 || true
  git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

say "building $base (old) and this tree (new)"
git worktree add -q --detach "$tmp/base" "$base"
(cd "$tmp/base" && go build -o "$tmp/api-old" ./cmd/api && go build -o "$tmp/worker-old" ./cmd/worker && go build -o "$tmp/seed-old" ./ops/loadtest)
go build -o "$tmp/api-new" ./cmd/api && go build -o "$tmp/worker-new" ./cmd/worker

port=$(free_port)
PG_EXTRA_OPTS="-c fsync=off" ops/postgres.sh start "$tmp/pg" "$(free_port)" postgres >"$tmp/pg.url"
url=$(tail -1 "$tmp/pg.url")
export DATABASE_URL=$url DATA_DIR=$tmp/data PORT=$port DEV_MODE=true LOG_LEVEL=warn PUBLIC_BASE_URL=http://127.0.0.1:$port
q() { psql -Atq -d "$url" -c "$1"; }

say "the old stack: migrate, three merchants"
WORKER_METRICS_ADDR=127.0.0.1:$(free_port) "$tmp/worker-old" migrate >/dev/null
WORKER_METRICS_ADDR=127.0.0.1:$(free_port) "$tmp/worker-old" >"$tmp/worker.log" 2>&1 & pids+=($!)
"$tmp/api-old" >"$tmp/api.log" 2>&1 & pids+=($!)
wait_http "http://127.0.0.1:$port/healthz" 60 || { tail -20 "$tmp/api.log"; die "old api did not start"; }
for flag in "" "" "-experiment"; do
  "$tmp/seed-old" seed $flag -base "http://127.0.0.1:$port" -views 0 -mail-dir "$tmp/data/outbox" >/dev/null ||
    { tail -20 "$tmp/worker.log"; die "seeding failed"; }
done
for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
pids=()
say "old database: migration $(q 'SELECT max(version) FROM schema_migrations'), $(q 'SELECT count(*) FROM users') accounts, $(q 'SELECT count(*) FROM products') products, $(q 'SELECT count(*) FROM publications') pages, $(q 'SELECT count(*) FROM events') events"

say "this tree migrates it"
WORKER_METRICS_ADDR=127.0.0.1:$(free_port) "$tmp/worker-new" migrate
say "new database: migration $(q 'SELECT max(version) FROM schema_migrations')"

outside=0
for t in $(q "SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'user_id' ORDER BY 1"); do
  n=$(q "SELECT count(*) FROM \"$t\" x WHERE x.user_id IN (SELECT id FROM users WHERE erased_at IS NULL)
    AND NOT EXISTS (SELECT 1 FROM workspaces w WHERE w.id = x.user_id)")
  outside=$((outside + n))
done
live=$(q 'SELECT count(*) FROM users WHERE erased_at IS NULL')
ws=$(q 'SELECT count(*) FROM workspaces')
owners=$(q "SELECT count(*) FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id AND w.owner_id = m.user_id WHERE m.role = 'owner'")
[ "$outside" = 0 ] || die "$outside merchant rows outside a workspace"
[ "$ws" = "$live" ] && [ "$owners" = "$live" ] || die "$live live accounts, $ws workspaces, $owners owners"
say "every merchant row is in its owner's workspace: $live accounts, $ws workspaces, $owners owners"

digest() { q "SELECT md5(coalesce(string_agg(x, ',' ORDER BY x), '')) FROM (
  SELECT (w.id, w.owner_id, w.require_approval, w.created_at)::text AS x FROM workspaces w
  UNION ALL SELECT (m.workspace_id, m.user_id, m.role, m.joined_at)::text FROM workspace_members m
  UNION ALL SELECT a::text FROM approvals a) s"; }
before=$(digest)
WORKER_METRICS_ADDR=127.0.0.1:$(free_port) "$tmp/worker-new" replay teams >/dev/null
[ "$(digest)" = "$before" ] || die "worker replay teams does not rebuild the migrated team tables"
newest=$(ls migrations/*.sql | sort | tail -1)
psql -q -d "$url" -v ON_ERROR_STOP=1 -f "$newest" 2>/dev/null >/dev/null
[ "$(digest)" = "$before" ] || die "running $newest again changed the team tables"
say "replay teams rebuilds the same tables; $newest runs again without a change"

WORKER_METRICS_ADDR=127.0.0.1:$(free_port) "$tmp/worker-new" >"$tmp/worker2.log" 2>&1 & pids+=($!)
"$tmp/api-new" >"$tmp/api2.log" 2>&1 & pids+=($!)
wait_http "http://127.0.0.1:$port/healthz" 60 || { tail -20 "$tmp/api2.log"; die "new api did not start"; }
served=0
for slug in $(q "SELECT slug FROM publications WHERE unpublished_at IS NULL"); do
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v/$slug")
  [ "$code" = 200 ] || die "GET /v/$slug answers $code after the migration"
  served=$((served + 1))
done
say "migration drill passed: $served live pages of the old merchants served by this tree"
