#!/usr/bin/env bash
# Backup and restore for Photo3D (issue 31 part 5), and the drill that proves
# a backup restores to the same product.
#
#   ops/backup-restore.sh backup DEST      back up DATABASE_URL and DATA_DIR/blobs into DEST
#   ops/backup-restore.sh restore SRC      restore SRC into DATABASE_URL (an empty database)
#                                          and DATA_DIR/blobs, then replay every projection
#   ops/backup-restore.sh drill            the whole thing on a small seeded stack:
#                                          throwaway clusters, compare, print recovery time
#
# The database part is pg_dump in custom format (plus pg_dumpall --globals-only
# for roles such as photo3d_analyst), not pg_basebackup: a logical dump is one
# consistent snapshot taken over an ordinary connection (a managed Postgres
# gives no replication slot or file access), restores into any newer major
# version and into a cluster of a different layout, and pg_restore can pick
# single tables. pg_basebackup copies the cluster's files and is what
# production uses together with WAL archiving for point-in-time recovery (see
# docs/operations.md): it cannot restore into another major version, and a
# snapshot alone is no better than this dump.
#
# Blobs (file store under DATA_DIR/blobs) are copied AFTER the dump: blobs
# are written before the rows that name them commit, so every blob the dump
# references is in the copy (extra unreferenced blobs are harmless and the
# storage clean-up removes them). Each backup carries a SHA-256 manifest of
# its blobs; restore verifies it. For s3/gs/azblob stores use the provider's
# bucket versioning and replication instead (docs/operations.md).
#
# Secrets (JWT_SECRET, BLOB_SECRET) are not in the backup: production keeps
# them in its secret manager; the drill does not need them.
set -euo pipefail
cd "$(dirname "$0")/.."
. ops/lib.sh

pgbin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
PGBIN=$(pgbin || true)
[ -n "$PGBIN" ] && export PATH="$PGBIN:$PATH"

# blob_manifest DIR: "sha256  ./path" per file, sorted (the identity of a blob store).
blob_manifest() {
  if [ -d "$1" ]; then (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum); fi
}

backup() {
  local dest=$1 data=${DATA_DIR:-.data}
  [ -n "${DATABASE_URL:-}" ] || die "backup: set DATABASE_URL"
  mkdir -p "$dest"
  pg_dumpall --globals-only --no-role-passwords -d "$DATABASE_URL" >"$dest/globals.sql"
  pg_dump -Fc --no-sync -d "$DATABASE_URL" -f "$dest/db.dump"
  # The source's transaction counter after the dump: events carry the xid of
  # the transaction that appended them, and async projections read in (xid,
  # position) order below the current snapshot, so the restored cluster's
  # counter must be past every restored xid (see restore and advance_xid).
  psql -Atq -d "$DATABASE_URL" -c "SELECT pg_current_xact_id()" >"$dest/xid.txt"
  blob_manifest "$data/blobs" >"$dest/blobs.sha256"
  tar -C "$data" -cf "$dest/blobs.tar" --files-from <(cd "$data" && [ -d blobs ] && find blobs -type f | LC_ALL=C sort || true)
  say "backup in $dest: $(du -sh "$dest" | cut -f1) ($(wc -l <"$dest/blobs.sha256") blobs)"
}

# The async and inline read models `worker replay` rebuilds from the log.
PROJECTIONS=(accounts subscriptions catalogue publications teams notifications workspace_items analytics)

restore() {
  local src=$1 data=${DATA_DIR:-.data}
  [ -n "${DATABASE_URL:-}" ] || die "restore: set DATABASE_URL (an empty database)"
  [ -f "$src/db.dump" ] || die "restore: $src/db.dump not found"
  # Roles first (photo3d_analyst's grants need it); "already exists" is fine.
  psql -q -d "$DATABASE_URL" -v ON_ERROR_STOP=0 -f "$src/globals.sql" >/dev/null 2>&1 || true
  # A cluster whose transaction counter is behind the backup's would hide new
  # events from the async projections (their xids would sort before the
  # restored ones): refuse, and say how to fix it.
  local need; need=$(cat "$src/xid.txt")
  local have; have=$(psql -Atq -d "$DATABASE_URL" -c "SELECT pg_current_xact_id()")
  if [ "$have" -le "$need" ]; then
    die "restore: this cluster's transaction counter ($have) is behind the backup's ($need). Stop the cluster and run: ops/backup-restore.sh advance-xid PGDATA $need"
  fi
  pg_restore --exit-on-error --no-owner -d "$DATABASE_URL" "$src/db.dump"
  mkdir -p "$data"
  tar -C "$data" -xf "$src/blobs.tar"
  diff -q <(blob_manifest "$data/blobs") "$src/blobs.sha256" >/dev/null || die "restore: blob checksums differ from the backup's manifest"
  for p in "${PROJECTIONS[@]}"; do
    bin/worker replay "$p" >/dev/null
  done
}

# table_digest URL: "table sha256(rows sorted as text)" for every table of the
# schema, so two databases compare in one diff.
table_digest() {
  local url=$1 t
  for t in $(psql -Atq -d "$url" -c "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'projection_checkpoints' ORDER BY 1"); do
    printf '%s %s\n' "$t" "$(psql -Atq -d "$url" -c "COPY (SELECT t::text FROM \"$t\" t ORDER BY 1) TO STDOUT" | sha256sum | cut -c1-16)"
  done
}

# as_pg runs a command as the cluster's owner (Postgres refuses root).
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# advance_xid PGDATA XID8: moves a STOPPED cluster's next transaction id past
# XID8 (pg_resetwal -e/-x; the commit-log segment for the new id is created
# zero-filled, as pg_resetwal's manual says). A cluster restored from a
# logical dump needs this; a physical restore (pg_basebackup + WAL) keeps the
# counter by itself.
advance_xid() {
  local pgdata=$1 target=$2
  local epoch=$(( target >> 32 )) xid=$(( (target & 0xffffffff) + 1000 ))
  local seg; seg=$(printf '%04X' $(( xid / 1048576 )))
  if [ ! -f "$pgdata/pg_xact/$seg" ]; then
    as_pg dd if=/dev/zero of="$pgdata/pg_xact/$seg" bs=262144 count=1 status=none
  fi
  as_pg pg_resetwal -e "$epoch" -x "$xid" -D "$pgdata" >/dev/null
}

# start_advanced DIR PORT XID8: a fresh cluster whose counter is past XID8.
start_advanced() {
  local dir=$1 port=$2 xid=$3
  ops/postgres.sh start "$dir" "$port" photo3d >/dev/null
  ops/postgres.sh stop "$dir"
  advance_xid "$dir/data" "$xid"
  ops/postgres.sh start "$dir" "$port" photo3d | tail -1
}

drill() {
  need_go
  tmp=$(mktemp -d /tmp/photo3d-drill.XXXXXX)
  pids=()
  cleanup_drill() {
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    ops/postgres.sh stop "$tmp/pg-src" >/dev/null 2>&1 || true
    ops/postgres.sh stop "$tmp/pg-dst" >/dev/null 2>&1 || true
    [ -n "${KEEP_DRILL:-}" ] || rm -rf "$tmp"
  }
  trap cleanup_drill EXIT
  say "building api, worker and the seeder"
  mkdir -p bin
  go build -o bin/api ./cmd/api && go build -o bin/worker ./cmd/worker && go build -o "$tmp/seed" ./ops/loadtest || die "go build failed"

  say "source stack: a fresh cluster, api + worker, one merchant with a built and published model"
  # The source plays a cluster that has lived a while (3 million
  # transactions): a restore that ignored the transaction counter would then
  # leave new events invisible to the projections (checked at the end).
  local src_url; src_url=$(start_advanced "$tmp/pg-src" "$(free_port)" 3000000)
  local port; port=$(free_port)
  (
    export DATABASE_URL=$src_url DATA_DIR=$tmp/src-data PORT=$port DEV_MODE=true LOG_LEVEL=warn \
      WORKER_METRICS_ADDR=127.0.0.1:$(free_port) PUBLIC_BASE_URL=http://127.0.0.1:$port
    bin/worker migrate >/dev/null
  )
  DATABASE_URL=$src_url DATA_DIR=$tmp/src-data PORT=$port DEV_MODE=true LOG_LEVEL=warn \
    WORKER_METRICS_ADDR=127.0.0.1:$(free_port) PUBLIC_BASE_URL=http://127.0.0.1:$port bin/worker >"$tmp/worker.log" 2>&1 & pids+=($!)
  DATABASE_URL=$src_url DATA_DIR=$tmp/src-data PORT=$port DEV_MODE=true LOG_LEVEL=warn \
    PUBLIC_BASE_URL=http://127.0.0.1:$port bin/api >"$tmp/api.log" 2>&1 & pids+=($!)
  wait_http "http://127.0.0.1:$port/healthz" 60 || { tail -30 "$tmp/api.log"; die "api did not start"; }
  DATA_DIR=$tmp/src-data "$tmp/seed" seed -base "http://127.0.0.1:$port" -views 0 >/dev/null || { tail -30 "$tmp/worker.log"; die "seeding failed"; }
  # Let the async projections catch up, then stop writers: the comparison
  # needs a source that no longer changes.
  sleep 2
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()

  say "backup (pg_dump + blobs)"
  local t0=$SECONDS
  DATABASE_URL=$src_url DATA_DIR=$tmp/src-data backup "$tmp/backup"
  local backup_s=$((SECONDS - t0))

  say "restore into a fresh cluster and directory, then replay every projection"
  local start_ns; start_ns=$(date +%s%N)
  local dst_port; dst_port=$(free_port)
  local dst_url; dst_url=$(start_advanced "$tmp/pg-dst" "$dst_port" "$(cat "$tmp/backup/xid.txt")")
  DATABASE_URL=$dst_url DATA_DIR=$tmp/dst-data restore "$tmp/backup"
  local recovery_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))

  say "compare every table and every blob with the source"
  table_digest "$src_url" >"$tmp/src.tables"
  table_digest "$dst_url" >"$tmp/dst.tables"
  if ! diff "$tmp/src.tables" "$tmp/dst.tables"; then
    die "restored tables differ from the source (left: source, right: restored)"
  fi
  diff <(blob_manifest "$tmp/src-data/blobs") <(blob_manifest "$tmp/dst-data/blobs") || die "restored blobs differ from the source"
  local rows; rows=$(psql -Atq -d "$dst_url" -c "SELECT count(*) FROM events")
  [ "$rows" -gt 0 ] || die "the seeded source has no events"
  local blobs; blobs=$(blob_manifest "$tmp/dst-data/blobs" | wc -l)
  [ "$blobs" -gt 0 ] || die "the seeded source has no blobs"
  say "the restored stack takes new work: one more merchant, and every projection sees its events"
  port=$(free_port)
  DATABASE_URL=$dst_url DATA_DIR=$tmp/dst-data PORT=$port DEV_MODE=true LOG_LEVEL=warn \
    WORKER_METRICS_ADDR=127.0.0.1:$(free_port) PUBLIC_BASE_URL=http://127.0.0.1:$port bin/worker >"$tmp/worker2.log" 2>&1 & pids+=($!)
  DATABASE_URL=$dst_url DATA_DIR=$tmp/dst-data PORT=$port DEV_MODE=true LOG_LEVEL=warn \
    PUBLIC_BASE_URL=http://127.0.0.1:$port bin/api >"$tmp/api2.log" 2>&1 & pids+=($!)
  wait_http "http://127.0.0.1:$port/healthz" 60 || { tail -30 "$tmp/api2.log"; die "restored api did not start"; }
  DATA_DIR=$tmp/dst-data "$tmp/seed" seed -base "http://127.0.0.1:$port" -views 0 >/dev/null || { tail -30 "$tmp/worker2.log"; die "seeding the restored stack failed"; }
  local lag=""
  for _ in $(seq 1 100); do
    lag=$(psql -Atq -d "$dst_url" -c "SELECT string_agg(name, ' ') FROM projection_checkpoints WHERE last_position < (SELECT max(position) FROM events)")
    [ -z "$lag" ] && break
    sleep 0.2
  done
  [ -z "$lag" ] || die "after the restore, these projections do not see new events: $lag"
  local users; users=$(psql -Atq -d "$dst_url" -c "SELECT count(*) FROM users")
  [ "$users" = 2 ] || die "the restored stack should have 2 merchants, has $users"
  say "drill passed: $(wc -l <"$tmp/src.tables") tables identical, $rows events, $blobs blobs identical"
  say "backup took ${backup_s}s; recovery (fresh cluster + pg_restore + blobs + replay of ${#PROJECTIONS[@]} projections) took ${recovery_ms} ms"
}

case "${1:-}" in
  backup) backup "${2:?usage: backup DEST}" ;;
  restore) restore "${2:?usage: restore SRC}" ;;
  drill) drill ;;
  advance-xid) advance_xid "${2:?usage: advance-xid PGDATA XID8}" "${3:?usage: advance-xid PGDATA XID8}" ;;
  *) sed -n '2,9p' "$0"; exit 2 ;;
esac
