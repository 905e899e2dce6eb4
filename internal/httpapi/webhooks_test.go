package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/glbvariants/glbtest"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/projection"
	"github.com/photo3d/photo3d/internal/webhook"
)

type webhookReply struct {
	ID     string   `json:"id"`
	URL    string   `json:"url"`
	Events []string `json:"events"`
	Secret string   `json:"secret"`
}

type deliveryList struct {
	Items []webhook.Delivery `json:"items"`
}

// Every subscribable event comes from a real domain flow (a build finishing
// and failing, a product published through the API, a shopper's email at the
// gate, public views running low), becomes a delivery in the worker's
// projection, and reaches the merchant's receiver signed with the secret the
// API showed once; a replay of the projection sends nothing twice.
func TestWebhooksDeliverEveryEventTypeFromDomainFlows(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	ctx := context.Background()

	var mu sync.Mutex
	got := map[string][]map[string]any{}
	var secret string
	verified := true
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var p map[string]any
		_ = json.Unmarshal(body, &p)
		mu.Lock()
		defer mu.Unlock()
		verified = verified && webhook.Verify(secret, r.Header.Get(webhook.HeaderSignature), body, time.Now(), time.Minute)
		got[r.Header.Get(webhook.HeaderEvent)] = append(got[r.Header.Get(webhook.HeaderEvent)], p)
	}))
	defer rcv.Close()

	user := s.env.User(t)
	startTrialFor(t, s.creationStack, user)
	rec, r := s.json(t, user, "POST", "/api/webhooks", map[string]any{"url": rcv.URL + "/photo3d", "events": webhook.EventTypes})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	hook := decodeAs[webhookReply](t, r.Data)
	require.Regexp(t, `^whsec_`, hook.Secret)
	mu.Lock()
	secret = hook.Secret
	mu.Unlock()
	// The list never shows the secret again.
	list := s.ok(t, user, "GET", "/api/webhooks", nil)
	require.NotContains(t, string(list), hook.Secret)
	require.Contains(t, string(list), hook.ID)

	// job.completed and job.failed from builds; product.published via the API.
	// The ready build's photo cut its product off: the builder's warning goes with it.
	const cut = "The product runs off the top edge of the photo, so the model stops there: the part outside the photo is missing. " +
		"For a faithful model, use a photo with the whole product in view and some space around it."
	built, err := s.env.Jobs.Create(ctx, user, s.env.UploadPhoto(t, user, jobtest.PNG(t, 96, 96)))
	require.NoError(t, err)
	bp := built.ID
	s.env.Finish(t, bp, "", cut)
	s.env.Blueprint(t, user, "error")
	require.NoError(t, s.env.Blobs.Bucket.WriteAll(ctx, "models/"+bp+"/model.glb", glbtest.Model(t), nil))
	rec, r = s.json(t, user, "POST", "/api/products", map[string]any{"name": "Lamp", "blueprintId": bp})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	product := decodeAs[productReply](t, r.Data).ID
	pub := decodeAs[publishReply](t, s.ok(t, user, "POST", "/api/products/"+product+"/publish", map[string]any{"requireEmail": true}))
	// lead.captured through the public page's email gate.
	require.Equal(t, http.StatusOK, s.shopper(t, "POST", "/v/"+pub.Slug+"/lead", `{"email":"shopper@example.com","consent":true}`).Code)
	// publication.views_low: 90 % of the trial's 25,000 public views served.
	lease := uuid.NewString()
	require.NoError(t, pgdb.WithTx(ctx, s.env.DB.Pool, func(tx pgx.Tx) error {
		if _, err := s.env.Subs.LeaseViews(ctx, tx, user, lease, 22_600, time.Hour); err != nil {
			return err
		}
		return s.env.Subs.ReturnLease(ctx, tx, user, lease, 0)
	}))

	// The worker: the projection queues, River delivers.
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	insertOnly, err := river.NewClient(riverpgxv5.New(s.env.DB.Pool), &river.Config{Logger: log})
	require.NoError(t, err)
	proj := webhook.NewProjection(insertOnly, creationBase)
	runner := projection.NewRunner(s.env.DB.Pool, eventstore.New(events.Domain()), projection.Config{Logger: log}, proj)
	_, err = runner.Drain(ctx, proj)
	require.NoError(t, err)
	workers := river.NewWorkers()
	river.AddWorker(workers, &webhook.DeliverWorker{DB: s.env.DB.Pool, Client: webhook.Guard{AllowPrivate: true}.Client(), Logger: log})
	rc, err := river.NewClient(riverpgxv5.New(s.env.DB.Pool), &river.Config{Logger: log, Workers: workers,
		Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 4}}, FetchCooldown: 20 * time.Millisecond,
		FetchPollInterval: 50 * time.Millisecond, TestOnly: true})
	require.NoError(t, err)
	require.NoError(t, rc.Start(ctx))
	defer func() { _ = rc.Stop(ctx) }()

	require.Eventually(t, func() bool {
		var d deliveryList
		d = decodeAs[deliveryList](t, s.ok(t, user, "GET", "/api/webhooks/"+hook.ID+"/deliveries", nil))
		if len(d.Items) != 5 {
			return false
		}
		for _, it := range d.Items {
			if it.State != webhook.StateDelivered {
				return false
			}
		}
		return true
	}, 60*time.Second, 50*time.Millisecond)

	mu.Lock()
	defer mu.Unlock()
	require.True(t, verified, "every delivery verifies with the secret shown at creation")
	for _, typ := range webhook.EventTypes {
		require.Len(t, got[typ], 1, typ)
		require.Equal(t, typ, got[typ][0]["type"])
		require.Regexp(t, `^evt_[0-9a-f]{24}$`, got[typ][0]["id"])
	}
	data := func(typ string) map[string]any { return got[typ][0]["data"].(map[string]any) }
	require.Equal(t, bp, data(webhook.EventJobCompleted)["jobId"])
	require.Equal(t, creationBase+"/api/assets/"+bp+"/file", data(webhook.EventJobCompleted)["modelUrl"])
	require.Equal(t, []any{cut}, data(webhook.EventJobCompleted)["warnings"])
	require.NotEmpty(t, data(webhook.EventJobFailed)["reason"])
	require.Equal(t, product, data(webhook.EventProductPublished)["productId"])
	require.Equal(t, pub.ShareURL, data(webhook.EventProductPublished)["shareUrl"])
	require.Contains(t, data(webhook.EventProductPublished)["embedCode"], "<iframe")
	require.Equal(t, "shopper@example.com", data(webhook.EventLeadCaptured)["email"])
	require.EqualValues(t, 90, data(webhook.EventViewsLow)["percentUsed"])
	require.EqualValues(t, 2_400, data(webhook.EventViewsLow)["viewsLeft"])

	// Replaying the projection queues nothing new.
	_, err = runner.Replay(ctx, webhook.ProjectionName)
	require.NoError(t, err)
	var n int
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries`).Scan(&n))
	require.Equal(t, 5, n)
}

func TestWebhookRoutesAreOwnerScoped(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	owner, other := s.env.User(t), s.env.User(t)
	rec, r := s.json(t, owner, "POST", "/api/webhooks", map[string]any{"url": "https://shop.example/hook", "events": []string{"lead.captured"}})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	id := decodeAs[webhookReply](t, r.Data).ID

	for _, c := range []struct{ method, path string }{
		{"DELETE", "/api/webhooks/" + id}, {"POST", "/api/webhooks/" + id + "/test"}, {"GET", "/api/webhooks/" + id + "/deliveries"},
		{"GET", "/api/webhooks/" + uuid.NewString() + "/deliveries"}, {"DELETE", "/api/webhooks/nope"},
	} {
		rec, _ := s.json(t, other, c.method, c.path, nil)
		require.Equal(t, http.StatusNotFound, rec.Code, "%s %s: %s", c.method, c.path, rec.Body.String())
	}
	require.NotContains(t, string(s.ok(t, other, "GET", "/api/webhooks", nil)), id)

	// Hostile input is refused with the validation codes.
	for _, c := range []struct {
		body any
		code string
	}{
		{map[string]any{"url": "https://a:b@shop.example/", "events": []string{"lead.captured"}}, "invalid_webhook_url"},
		{map[string]any{"url": "https://shop.example/", "events": []string{}}, "invalid_webhook_events"},
		{map[string]any{"url": 5, "events": []string{"lead.captured"}}, "invalid_json"},
	} {
		rec, _ := s.json(t, owner, "POST", "/api/webhooks", c.body)
		require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
		require.Contains(t, rec.Body.String(), `"code":"`+c.code+`"`)
	}
	rec, _ = s.json(t, owner, "GET", "/api/webhooks/"+id+"/deliveries?limit=1000", nil)
	require.Equal(t, http.StatusBadRequest, rec.Code)

	// The owner's test button queues a delivery that shows in the log at once.
	rec, _ = s.json(t, owner, "POST", "/api/webhooks/"+id+"/test", nil)
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	log := decodeAs[deliveryList](t, s.ok(t, owner, "GET", "/api/webhooks/"+id+"/deliveries", nil))
	require.Len(t, log.Items, 1)
	require.Equal(t, webhook.EventTest, log.Items[0].EventType)
	require.Equal(t, webhook.StatePending, log.Items[0].State)
	s.ok(t, owner, "DELETE", "/api/webhooks/"+id, nil)
	rec, _ = s.json(t, owner, "GET", "/api/webhooks/"+id+"/deliveries", nil)
	require.Equal(t, http.StatusNotFound, rec.Code)
}
