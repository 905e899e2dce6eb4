package dashboard_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/dashboard"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/projection"
	"github.com/photo3d/photo3d/internal/workspace"
)

var now = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func ids(in []dashboard.Insight) []string {
	out := []string{}
	for _, i := range in {
		out = append(out, i.ID)
	}
	return out
}

func TestInsights(t *testing.T) {
	t.Parallel()
	ready := &workspace.Item{ID: "j1", Label: "Oak chair", Path: "/preview/j1"}
	pro := workspace.Usage{Plan: "pro"}
	cases := []struct {
		name string
		sum  workspace.Summary
		want []string
	}{
		{"a new account is told to build a first model", workspace.Summary{}, []string{"first-model"}},
		{"nothing to say", workspace.Summary{Blueprints: 2, Ready: 1, LatestReady: ready, Publications: 1, Usage: pro}, []string{}},
		{"failed builds since the last success", workspace.Summary{Blueprints: 3, FailedSinceReady: 2, Usage: pro}, []string{"failed-builds"}},
		{"credits low on free (3 of 5 left)", workspace.Summary{Blueprints: 2, Usage: workspace.Usage{CreditsUsed: 2}}, []string{"credits-low"}},
		{"credits fine on free (4 of 5 left)", workspace.Summary{Blueprints: 1, Usage: workspace.Usage{CreditsUsed: 1}}, []string{}},
		{"credits low on pro (10 of 50 left)", workspace.Summary{Blueprints: 1, Usage: workspace.Usage{Plan: "pro", CreditsUsed: 40}}, []string{"credits-low"}},
		{"credits out, reservations count", workspace.Summary{Blueprints: 1, Usage: workspace.Usage{CreditsUsed: 4, CreditsReserved: 1}}, []string{"credits-out"}},
		{"enterprise never runs low", workspace.Summary{Blueprints: 1, Usage: workspace.Usage{Plan: "enterprise", CreditsUsed: 999, ViewsUsed: 1 << 40}}, []string{}},
		{"views at 80%", workspace.Summary{Blueprints: 1, Usage: workspace.Usage{Plan: "pro", ViewsUsed: 20_000}}, []string{"views-low"}},
		{"views at 79%", workspace.Summary{Blueprints: 1, Usage: workspace.Usage{Plan: "pro", ViewsUsed: 19_999}}, []string{}},
		{"ready but never shared (pro)", workspace.Summary{Blueprints: 1, Ready: 1, LatestReady: ready, Usage: pro}, []string{"first-share-link"}},
		// Issue 50 item 6: pages published before a downgrade to Free.
		{"live pages on free with no views are offline", workspace.Summary{Blueprints: 1, Ready: 1, LatestReady: ready, Publications: 2,
			LivePages: workspace.LivePages{Products: 1, Galleries: 1}}, []string{"pages-offline"}},
		{"live pages on free with a views pack left stay up", workspace.Summary{Blueprints: 1, Ready: 1, LatestReady: ready, Publications: 1,
			LivePages: workspace.LivePages{Products: 1}, Usage: workspace.Usage{ViewsPurchased: 10_000, ViewsUsed: 10}}, []string{}},
		{"live pages on pro are up", workspace.Summary{Blueprints: 1, Ready: 1, LatestReady: ready, Publications: 1,
			LivePages: workspace.LivePages{Products: 1}, Usage: pro}, []string{}},
		{"problems come first", workspace.Summary{Blueprints: 4, Ready: 1, LatestReady: ready, FailedSinceReady: 1,
			Usage: workspace.Usage{Plan: "pro", CreditsUsed: 45, ViewsUsed: 25_000}}, []string{"failed-builds", "credits-low", "views-low", "first-share-link"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, ids(dashboard.Insights(c.sum, now)))
		})
	}
}

func TestInsightWording(t *testing.T) {
	t.Parallel()
	ready := &workspace.Item{ID: "j1", Label: "Oak chair", Path: "/preview/j1"}
	in := dashboard.Insights(workspace.Summary{Blueprints: 3, FailedSinceReady: 2, Usage: workspace.Usage{CreditsUsed: 2}}, now)
	require.Equal(t, "2 builds failed", in[0].Title)
	require.Equal(t, "/workspace/blueprints", *in[0].Path)
	require.Equal(t, "3 AI credits left", in[1].Title)
	require.Equal(t, "/workspace/subscription", *in[1].Path)

	in = dashboard.Insights(workspace.Summary{Blueprints: 1, FailedSinceReady: 1, Usage: workspace.Usage{Plan: "pro", CreditsUsed: 49}}, now)
	require.Equal(t, "1 build failed", in[0].Title)
	require.Equal(t, "1 AI credit left", in[1].Title)

	in = dashboard.Insights(workspace.Summary{Blueprints: 1, Ready: 1, LatestReady: ready, Usage: workspace.Usage{Plan: "pro"}}, now)
	require.Equal(t, "Publish your first share link", in[0].Title)
	require.Equal(t, "“Oak chair” is ready. Publish it as a share link, embed or QR code so shoppers can see it in 3D.", in[0].Message)
	require.Equal(t, "/preview/j1", *in[0].Path)

	// On free, sharing needs Pro: the action is the subscription page.
	in = dashboard.Insights(workspace.Summary{Blueprints: 1, Ready: 1, LatestReady: ready}, now)
	require.Equal(t, "Share your 3D models by link", in[0].Title)
	require.Equal(t, "/workspace/subscription", *in[0].Path)

	// A trial still running counts as Pro.
	trialEnd := now.Add(time.Hour)
	in = dashboard.Insights(workspace.Summary{Blueprints: 1, Ready: 1, LatestReady: ready, Usage: workspace.Usage{TrialEndsAt: &trialEnd}}, now)
	require.Equal(t, "Publish your first share link", in[0].Title)

	in = dashboard.Insights(workspace.Summary{Blueprints: 1, Usage: workspace.Usage{Plan: "pro", ViewsUsed: 30_000}}, now)
	require.Equal(t, "Public views used up", in[0].Title)
	in = dashboard.Insights(workspace.Summary{Blueprints: 1, Usage: workspace.Usage{Plan: "pro", ViewsUsed: 21_000}}, now)
	require.Equal(t, "84% of public views used", in[0].Title)

	in = dashboard.Insights(workspace.Summary{Blueprints: 1, Publications: 3, LivePages: workspace.LivePages{Products: 2, Galleries: 1}}, now)
	require.Equal(t, "Your public pages are offline", in[0].Title)
	require.Equal(t, "The Free plan includes no public views, so shoppers can't open your 3 live pages. Upgrade to Pro to bring them back; nothing was unpublished.", in[0].Message)
	require.Equal(t, "/workspace/subscription", *in[0].Path)
}

type bundle struct {
	db     *dbtest.DB
	store  *eventstore.Store
	runner *projection.Runner
	svc    *dashboard.Service
}

func setup(t *testing.T) bundle {
	t.Helper()
	db := dbtest.New(t)
	store := eventstore.New(events.Domain())
	runner := projection.NewRunner(db.Pool, store, projection.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		workspace.NewProjection())
	return bundle{db: db, store: store, runner: runner,
		svc: dashboard.NewService(workspace.NewReader(db.Pool), time.Now)}
}

func (b bundle) emit(t *testing.T, stream events.Stream, evs ...events.Event) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, pgdb.WithTx(ctx, b.db.Pool, func(tx pgx.Tx) error {
		_, err := b.store.Append(ctx, tx, stream, eventstore.AnyVersion, evs...)
		return err
	}))
	_, err := b.runner.Drain(ctx, workspace.NewProjection())
	require.NoError(t, err)
}

func (b bundle) get(t *testing.T, user string) dashboard.Dashboard {
	t.Helper()
	d, err := b.svc.Get(context.Background(), user)
	require.NoError(t, err)
	return d
}

func TestDashboardFollowsTheUsersState(t *testing.T) {
	t.Parallel()
	b := setup(t)
	job := func(id string) events.Stream { return events.Stream{Type: events.StreamJob, ID: id} }

	d := b.get(t, "u1")
	require.Empty(t, d.Recent)
	require.NotNil(t, d.Recent)
	require.NotNil(t, d.TopProducts)
	require.Empty(t, d.TopProducts, "no per-product analytics exist yet: nothing is invented")
	require.Equal(t, []string{"first-model"}, ids(d.Insights))

	for i := range 2 {
		id := fmt.Sprint("f", i)
		b.emit(t, job(id), events.JobQueued{JobID: id, UserID: "u1", Name: fmt.Sprint("Lamp ", i)})
		b.emit(t, job(id), events.JobFailed{JobID: id, Reason: "Too dark"})
	}
	d = b.get(t, "u1")
	require.Equal(t, []string{"failed-builds"}, ids(d.Insights))
	require.Equal(t, "2 builds failed", d.Insights[0].Title)
	require.Len(t, d.Recent, 2)
	require.Equal(t, "error", d.Recent[0].Status)

	b.emit(t, job("ok"), events.JobQueued{JobID: "ok", UserID: "u1", Name: "Oak chair"})
	b.emit(t, job("ok"), events.JobCompleted{JobID: "ok"})
	b.emit(t, events.Stream{Type: events.StreamSubscription, ID: "u1"}, events.TrialStarted{UserID: "u1", Days: 7, At: time.Now()})
	d = b.get(t, "u1")
	require.Equal(t, []string{"first-share-link"}, ids(d.Insights), "a success clears the failure advice")
	require.Equal(t, "/preview/ok", *d.Insights[0].Path)
	require.Equal(t, "ok", d.Recent[0].ID)
	require.Equal(t, "ready", d.Recent[0].Status)

	b.emit(t, events.Stream{Type: events.StreamPublication, ID: "p1"}, events.PublicationCreated{PublicationID: "p1", UserID: "u1", BlueprintID: "ok"})
	d = b.get(t, "u1")
	require.Empty(t, d.Insights, "nothing applies")
	require.NotNil(t, d.Insights)

	for i := range 6 {
		id := fmt.Sprint("n", i)
		b.emit(t, job(id), events.JobQueued{JobID: id, UserID: "u1", Name: fmt.Sprint("New ", i)})
	}
	d = b.get(t, "u1")
	require.Len(t, d.Recent, dashboard.RecentCount)
	require.Equal(t, "New 5", d.Recent[0].Label)
	require.Equal(t, "processing", d.Recent[0].Status)
	require.Empty(t, b.get(t, "u2").Recent)
}
