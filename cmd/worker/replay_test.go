package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/projection"
	"github.com/photo3d/photo3d/internal/publish"
)

// Every asynchronous read model the worker runs (deps.projections, so one
// added later is covered without touching this test) must come back from
// `worker replay NAME` exactly as incremental processing left it: the same
// rows in every table, whatever tables it writes. Incremental processing here
// is the worker's: small batches, caught up while the log is still growing.
func TestReplayOfEveryWorkerProjectionEqualsIncremental(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	// The publications read model is written inline with its events, as the
	// api does; `worker replay publications` must rebuild the same rows.
	d := &deps{pool: db.Pool, store: eventstore.New(events.Domain(), eventstore.WithInline(publish.Projection{})), log: log}
	projs := d.projections(nil)
	runner := projection.NewRunner(db.Pool, d.store, projection.Config{BatchSize: 7, Logger: log}, projs...)

	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for i := range 30 {
		u, j := fmt.Sprintf("u%02d", i%6), fmt.Sprintf("j%02d", i)
		at = at.Add(time.Minute)
		var evs []appended
		if i < 6 {
			evs = append(evs,
				appended{events.StreamUser, u, events.UserRegistered{UserID: u, Method: "password", At: at}},
				appended{events.StreamSubscription, u, events.SubscriptionOpened{UserID: u, Plan: "free", At: at}},
				appended{events.StreamSubscription, u, events.TrialStarted{UserID: u, Days: 14, At: at}})
		}
		evs = append(evs,
			appended{events.StreamJob, j, events.JobQueued{JobID: j, UserID: u, UploadID: "up" + j, Name: "Vase " + j, At: at}},
			appended{events.StreamSubscription, u, events.CreditsReserved{UserID: u, JobID: j, Amount: 1}},
			appended{events.StreamJob, j, events.JobStarted{JobID: j, Attempt: 1, At: at}},
			appended{events.StreamJob, j, events.JobProgressed{JobID: j, Step: "mesh", Percent: 50}})
		switch i % 5 {
		case 0, 1, 2:
			evs = append(evs,
				appended{events.StreamJob, j, events.JobCompleted{JobID: j, AssetID: "a" + j, ModelKey: "models/" + j + ".glb",
					ThumbnailKey: "models/" + j + ".png", Reconstructor: "builtin", Version: "1", At: at}},
				appended{events.StreamSubscription, u, events.CreditsConsumed{UserID: u, JobID: j, Amount: 1}})
			if i%3 == 0 {
				evs = append(evs, appended{events.StreamJob, j, events.BlueprintRenamed{JobID: j, Name: "Renamed " + j}},
					appended{events.StreamPublication, "p" + j, events.PublicationCreated{PublicationID: "p" + j, UserID: u, BlueprintID: j, Slug: "s" + j, At: at}},
					appended{events.StreamSubscription, u, events.PublicViewsConsumed{UserID: u, Amount: 3}})
				evs = append(evs, publicationLife("p"+j, j, i, at)...)
			}
			if i%4 == 0 {
				evs = append(evs, appended{events.StreamJob, j, events.BlueprintDeleted{JobID: j, At: at}})
			}
		case 3:
			evs = append(evs, appended{events.StreamJob, j, events.JobFailed{JobID: j, Reason: "The photo is too dark.", At: at}},
				appended{events.StreamSubscription, u, events.CreditsReleased{UserID: u, JobID: j, Amount: 1}})
		case 4:
			evs = append(evs, appended{events.StreamSubscription, u, events.AddonPurchased{UserID: u, Kind: "credits", Amount: 20, PriceINR: 499, Provider: "test", At: at}},
				appended{events.StreamSubscription, u, events.PublicViewsExhausted{UserID: u, PublicationID: "p" + j, At: at}})
		}
		require.NoError(t, pgdb.WithTx(ctx, db.Pool, func(tx pgx.Tx) error {
			for _, e := range evs {
				if _, err := d.store.Append(ctx, tx, events.Stream{Type: e.streamType, ID: e.id}, eventstore.AnyVersion, e.ev); err != nil {
					return err
				}
			}
			return nil
		}))
		if i%4 == 0 {
			for _, p := range projs {
				_, err := runner.CatchUp(ctx, p)
				require.NoError(t, err)
			}
		}
	}
	for _, p := range projs {
		_, err := runner.Drain(ctx, p)
		require.NoError(t, err)
	}
	incremental := dumpReadModels(t, db)
	require.NotEmpty(t, incremental)
	for k, v := range incremental {
		t.Logf("%s: %d rows", k, strings.Count(v, "\n")+1)
	}

	dataDir := t.TempDir() // generated secrets land here, not in the source tree
	getenv := func(k string) string {
		switch k {
		case "DATABASE_URL":
			return db.URL
		case "DATA_DIR":
			return dataDir
		}
		return ""
	}
	for _, p := range projs {
		var out bytes.Buffer
		require.NoError(t, replayCmd(ctx, []string{p.Name()}, getenv, &out, io.Discard), p.Name())
		require.Contains(t, out.String(), "replayed "+p.Name())
		require.Equal(t, incremental, dumpReadModels(t, db), "worker replay %s changed the read models", p.Name())
	}
	require.Contains(t, incremental, "publications")
	require.Contains(t, incremental, "publication_versions")
	// Inline read models the test's store keeps (see d.store above).
	for _, name := range []string{"publications"} {
		var out bytes.Buffer
		require.NoError(t, replayCmd(ctx, []string{name}, getenv, &out, io.Discard), name)
		require.Contains(t, out.String(), "replayed "+name)
		require.Equal(t, incremental, dumpReadModels(t, db), "worker replay %s changed the read models", name)
	}
}

// publicationLife is what merchants do to a page after creating it: new
// versions, a lock, embed origins, product-page settings and, for some, an
// unpublish followed by a new page for the same blueprint (the unique "one
// live page" index must hold in replay order too).
func publicationLife(id, blueprint string, i int, at time.Time) []appended {
	pub := func(ev events.Event) appended { return appended{events.StreamPublication, id, ev} }
	snap := map[string]any{"blueprintId": blueprint, "name": "Vase " + blueprint, "modelKey": "models/" + blueprint + ".glb"}
	out := []appended{
		pub(events.PublicationVersioned{PublicationID: id, Version: 1, Snapshot: snap, At: at}),
		pub(events.PublicationVersioned{PublicationID: id, Version: 2, Snapshot: snap, At: at.Add(time.Second)}),
		pub(events.PublicationLocked{PublicationID: id, Version: 1}),
		pub(events.PublicationEmbedOriginsSet{PublicationID: id, Origins: []string{"https://shop.example.com"}}),
		pub(events.PublicationSettingsChanged{PublicationID: id, RequireEmail: true, AllowDeepLinks: i%2 == 0, At: at}),
	}
	if i%2 == 0 {
		again := id + "-again"
		out = append(out, pub(events.PublicationUnpublished{PublicationID: id, At: at.Add(2 * time.Second)}),
			appended{events.StreamPublication, again, events.PublicationCreated{PublicationID: again, UserID: "u00",
				BlueprintID: blueprint, Slug: "s" + again, At: at.Add(3 * time.Second)}})
	}
	return out
}

type appended struct {
	streamType, id string
	ev             events.Event
}

// dumpReadModels prints every row of every table but the log itself, the
// checkpoints, River's and the migrations' bookkeeping, in a stable order.
func dumpReadModels(t *testing.T, db *dbtest.DB) map[string]string {
	t.Helper()
	ctx := context.Background()
	rows, err := db.Pool.Query(ctx, `SELECT quote_ident(table_name) FROM information_schema.tables
		WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
		  AND table_name NOT IN ('events', 'projection_checkpoints') AND table_name NOT LIKE 'river%' AND table_name NOT LIKE '%migration%'`)
	require.NoError(t, err)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	out := map[string]string{}
	for _, tbl := range tables {
		rows, err := db.Pool.Query(ctx, `SELECT t::text FROM `+tbl+` t ORDER BY 1`)
		require.NoError(t, err)
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		if len(lines) > 0 {
			out[tbl] = strings.Join(lines, "\n")
		}
	}
	return out
}
