package workspace_test

import (
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
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/projection"
	"github.com/photo3d/photo3d/internal/workspace"
)

type bundle struct {
	db     *dbtest.DB
	store  *eventstore.Store
	runner *projection.Runner
	proj   workspace.Projection
	reader *workspace.Reader
}

func setup(t *testing.T) bundle {
	t.Helper()
	db := dbtest.New(t)
	store := eventstore.New(events.Domain())
	proj := workspace.NewProjection()
	runner := projection.NewRunner(db.Pool, store, projection.Config{BatchSize: 4,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, proj)
	return bundle{db: db, store: store, runner: runner, proj: proj, reader: workspace.NewReader(db.Pool)}
}

func (b bundle) emit(t *testing.T, stream events.Stream, evs ...events.Event) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, pgdb.WithTx(ctx, b.db.Pool, func(tx pgx.Tx) error {
		_, err := b.store.Append(ctx, tx, stream, eventstore.AnyVersion, evs...)
		return err
	}))
}

func (b bundle) drain(t *testing.T) {
	t.Helper()
	_, err := b.runner.Drain(context.Background(), b.proj)
	require.NoError(t, err)
}

func (b bundle) queue(t *testing.T, user, id, name string) {
	t.Helper()
	b.emit(t, job(id), events.JobQueued{JobID: id, UserID: user, Name: name})
}

func (b bundle) search(t *testing.T, user, q string) []string {
	t.Helper()
	hits, err := b.reader.Search(context.Background(), user, q)
	require.NoError(t, err)
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Label
	}
	return out
}

func job(id string) events.Stream { return events.Stream{Type: events.StreamJob, ID: id} }

func (b bundle) recent(t *testing.T, user string) []workspace.Item {
	t.Helper()
	items, err := b.reader.Recent(context.Background(), user, 5)
	require.NoError(t, err)
	return items
}

func TestBlueprintLifecycle(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.queue(t, "u1", "j1", "  Oak chair ")
	b.drain(t)
	items := b.recent(t, "u1")
	require.Len(t, items, 1)
	require.Equal(t, workspace.Item{ID: "j1", Type: "blueprint", Label: "Oak chair", Status: "processing",
		UpdatedAt: items[0].UpdatedAt, Path: "/processing/j1"}, items[0])
	queuedAt := items[0].UpdatedAt

	b.emit(t, job("j1"), events.JobStarted{JobID: "j1", Attempt: 1})
	b.emit(t, job("j1"), events.JobProgressed{JobID: "j1", Step: "Analyzing Image", Percent: 20})
	b.drain(t)
	items = b.recent(t, "u1")
	require.Equal(t, "processing", items[0].Status)
	require.True(t, items[0].UpdatedAt.After(queuedAt), "progress is activity")

	b.emit(t, job("j1"), events.JobCompleted{JobID: "j1"})
	b.drain(t)
	items = b.recent(t, "u1")
	require.Equal(t, "ready", items[0].Status)
	require.Equal(t, "/preview/j1", items[0].Path)
	readyAt := items[0].UpdatedAt

	// A late progress event does not revive a finished build.
	b.emit(t, job("j1"), events.JobProgressed{JobID: "j1", Step: "Finalizing Details", Percent: 100})
	b.drain(t)
	items = b.recent(t, "u1")
	require.Equal(t, "ready", items[0].Status)
	require.Equal(t, readyAt, items[0].UpdatedAt)

	b.emit(t, job("j1"), events.BlueprintRenamed{JobID: "j1", Name: "Walnut chair"})
	b.queue(t, "u1", "j2", "")
	b.emit(t, job("j2"), events.JobFailed{JobID: "j2", Reason: "Too dark"})
	b.drain(t)
	items = b.recent(t, "u1")
	require.Len(t, items, 2)
	require.Equal(t, "Untitled model", items[0].Label)
	require.Equal(t, "error", items[0].Status)
	require.Equal(t, "/processing/j2", items[0].Path)
	require.Equal(t, "Walnut chair", items[1].Label)

	b.emit(t, job("j1"), events.BlueprintDeleted{JobID: "j1"})
	b.drain(t)
	items = b.recent(t, "u1")
	require.Len(t, items, 1)
	require.Equal(t, "j2", items[0].ID)
	require.Empty(t, b.search(t, "u1", "walnut"))
	require.Empty(t, b.recent(t, "u2"), "scoped to the owner")
}

func TestRecentIsTheFiveNewest(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i := range 7 {
		b.queue(t, "u1", fmt.Sprint("j", i), fmt.Sprint("Model ", i))
	}
	b.emit(t, job("j0"), events.JobCompleted{JobID: "j0"}) // the oldest becomes the most recent
	b.drain(t)
	var labels []string
	for _, it := range b.recent(t, "u1") {
		labels = append(labels, it.Label)
	}
	require.Equal(t, []string{"Model 0", "Model 6", "Model 5", "Model 4", "Model 3"}, labels)
}

func TestSearch(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, name := range []string{"Red sofa", "Sofa table", "Blue SOFA", "Lamp", "100% wool_rug", "sofa bed"} {
		b.queue(t, "u1", strings.ReplaceAll(strings.ToLower(name), " ", "-"), name)
	}
	b.queue(t, "u2", "theirs", "Sofa of someone else")
	for i := range 25 {
		b.queue(t, "u3", fmt.Sprint("c", i), fmt.Sprintf("Chair %02d", i))
	}
	b.drain(t)

	cases := []struct {
		name, user, q string
		want          []string
	}{
		{"prefix matches first, then newest", "u1", "sofa", []string{"sofa bed", "Sofa table", "Blue SOFA", "Red sofa"}},
		{"case-insensitive substring, trimmed", "u1", "  LAM ", []string{"Lamp"}},
		{"percent and underscore are literal", "u1", "0% wool_", []string{"100% wool_rug"}},
		{"underscore is not a wildcard", "u1", "l_mp", []string{}},
		{"empty after trimming", "u1", "   ", []string{}},
		{"no match", "u1", "zebra", []string{}},
		{"only the caller's items", "u2", "red", []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, b.search(t, c.user, c.q))
		})
	}

	chairs := b.search(t, "u3", "chair")
	require.Len(t, chairs, workspace.SearchLimit)
	require.Equal(t, "Chair 24", chairs[0], "newest first among equal matches")

	hits, err := b.reader.Search(context.Background(), "u1", "lamp")
	require.NoError(t, err)
	require.Equal(t, []workspace.SearchItem{{ID: "lamp", Label: "Lamp", Type: "Blueprint", Path: "/processing/lamp"}}, hits)

	_, err = b.reader.Search(context.Background(), "u1", strings.Repeat("x", workspace.MaxQueryLen+1))
	require.True(t, fault.IsKind(err, fault.Invalid))
}

func TestSummary(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	s, err := b.reader.Summary(ctx, "u1")
	require.NoError(t, err)
	require.Equal(t, workspace.Summary{}, s)

	b.queue(t, "u1", "old-fail", "Old")
	b.emit(t, job("old-fail"), events.JobFailed{JobID: "old-fail"})
	b.queue(t, "u1", "ok", "Chair")
	b.emit(t, job("ok"), events.JobCompleted{JobID: "ok"})
	b.queue(t, "u1", "f1", "Lamp")
	b.emit(t, job("f1"), events.JobFailed{JobID: "f1"})
	b.queue(t, "u1", "f2", "Vase")
	b.emit(t, job("f2"), events.JobFailed{JobID: "f2"})
	b.queue(t, "u1", "run", "Table")
	sub := events.Stream{Type: events.StreamSubscription, ID: "u1"}
	b.emit(t, sub, events.SubscriptionOpened{UserID: "u1", Plan: "free"})
	b.emit(t, sub, events.CreditsReserved{UserID: "u1", JobID: "ok", Amount: 1})
	b.emit(t, sub, events.CreditsConsumed{UserID: "u1", JobID: "ok", Amount: 1})
	b.emit(t, sub, events.AddonPurchased{UserID: "u1", Kind: "credits", Amount: 20})
	b.emit(t, events.Stream{Type: events.StreamPublication, ID: "p1"}, events.PublicationCreated{PublicationID: "p1", UserID: "u1", BlueprintID: "ok"})
	b.drain(t)

	s, err = b.reader.Summary(ctx, "u1")
	require.NoError(t, err)
	require.Equal(t, 5, s.Blueprints)
	require.Equal(t, 1, s.Ready)
	require.Equal(t, 1, s.Processing)
	require.Equal(t, 2, s.FailedSinceReady, "the failure before the success is old news")
	require.Equal(t, 1, s.Publications)
	require.Equal(t, "Chair", s.LatestReady.Label)
	require.Equal(t, workspace.Usage{Plan: "free", CreditsUsed: 1, CreditsPurchased: 20}, s.Usage)
	left, limited := s.Usage.CreditsLeft(time.Now())
	require.True(t, limited)
	require.Equal(t, int64(24), left)
}

func TestReplayEqualsIncremental(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	for i := range 15 {
		user, id := fmt.Sprint("u", i%2), fmt.Sprint("j", i)
		b.queue(t, user, id, fmt.Sprint("Model ", i))
		b.emit(t, job(id), events.JobStarted{JobID: id, Attempt: 1})
		switch i % 3 {
		case 0:
			b.emit(t, job(id), events.JobCompleted{JobID: id})
		case 1:
			b.emit(t, job(id), events.JobFailed{JobID: id, Reason: "Blurry"})
		}
		if i == 9 {
			b.emit(t, job("j3"), events.BlueprintRenamed{JobID: "j3", Name: "Renamed"})
			b.emit(t, job("j4"), events.BlueprintDeleted{JobID: "j4"})
		}
		b.emit(t, events.Stream{Type: events.StreamSubscription, ID: user},
			events.CreditsReserved{UserID: user, JobID: id, Amount: 1}, events.PublicViewsConsumed{UserID: user, Amount: int64(i)})
		if i%4 == 0 {
			_, err := b.runner.CatchUp(ctx, b.proj)
			require.NoError(t, err)
		}
	}
	b.drain(t)
	before := dump(t, b)

	_, err := b.runner.Replay(ctx, workspace.ProjectionName)
	require.NoError(t, err)
	require.Equal(t, before, dump(t, b))
}

func dump(t *testing.T, b bundle) string {
	t.Helper()
	var sb strings.Builder
	for _, q := range []string{
		`SELECT kind, item_id, user_id, label, status, path, created_at::text, updated_at::text, deleted::text FROM workspace_items ORDER BY kind, item_id`,
		`SELECT user_id, usage::text, publications FROM workspace_accounts ORDER BY user_id`,
	} {
		rows, err := b.db.Pool.Query(context.Background(), q)
		require.NoError(t, err)
		for rows.Next() {
			vals, err := rows.Values()
			require.NoError(t, err)
			fmt.Fprintln(&sb, vals...)
		}
		require.NoError(t, rows.Err())
		sb.WriteString("--\n")
	}
	require.Greater(t, sb.Len(), 100)
	return sb.String()
}

// A photo product saved without Generate 3D is a draft on the dashboard, and
// follows its build once one starts (issue 29 item 4).
func TestDraftProductIsADraftUntilItsBuildStarts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	product := events.Stream{Type: events.StreamProduct, ID: "p1"}
	b.emit(t, product, events.ProductCreated{ProductID: "p1", UserID: "u1", CatalogID: "c1", Name: "Vase"})
	b.drain(t)
	items := b.recent(t, "u1")
	require.Len(t, items, 1)
	require.Equal(t, "draft", items[0].Status)

	b.queue(t, "u1", "j1", "Vase")
	b.emit(t, product, events.ProductBuildStarted{ProductID: "p1", JobID: "j1"})
	b.drain(t)
	for _, it := range b.recent(t, "u1") {
		if it.ID == "p1" {
			require.Equal(t, "processing", it.Status)
		}
	}
}
