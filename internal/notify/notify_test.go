package notify_test

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
	"github.com/photo3d/photo3d/internal/notify"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/projection"
)

type bundle struct {
	db     *dbtest.DB
	store  *eventstore.Store
	runner *projection.Runner
	proj   notify.Projection
	svc    *notify.Service
}

func setup(t *testing.T) bundle {
	t.Helper()
	db := dbtest.New(t)
	store := eventstore.New(events.Domain())
	proj := notify.NewProjection()
	// A small batch size makes every test cross batch boundaries.
	runner := projection.NewRunner(db.Pool, store, projection.Config{BatchSize: 3,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, proj)
	return bundle{db: db, store: store, runner: runner, proj: proj, svc: notify.NewService(db.Pool)}
}

// emit appends events to a stream in their own transaction, as the API does.
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

func (b bundle) list(t *testing.T, user string) notify.List {
	t.Helper()
	l, err := b.svc.List(context.Background(), notify.Alone(user), 0)
	require.NoError(t, err)
	return l
}

func sub(user string) events.Stream { return events.Stream{Type: events.StreamSubscription, ID: user} }
func job(id string) events.Stream   { return events.Stream{Type: events.StreamJob, ID: id} }
func usr(id string) events.Stream   { return events.Stream{Type: events.StreamUser, ID: id} }

func titles(l notify.List) []string {
	out := make([]string, len(l.Items))
	for i, n := range l.Items {
		out[i] = n.Title
	}
	return out
}

func TestJobNotificationsAreAttributedToTheJobOwner(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.emit(t, usr("u1"), events.UserRegistered{UserID: "u1"})
	b.emit(t, job("j1"), events.JobQueued{JobID: "j1", UserID: "u1", Name: "Oak chair"})
	b.emit(t, job("j1"), events.JobStarted{JobID: "j1", Attempt: 1}, events.JobProgressed{JobID: "j1", Step: "Analyzing Image", Percent: 10})
	b.emit(t, job("j1"), events.BlueprintRenamed{JobID: "j1", Name: "Oak armchair"})
	b.emit(t, job("j1"), events.JobCompleted{JobID: "j1", AssetID: "a1"})
	b.emit(t, job("j2"), events.JobQueued{JobID: "j2", UserID: "u1", Name: "Lamp"})
	b.emit(t, job("j2"), events.JobFailed{JobID: "j2", Reason: "We could not find the product in the photo"})
	b.emit(t, job("j3"), events.JobQueued{JobID: "j3", UserID: "u2", Name: "Vase"})
	b.emit(t, job("j3"), events.JobCompleted{JobID: "j3"})
	// A job whose queueing we never saw has no owner we can tell: ignored.
	b.emit(t, job("ghost"), events.JobCompleted{JobID: "ghost"})
	b.drain(t)

	l := b.list(t, "u1")
	require.Equal(t, []string{"Your 3D model could not be built", "Your 3D model is ready", "Welcome to Photo3D"}, titles(l))
	require.Equal(t, 3, l.UnreadCount)

	failed, ready, welcome := l.Items[0], l.Items[1], l.Items[2]
	require.Equal(t, "“Lamp” could not be built: We could not find the product in the photo. No credits were used. Try a photo of the product on a plain background.", failed.Message)
	require.Equal(t, "/processing/j2", *failed.Link)
	require.Equal(t, "“Oak armchair” finished building. Open it to preview and share.", ready.Message)
	require.Equal(t, "/preview/j1", *ready.Link)
	require.Equal(t, "/workspace/upload", *welcome.Link)
	require.Nil(t, ready.ReadAt)
	require.True(t, failed.CreatedAt.After(ready.CreatedAt), "newest first")
	require.Equal(t, time.UTC, ready.CreatedAt.Location())

	other := b.list(t, "u2")
	require.Equal(t, []string{"Your 3D model is ready"}, titles(other))

	// Deleting the blueprint keeps the history but stops linking to it.
	b.emit(t, job("j1"), events.BlueprintDeleted{JobID: "j1"})
	b.drain(t)
	l = b.list(t, "u1")
	require.Nil(t, l.Items[1].Link)
	require.NotNil(t, l.Items[0].Link)
}

func TestSubscriptionNotifications(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.emit(t, sub("u1"), events.SubscriptionOpened{UserID: "u1", Plan: "free"})
	b.emit(t, sub("u1"), events.TrialStarted{UserID: "u1", Days: 7, At: time.Now()})
	b.emit(t, sub("u1"), events.AddonPurchased{UserID: "u1", Kind: "credits", Amount: 20, PriceINR: 500})
	b.emit(t, sub("u1"), events.AddonPurchased{UserID: "u1", Kind: "views", Amount: 10_000, PriceINR: 500})
	b.emit(t, events.Stream{Type: events.StreamPublication, ID: "p1"}, events.PublicViewsExhausted{UserID: "u1", PublicationID: "p1"})
	b.drain(t)

	l := b.list(t, "u1")
	require.Equal(t, []string{"Public views used up", "Added 10,000 views", "Added 20 AI credits", "Your Pro trial has started"}, titles(l))
	require.Equal(t, "Enjoy Pro features for 7 days: galleries, public share links and 50 AI credits.", l.Items[3].Message)
	for _, n := range l.Items {
		require.Equal(t, "/workspace/subscription", *n.Link)
	}
}

func TestViewsWarningOncePerThresholdCrossing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	consume := func(n int64) {
		b.emit(t, sub("u1"), events.PublicViewsConsumed{UserID: "u1", Amount: n})
	}
	warnings := func() []notify.Notification {
		var out []notify.Notification
		for _, n := range b.list(t, "u1").Items {
			if n.Title == "Public views running low" {
				out = append(out, n)
			}
		}
		return out
	}
	b.emit(t, sub("u1"), events.SubscriptionOpened{UserID: "u1", Plan: "free"})
	b.emit(t, sub("u1"), events.PlanChanged{UserID: "u1", From: "free", To: "pro", Provider: "test-mode"})
	consume(19_000) // 76 %
	b.drain(t)
	require.Empty(t, warnings())

	consume(1_000) // 80 %: crossing
	consume(1_000) // 84 %: still above, no repeat
	b.drain(t)
	w := warnings()
	require.Len(t, w, 1)
	require.Equal(t, "You have used 80% of your public views (20,000 of 25,000). Add a views pack to keep your share links working.", w[0].Message)

	b.emit(t, sub("u1"), events.AddonPurchased{UserID: "u1", Kind: "views", Amount: 10_000}) // 21,000 of 35,000: re-armed
	consume(6_000)                                                                           // 27,000 of 35,000 = 77 %
	b.drain(t)
	require.Len(t, warnings(), 1)
	consume(1_000) // 28,000 of 35,000 = 80 %: second crossing
	b.drain(t)
	require.Len(t, warnings(), 2)

	// Unlimited plans are never warned; a plan without views has nothing to measure.
	b.emit(t, sub("ent"), events.PlanChanged{UserID: "ent", From: "free", To: "enterprise"})
	b.emit(t, sub("ent"), events.PublicViewsConsumed{UserID: "ent", Amount: 1_000_000})
	b.emit(t, sub("free"), events.PublicViewsConsumed{UserID: "free", Amount: 10})
	b.drain(t)
	require.Empty(t, b.list(t, "ent").Items)
	require.Empty(t, b.list(t, "free").Items)
}

func TestTrialViewsCountAgainstProAllowanceAtTheEventsTime(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.emit(t, sub("u1"), events.TrialStarted{UserID: "u1", Days: 7, At: time.Now()})
	b.emit(t, sub("u1"), events.PublicViewsConsumed{UserID: "u1", Amount: 20_000})
	// A trial that ended long ago gives nothing: only purchased views count.
	b.emit(t, sub("u2"), events.TrialStarted{UserID: "u2", Days: 7, At: time.Now().Add(-30 * 24 * time.Hour)})
	b.emit(t, sub("u2"), events.AddonPurchased{UserID: "u2", Kind: "views", Amount: 10_000})
	b.emit(t, sub("u2"), events.PublicViewsConsumed{UserID: "u2", Amount: 8_500})
	b.drain(t)
	require.Contains(t, titles(b.list(t, "u1")), "Public views running low")
	l := b.list(t, "u2")
	require.Contains(t, titles(l), "Public views running low")
	require.Contains(t, l.Items[0].Message, "(8,500 of 10,000)")
}

func TestReadMarksAreScopedToTheOwner(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	for i := range 3 {
		b.emit(t, job(fmt.Sprint("j", i)), events.JobQueued{JobID: fmt.Sprint("j", i), UserID: "u1", Name: fmt.Sprint("Chair ", i)})
		b.emit(t, job(fmt.Sprint("j", i)), events.JobCompleted{JobID: fmt.Sprint("j", i)})
	}
	b.emit(t, usr("u2"), events.UserRegistered{UserID: "u2"})
	b.drain(t)

	l := b.list(t, "u1")
	require.Len(t, l.Items, 3)
	require.Equal(t, 3, l.UnreadCount)
	first := l.Items[0]

	n, err := b.svc.MarkRead(ctx, notify.Alone("u1"), first.ID)
	require.NoError(t, err)
	require.NotNil(t, n.ReadAt)
	require.Equal(t, first.ID, n.ID)
	again, err := b.svc.MarkRead(ctx, notify.Alone("u1"), first.ID)
	require.NoError(t, err)
	require.Equal(t, n.ReadAt, again.ReadAt, "the first read time is kept")
	require.Equal(t, 2, b.list(t, "u1").UnreadCount)

	// Someone else's notification and a made-up id look the same: not found.
	theirs := b.list(t, "u2").Items[0].ID
	for _, id := range []string{theirs, "nope"} {
		_, err = b.svc.MarkRead(ctx, notify.Alone("u1"), id)
		require.True(t, fault.IsKind(err, fault.NotFound), id)
	}
	require.Nil(t, b.list(t, "u2").Items[0].ReadAt)

	limited, err := b.svc.List(ctx, notify.Alone("u1"), 2)
	require.NoError(t, err)
	require.Len(t, limited.Items, 2)
	require.Equal(t, 2, limited.UnreadCount, "unread counts beyond the page")

	require.NoError(t, b.svc.MarkAllRead(ctx, notify.Alone("u1")))
	l = b.list(t, "u1")
	require.Zero(t, l.UnreadCount)
	for _, n := range l.Items {
		require.NotNil(t, n.ReadAt)
	}
	require.Equal(t, 1, b.list(t, "u2").UnreadCount)
}

// dump renders every table the projection writes, read marks joined in, so
// replay can be compared with incremental processing row for row.
func dump(t *testing.T, b bundle) string {
	t.Helper()
	ctx := context.Background()
	var sb strings.Builder
	for _, q := range []string{
		`SELECT n.id, n.user_id, n.kind, n.title, n.message, coalesce(n.link, '-'), coalesce(n.subject_id, '-'),
		        n.source_position::text, n.created_at::text, coalesce(r.read_at::text, 'unread')
		   FROM notifications n LEFT JOIN notification_reads r ON r.notification_id = n.id ORDER BY n.source_position, n.kind`,
		`SELECT job_id, user_id, name FROM notify_jobs ORDER BY job_id`,
		`SELECT user_id, usage::text, views_alerted::text FROM notify_usage ORDER BY user_id`,
	} {
		rows, err := b.db.Pool.Query(ctx, q)
		require.NoError(t, err)
		for rows.Next() {
			vals, err := rows.Values()
			require.NoError(t, err)
			fmt.Fprintln(&sb, vals...)
		}
		require.NoError(t, rows.Err())
		sb.WriteString("--\n")
	}
	return sb.String()
}

func TestReplayEqualsIncrementalIncludingReadMarks(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	for i := range 12 {
		user := fmt.Sprint("u", i%3)
		id := fmt.Sprint("j", i)
		if i < 3 {
			b.emit(t, usr(user), events.UserRegistered{UserID: user})
			b.emit(t, sub(user), events.PlanChanged{UserID: user, From: "free", To: "pro"})
		}
		b.emit(t, job(id), events.JobQueued{JobID: id, UserID: user, Name: fmt.Sprint("Model ", i)})
		if i%4 == 0 {
			b.emit(t, job(id), events.JobFailed{JobID: id, Reason: "Too dark"})
		} else {
			b.emit(t, job(id), events.JobCompleted{JobID: id})
		}
		b.emit(t, sub(user), events.PublicViewsConsumed{UserID: user, Amount: 5_000})
		if i == 7 {
			b.emit(t, job("j1"), events.BlueprintDeleted{JobID: "j1"})
		}
		if i == 9 { // issue 50 item 14: the notes about j2 take its new name
			b.emit(t, job("j2"), events.BlueprintRenamed{JobID: "j2", Name: "Renamed model"})
		}
		if i%5 == 0 { // incremental: catch up part-way through
			_, err := b.runner.CatchUp(ctx, b.proj)
			require.NoError(t, err)
		}
	}
	b.drain(t)
	l := b.list(t, "u1")
	_, err := b.svc.MarkRead(ctx, notify.Alone("u1"), l.Items[0].ID)
	require.NoError(t, err)
	require.NoError(t, b.svc.MarkAllRead(ctx, notify.Alone("u2")))
	before := dump(t, b)
	require.Contains(t, before, "views_low")
	require.Contains(t, before, "unread")
	require.Contains(t, before, "“Renamed model” finished building")
	require.NotContains(t, before, "“Model 2”")

	n, err := b.runner.Replay(ctx, notify.ProjectionName)
	require.NoError(t, err)
	require.Positive(t, n)
	require.Equal(t, before, dump(t, b))
	require.Equal(t, l.UnreadCount-1, b.list(t, "u1").UnreadCount)
	require.Zero(t, b.list(t, "u2").UnreadCount)
}

func TestIDIsDeterministicAndOpaque(t *testing.T) {
	t.Parallel()
	require.Equal(t, notify.ID(42, notify.KindWelcome), notify.ID(42, notify.KindWelcome))
	require.NotEqual(t, notify.ID(42, notify.KindWelcome), notify.ID(42, notify.KindViewsLow))
	require.NotEqual(t, notify.ID(42, notify.KindWelcome), notify.ID(43, notify.KindWelcome))
	require.Len(t, notify.ID(42, notify.KindWelcome), 32)
}

// TestBillingNotifications: a failed renewal tells the merchant until when
// Pro stays; the end of Pro (grace over or cancelled) is announced too.
func TestBillingNotifications(t *testing.T) {
	t.Parallel()
	b := setup(t)
	grace := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	b.emit(t, sub("u1"), events.SubscriptionOpened{UserID: "u1", Plan: "free"})
	b.emit(t, sub("u1"), events.PaymentFailed{UserID: "u1", Provider: "stripe", ProviderEventID: "evt_1", InvoiceID: "in_1", GraceUntil: grace})
	b.emit(t, sub("u1"), events.PlanChanged{UserID: "u1", From: "pro", To: "free", Provider: "stripe", Reason: "grace_expired"})
	b.emit(t, sub("u1"), events.PlanChanged{UserID: "u1", From: "free", To: "pro", Provider: "stripe", Reason: "checkout"})
	b.drain(t)
	l := b.list(t, "u1")
	require.Equal(t, []string{"Your Pro plan has ended", "Your Pro payment failed"}, titles(l))
	require.Equal(t, "We could not charge your card for Pro. Pro stays active until 2 Dec 2026; update your payment method in Manage billing to keep it.", l.Items[1].Message)
}

// Issue 29 item 15: the merchant hears of a published product page and of
// every lead its gate captures — named by the product as it is called now
// (issue 50 item 14: a rename rewrites the notes still shown), never by the
// shopper (the address is personal data), and not for other owners.
func TestPublishedPageAndLeadNotifications(t *testing.T) {
	t.Parallel()
	b := setup(t)
	prod := func(id string) events.Stream { return events.Stream{Type: events.StreamProduct, ID: id} }
	pub := events.Stream{Type: events.StreamPublication, ID: "pub1"}
	b.emit(t, prod("p1"), events.ProductCreated{ProductID: "p1", UserID: "u1", Name: "Oak chair"})
	b.emit(t, pub, events.PublicationCreated{PublicationID: "pub1", UserID: "u1", ProductID: "p1", Slug: "oak"})
	b.emit(t, prod("p1"), events.ProductRenamed{ProductID: "p1", Name: "Oak armchair"})
	b.emit(t, pub, events.ProductLeadCaptured{ProductID: "p1", PublicationID: "pub1", LeadID: "l1"})
	// A blueprint's share link (no product) and a deleted product say nothing.
	b.emit(t, events.Stream{Type: events.StreamPublication, ID: "pub2"}, events.PublicationCreated{PublicationID: "pub2", UserID: "u1", BlueprintID: "j1", Slug: "j"})
	b.emit(t, prod("p2"), events.ProductCreated{ProductID: "p2", UserID: "u1", Name: "Gone"}, events.ProductDeleted{ProductID: "p2"})
	b.emit(t, pub, events.ProductLeadCaptured{ProductID: "p2", PublicationID: "pub1", LeadID: "l2"})
	b.drain(t)

	l := b.list(t, "u1")
	require.Equal(t, []string{"New lead", "Your product page is live"}, titles(l))
	require.Equal(t, "A shopper left their email on “Oak armchair”. See it under Leads on the product page.", l.Items[0].Message)
	require.Equal(t, "“Oak armchair” is public now: shoppers can open its share link, embed or QR code and view it in 3D and AR.", l.Items[1].Message,
		"written as “Oak chair”, renamed with the product")
	require.Equal(t, "/workspace/product/p1", *l.Items[0].Link)
	require.Empty(t, b.list(t, "u2").Items)
}

// Issue 50 item 6 (merchant walk 4, H5): switching to Free takes the live
// pages offline (Free includes no public views). The merchant is told then,
// with the cause and the count of pages, and a shopper turned away later is
// blamed on the plan, not on views "used up".
func TestDowngradeNamesThePlanAsWhyPagesAreOffline(t *testing.T) {
	t.Parallel()
	b := setup(t)
	pub := func(id string) events.Stream { return events.Stream{Type: events.StreamPublication, ID: id} }
	prod := func(id string) events.Stream { return events.Stream{Type: events.StreamProduct, ID: id} }
	b.emit(t, sub("u1"), events.SubscriptionOpened{UserID: "u1", Plan: "free"})
	b.emit(t, sub("u1"), events.PlanChanged{UserID: "u1", From: "free", To: "pro", Provider: "test-mode"})
	b.emit(t, prod("p1"), events.ProductCreated{ProductID: "p1", UserID: "u1", Name: "Mug"})
	b.emit(t, prod("p2"), events.ProductCreated{ProductID: "p2", UserID: "u1", Name: "Lamp"})
	b.emit(t, prod("p3"), events.ProductCreated{ProductID: "p3", UserID: "u1", Name: "Vase"})
	b.emit(t, pub("a"), events.PublicationCreated{PublicationID: "a", UserID: "u1", ProductID: "p1", Slug: "a"})
	b.emit(t, pub("b"), events.PublicationCreated{PublicationID: "b", UserID: "u1", ProductID: "p2", Slug: "b"})
	b.emit(t, pub("c"), events.PublicationCreated{PublicationID: "c", UserID: "u1", GalleryID: "g1", Slug: "c"})
	b.emit(t, pub("d"), events.PublicationCreated{PublicationID: "d", UserID: "u1", ProductID: "p3", Slug: "d"})
	b.emit(t, pub("b"), events.PublicationUnpublished{PublicationID: "b"})                                      // unpublished: not live
	b.emit(t, prod("p3"), events.ProductDeleted{ProductID: "p3"})                                               // deleted: not live
	b.emit(t, pub("x"), events.PublicationCreated{PublicationID: "x", UserID: "u2", ProductID: "q", Slug: "x"}) // someone else's
	b.emit(t, sub("u1"), events.PlanChanged{UserID: "u1", From: "pro", To: "free", Provider: "test-mode"})
	b.emit(t, pub("a"), events.PublicViewsExhausted{UserID: "u1", PublicationID: "a"})
	b.drain(t)

	l := b.list(t, "u1")
	require.Equal(t, []string{"A shopper could not open your page", "Your public pages are offline"}, titles(l)[:2])
	require.Equal(t, "You switched to the Free plan, which includes no public views, so shoppers can no longer open your 2 live pages "+
		"(they see “temporarily unavailable”). Nothing was unpublished: upgrade to Pro and they are back at once.", l.Items[1].Message)
	require.Equal(t, "You are on the Free plan, which includes no public views: your share links, embeds and QR codes show "+
		"“temporarily unavailable”. Upgrade to Pro to bring them back; nothing was unpublished.", l.Items[0].Message)
	require.Equal(t, "/workspace/subscription", *l.Items[0].Link)
	for _, n := range l.Items {
		require.NotContains(t, n.Title+n.Message, "used up")
	}

	// A trial that ran out: the shopper turned away is blamed on its end.
	b.emit(t, sub("u3"), events.SubscriptionOpened{UserID: "u3", Plan: "free"})
	b.emit(t, sub("u3"), events.TrialStarted{UserID: "u3", Days: 1, At: time.Now().Add(-48 * time.Hour)})
	b.emit(t, pub("t"), events.PublicViewsExhausted{UserID: "u3", PublicationID: "t"})
	// Pro with its views used up: that is the cause.
	b.emit(t, sub("u4"), events.SubscriptionOpened{UserID: "u4", Plan: "pro"})
	b.emit(t, pub("p"), events.PublicViewsExhausted{UserID: "u4", PublicationID: "p"})
	// Free with a views pack left: the pages stay up, nothing to say.
	b.emit(t, sub("u5"), events.SubscriptionOpened{UserID: "u5", Plan: "pro"})
	b.emit(t, sub("u5"), events.AddonPurchased{UserID: "u5", Kind: "views", Amount: 10_000})
	b.emit(t, pub("v"), events.PublicationCreated{PublicationID: "v", UserID: "u5", BlueprintID: "j9", Slug: "v"})
	b.emit(t, sub("u5"), events.PlanChanged{UserID: "u5", From: "pro", To: "free", Provider: "test-mode"})
	// Pro ends (grace over) with a live page: the end of Pro says so.
	b.emit(t, sub("u6"), events.SubscriptionOpened{UserID: "u6", Plan: "pro"})
	b.emit(t, pub("w"), events.PublicationCreated{PublicationID: "w", UserID: "u6", BlueprintID: "j8", Slug: "w"})
	b.emit(t, sub("u6"), events.PlanChanged{UserID: "u6", From: "pro", To: "free", Provider: "stripe", Reason: "grace_expired"})
	b.drain(t)

	l = b.list(t, "u3")
	require.Equal(t, []string{"A shopper could not open your page", "Your Pro trial has started"}, titles(l))
	require.True(t, strings.HasPrefix(l.Items[0].Message, "Your Pro trial has ended, and the Free plan includes no public views: "), l.Items[0].Message)
	require.Equal(t, []string{"Public views used up"}, titles(b.list(t, "u4")))
	require.Equal(t, []string{"Added 10,000 views"}, titles(b.list(t, "u5")))
	l = b.list(t, "u6")
	require.Equal(t, []string{"Your Pro plan has ended"}, titles(l))
	require.Equal(t, "You are on the Free plan now, which includes no public views, so your 1 live page is offline: shoppers see "+
		"“temporarily unavailable”. Your products and pages are kept; upgrade to Pro to bring them back.", l.Items[0].Message)

	before := dump(t, b)
	_, err := b.runner.Replay(context.Background(), notify.ProjectionName)
	require.NoError(t, err)
	require.Equal(t, before, dump(t, b), "replay writes the same notes")
}

// Issue 51: every publish request and decision is a notification of the
// workspace (its members all see it), and each member's read marks are their
// own.
func TestApprovalNotificationsAndEachMembersReadMarks(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	prod := events.Stream{Type: events.StreamProduct, ID: "p1"}
	appr := events.Stream{Type: events.StreamApproval, ID: "a1"}
	b.emit(t, prod, events.ProductCreated{ProductID: "p1", UserID: "ws1", Name: "Oak chair"})
	b.emit(t, appr, events.ApprovalRequested{ApprovalID: "a1", WorkspaceID: "ws1", ProductID: "p1", ProductVersion: 1, PageVersion: 1,
		RequestedBy: "user-ed", NotifyUserIDs: []string{"ws1", "rv"}})
	b.emit(t, appr, events.ApprovalDecided{ApprovalID: "a1", WorkspaceID: "ws1", ProductID: "p1", Approved: false, Comment: "Too dark",
		DecidedBy: "user-rv", RequestedBy: "user-ed"})
	b.emit(t, events.Stream{Type: events.StreamApproval, ID: "a2"}, events.ApprovalRequested{ApprovalID: "a2", WorkspaceID: "ws1",
		ProductID: "p1", ProductVersion: 2, PageVersion: 1, RequestedBy: "user-ed"})
	b.emit(t, events.Stream{Type: events.StreamApproval, ID: "a2"}, events.ApprovalDecided{ApprovalID: "a2", WorkspaceID: "ws1",
		ProductID: "p1", Approved: true, DecidedBy: "user-rv", RequestedBy: "user-ed"})
	b.drain(t)

	l := b.list(t, "ws1")
	require.Equal(t, []string{"Publishing approved", "Waiting for approval", "Publishing not approved", "Waiting for approval"}, titles(l))
	require.Equal(t, "An editor asked to publish “Oak chair”. A reviewer or the owner can approve it under Approvals.", l.Items[1].Message)
	require.NotContains(t, l.Items[2].Message, "Too dark", "the comment stays on the approvals page")

	// The editor reads one; the reviewer still has all four unread.
	editor, reviewer := notify.Reader{WorkspaceID: "ws1", PersonID: "ed"}, notify.Reader{WorkspaceID: "ws1", PersonID: "rv"}
	_, err := b.svc.MarkRead(ctx, editor, l.Items[0].ID)
	require.NoError(t, err)
	mine, err := b.svc.List(ctx, editor, 0)
	require.NoError(t, err)
	require.Equal(t, 3, mine.UnreadCount)
	require.NotNil(t, mine.Items[0].ReadAt)
	theirs, err := b.svc.List(ctx, reviewer, 0)
	require.NoError(t, err)
	require.Equal(t, 4, theirs.UnreadCount)
	require.Nil(t, theirs.Items[0].ReadAt)
}
