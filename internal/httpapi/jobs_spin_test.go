package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/apidoc"
	"github.com/photo3d/photo3d/internal/apidoc/apidoctest"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

// spinReply is the part of a job view a spin-set build is about.
type spinReply struct {
	ID        string          `json:"id"`
	Status    string          `json:"status"`
	Views     int             `json:"views"`
	Spin      *spinLayout     `json:"spin"`
	Stats     json.RawMessage `json:"stats"`
	Error     string          `json:"error"`
	Retryable bool            `json:"retryable"`
	ModelURL  string          `json:"modelURL"`
}

type spinLayout struct {
	Rings []spinRingJSON `json:"rings"`
}

// spinSetBody is POST /api/jobs's body for a spin set.
func spinSetBody(rings []spinRingJSON, urls []string) map[string]any {
	return map[string]any{"spinSet": map[string]any{"rings": rings, "imageURLs": urls}}
}

// spinPhotos uploads n copies of a 320×240 photo of a vase (a solid of
// revolution looks the same from every side, so identical photos are a valid
// spin set) as separate uploads of user, in shooting order.
func (s creationStack) spinPhotos(t *testing.T, user string, n int) []string {
	t.Helper()
	photo := jobtest.PNG(t, 320, 240)
	urls := make([]string, n)
	for i := range urls {
		urls[i] = s.put(t, user, photo)
	}
	return urls
}

// jobSchemaCheck validates a job view against the OpenAPI document's Job
// schema (objects there refuse undocumented fields).
func jobSchemaCheck(t *testing.T, data json.RawMessage) {
	t.Helper()
	doc, err := apidoc.Document()
	require.NoError(t, err)
	c, err := apidoctest.NewSchemaCompiler(doc.JSON)
	require.NoError(t, err)
	sch, err := c.Compile(apidoctest.DocURL + "#/components/schemas/Job")
	require.NoError(t, err)
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	require.NoError(t, err)
	require.NoError(t, sch.Validate(v), "the job view does not match the documented Job schema:\n%s", data)
}

// replayJobsOf rebuilds user's rows of the jobs and assets read models from
// the log, the way a replay does: the rows are removed and every event of
// their job streams, read back from the events table (so decoded from the
// stored JSON), goes through job.Projection again in log order. It returns
// the rows before and after, which must be equal.
func (s creationStack) replayJobsOf(t *testing.T, user string) (before, after string) {
	t.Helper()
	ctx := context.Background()
	dump := func(q pgdb.Querier) string {
		rows, err := q.Query(ctx, `SELECT j::text FROM jobs j WHERE user_id = $1
			UNION ALL SELECT a::text FROM assets a WHERE user_id = $1 ORDER BY 1`, user)
		require.NoError(t, err)
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		return strings.Join(lines, "\n")
	}
	before = dump(s.env.DB.Pool)
	require.NoError(t, pgdb.WithTx(ctx, s.env.DB.Pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id FROM jobs WHERE user_id = $1`, user)
		if err != nil {
			return err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM assets WHERE user_id = $1`, user); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM jobs WHERE user_id = $1`, user); err != nil {
			return err
		}
		var all []struct {
			pos   int64
			apply func() error
		}
		for _, id := range ids {
			envs, _, err := s.env.Store.Load(ctx, tx, events.Stream{Type: events.StreamJob, ID: id})
			if err != nil {
				return err
			}
			for _, e := range envs {
				all = append(all, struct {
					pos   int64
					apply func() error
				}{e.Position, func() error { return job.Projection{}.Apply(ctx, tx, e) }})
			}
		}
		// Log order across streams, as a replay reads them.
		for i := 1; i < len(all); i++ {
			for k := i; k > 0 && all[k].pos < all[k-1].pos; k-- {
				all[k], all[k-1] = all[k-1], all[k]
			}
		}
		for _, a := range all {
			if err := a.apply(); err != nil {
				return err
			}
		}
		return nil
	}))
	return before, dump(s.env.DB.Pool)
}

// spinColumn is the jobs read model's spin layout of a job, as stored.
func (s creationStack) spinColumn(t *testing.T, jobID string) string {
	t.Helper()
	var v *string
	require.NoError(t, s.env.DB.Pool.QueryRow(context.Background(), `SELECT spin::text FROM jobs WHERE id = $1`, jobID).Scan(&v))
	require.NotNil(t, v, "job %s has no spin layout", jobID)
	return *v
}

// POST /api/jobs with a spinSet (issue 48 §5): eight photos of one product on
// a turntable, in two rings, are one job costing eight credits, one per photo.
// The real River worker builds one model from all of them through the
// turntable reconstruction: the job says it used eight views, echoes the
// rings, reports shapeKind "turntable" and the turntable fit in its stats,
// consumes exactly the eight credits held and leaves none reserved. The read
// model comes back the same from the log (a replay), and a product's rebuild
// of it keeps the rings and the price.
func TestCreateSpinSetJob(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false)
	ctx := context.Background()
	user := s.env.User(t) // Free plan: 5 credits
	s.buyCredits(t, user, 8)
	urls := s.spinPhotos(t, user, 8)
	rings := []spinRingJSON{{Photos: 4, Elevation: 0}, {Photos: 4, Elevation: 30}}

	q, res := s.eventCount(t, "job.queued.v1"), s.eventCount(t, "subscription.credits_reserved.v1")
	rec, r := s.json(t, user, "POST", "/api/jobs", spinSetBody(rings, urls))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	require.Equal(t, 1, s.eventCount(t, "job.queued.v1")-q, "one job")
	require.Equal(t, 1, s.eventCount(t, "subscription.credits_reserved.v1")-res, "one reservation")
	j := decodeAs[spinReply](t, r.Data)
	require.Equal(t, "/api/jobs/"+j.ID, rec.Header().Get("Location"))
	require.Equal(t, job.StatusQueued, j.Status)
	require.Equal(t, 8, j.Views)
	require.Equal(t, &spinLayout{Rings: rings}, j.Spin, "the rings as sent")
	jobSchemaCheck(t, r.Data)
	require.Equal(t, []int64{8}, s.creditAmounts(t, "subscription.credits_reserved.v1", j.ID), "eight credits")
	used, reserved, balance := s.credits(t, user)
	require.Equal(t, [3]int64{0, 8, 5}, [3]int64{used, reserved, balance})

	// The event: the first photo as the job's upload, the other seven as
	// further views in shooting order (no azimuths: the layout spaces them),
	// and the layout.
	envs, _, err := s.env.Store.Load(ctx, s.env.DB.Pool, events.Stream{Type: events.StreamJob, ID: j.ID})
	require.NoError(t, err)
	queued, ok := envs[0].Data.(events.JobQueued)
	require.True(t, ok)
	require.Equal(t, &events.JobSpin{Rings: []events.SpinRingSpec{{Photos: 4, ElevationDeg: 0}, {Photos: 4, ElevationDeg: 30}}}, queued.Spin)
	require.Len(t, queued.MoreViews, 7)
	for i, v := range queued.MoreViews {
		require.Equal(t, creationBase+"/api/uploads/"+v.UploadID+"/image", urls[i+1], "photo %d in order", i+2)
		require.Nil(t, v.Azimuth)
	}

	s.env.StartWorkerWithin(t, reconstruct.NewBuiltin(), 10*time.Minute)
	s.env.WaitFor(t, user, j.ID, 10*time.Minute, func(j job.Job) bool { return j.Terminal() })
	rec, r = s.json(t, user, "GET", "/api/jobs/"+j.ID, nil)
	require.Equal(t, http.StatusOK, rec.Code)
	j = decodeAs[spinReply](t, r.Data)
	require.Equal(t, job.StatusCompleted, j.Status, j.Error)
	require.NotEmpty(t, j.ModelURL, "a model")
	require.Equal(t, 8, j.Views)
	require.Equal(t, &spinLayout{Rings: rings}, j.Spin)
	jobSchemaCheck(t, r.Data)
	var stats struct {
		reconstruct.Stats
		Spin *reconstruct.SpinReport `json:"spin"`
	}
	require.NoError(t, json.Unmarshal(j.Stats, &stats))
	require.Equal(t, reconstruct.ShapeTurntable, stats.ShapeKind)
	require.Equal(t, 8, stats.Views)
	require.NotNil(t, stats.Spin, "the turntable fit, as worker convert -rings prints it: %s", j.Stats)
	require.Greater(t, stats.Spin.Coherence, 0.0)
	require.Len(t, stats.Spin.RingElevations, 2)
	var raw struct {
		Spin map[string]any `json:"spin"`
	}
	require.NoError(t, json.Unmarshal(j.Stats, &raw))
	for _, k := range []string{"coherence", "maxAzCorrection", "ringElevations", "halvesAgreement", "surfaceDisagreement"} {
		require.Contains(t, raw.Spin, k)
	}

	require.Equal(t, []int64{8}, s.creditAmounts(t, "subscription.credits_consumed.v1", j.ID), "the eight held")
	used, reserved, balance = s.credits(t, user)
	require.Equal(t, [3]int64{8, 0, 5}, [3]int64{used, reserved, balance}, "none left reserved")
	envs, _, err = s.env.Store.Load(ctx, s.env.DB.Pool, events.Stream{Type: events.StreamJob, ID: j.ID})
	require.NoError(t, err)
	done, ok := envs[len(envs)-1].Data.(events.JobCompleted)
	require.True(t, ok)
	require.Equal(t, 8, done.Views)
	require.Equal(t, "builtin", done.Reconstructor)

	// My Blueprints tells it from a one-photo build.
	var lib struct {
		Items []struct {
			JobID string `json:"jobId"`
			Views int    `json:"views"`
		} `json:"items"`
	}
	rec, r = s.json(t, user, "GET", "/api/blueprints", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.NoError(t, json.Unmarshal(r.Data, &lib))
	require.Len(t, lib.Items, 1)
	require.Equal(t, 8, lib.Items[0].Views)

	before, after := s.replayJobsOf(t, user)
	require.Equal(t, before, after, "a replay writes the same rows")
	require.Equal(t, `{"rings": [{"photos": 4, "elevationDeg": 0}, {"photos": 4, "elevationDeg": 30}]}`, s.spinColumn(t, j.ID), "the layout among them")

	// A product's rebuild (job.Service.Requeue) keeps the photos, the rings
	// and the price.
	s.buyCredits(t, user, 8)
	var rebuilt string
	require.NoError(t, pgdb.WithTx(ctx, s.env.DB.Pool, func(tx pgx.Tx) error {
		var err error
		rebuilt, err = s.env.Jobs.Requeue(ctx, tx, user, j.ID, "Vase again")
		return err
	}))
	orig, err := s.env.Jobs.Get(ctx, user, j.ID)
	require.NoError(t, err)
	again, err := s.env.Jobs.Get(ctx, user, rebuilt)
	require.NoError(t, err)
	require.Equal(t, 8, again.Views())
	require.Equal(t, orig.Spin, again.Spin)
	require.Equal(t, orig.MoreViews, again.MoreViews)
	require.Equal(t, []int64{8}, s.creditAmounts(t, "subscription.credits_reserved.v1", rebuilt))
}

// Every refusal of a spin set comes before anything is reserved: a layout the
// turntable cannot have (400 invalid_spin_set saying what to change, with the
// reconstructor's own limits), a photo that is not one of the caller's
// finished uploads (400 naming it, "Photo 7: …", with the four-photo path's
// code and sentence), a spin set sent with imageURL or moreImages (400), and
// too few credits (402 naming the price). Nothing is queued, held or charged.
func TestCreateSpinSetJobRefusals(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false)
	user, other, poor := s.env.User(t), s.env.User(t), s.env.User(t)
	s.buyCredits(t, user, 100)
	urls := s.spinPhotos(t, user, 8)
	theirs := s.put(t, other, jobtest.PNG(t, 64, 48))
	pending := s.slot(t, user, "later.png").PublicURL
	with := func(i int, url string) []string {
		out := append([]string(nil), urls...)
		out[i] = url
		return out
	}
	times := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = urls[0]
		}
		return out
	}
	two := []spinRingJSON{{Photos: 4, Elevation: 0}, {Photos: 4, Elevation: 30}}
	cases := []struct {
		name          string
		body          any
		code, message string
	}{
		{"seven photos", spinSetBody([]spinRingJSON{{Photos: 7}}, times(7)), "invalid_spin_set",
			"A spin set takes 8 to 72 photos; this one has 7."},
		{"seventy-three photos", spinSetBody([]spinRingJSON{{Photos: 37}, {Photos: 36, Elevation: 30}}, times(73)), "invalid_spin_set",
			"A spin set takes 8 to 72 photos; this one has 73."},
		{"no rings", spinSetBody([]spinRingJSON{}, urls), "invalid_spin_set",
			"A spin set needs its rings: how many photos each turn of the turntable took, and the camera's elevation for that turn."},
		{"a ring of three", spinSetBody([]spinRingJSON{{Photos: 5}, {Photos: 3, Elevation: 30}}, urls), "invalid_spin_set",
			"Ring 2 has 3 photos: each ring needs at least 4, taken over one full turn of the turntable."},
		{"a ring of none", spinSetBody([]spinRingJSON{{Photos: 8}, {Photos: 0, Elevation: 30}}, urls), "invalid_spin_set",
			"Ring 2 has 0 photos: each ring needs at least 4, taken over one full turn of the turntable."},
		{"camera too high", spinSetBody([]spinRingJSON{{Photos: 4}, {Photos: 4, Elevation: 80.5}}, urls), "invalid_spin_set",
			"Ring 2: the camera's elevation must be between −80° and 80° (0 is level with the middle of the product); it is 80.5°."},
		{"camera too low", spinSetBody([]spinRingJSON{{Photos: 4, Elevation: -90}, {Photos: 4}}, urls), "invalid_spin_set",
			"Ring 1: the camera's elevation must be between −80° and 80° (0 is level with the middle of the product); it is -90°."},
		{"rings and photos disagree", spinSetBody([]spinRingJSON{{Photos: 4}, {Photos: 5, Elevation: 30}}, urls), "invalid_spin_set",
			"The rings add up to 9 photos, but 8 photos were sent: give each ring the number of photos taken in it, and send the photos in shooting order, ring after ring."},
		{"elevation not a number", map[string]any{"spinSet": map[string]any{"rings": []map[string]any{{"photos": 8, "elevation": "high"}}, "imageURLs": urls}},
			"invalid_json", `The field "spinSet.rings.elevation" has the wrong type.`},
		{"someone else's photo", spinSetBody(two, with(6, theirs)), "invalid_image_url", "Photo 7: Choose a photo you uploaded to Photo3D."},
		{"an outside URL first", spinSetBody(two, with(0, "https://images.example.com/vase.png")), "invalid_image_url",
			"Photo 1: Choose a photo you uploaded to Photo3D."},
		{"a photo still uploading", spinSetBody(two, with(2, pending)), "upload_incomplete",
			"Photo 3: This photo has not finished uploading. Please upload it again."},
		{"a blank photo", spinSetBody(two, with(7, " ")), "image_url_required", "Photo 8: Upload succeeded but did not return an image URL."},
		{"with imageURL", map[string]any{"imageURL": urls[0], "spinSet": map[string]any{"rings": two, "imageURLs": urls}},
			"invalid_spin_set", job.ErrSpinWithImage.Message},
		{"with moreImages", map[string]any{"moreImages": []map[string]any{{"imageURL": urls[1]}}, "spinSet": map[string]any{"rings": two, "imageURLs": urls}},
			"invalid_spin_set", job.ErrSpinWithImage.Message},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q, res := s.eventCount(t, "job.queued.v1"), s.eventCount(t, "subscription.credits_reserved.v1")
			rec, r := s.json(t, user, "POST", "/api/jobs", c.body)
			require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
			require.Equal(t, c.code, r.Error.Code)
			require.Equal(t, c.message, r.Error.Message)
			require.Equal(t, q, s.eventCount(t, "job.queued.v1"), "nothing queued")
			require.Equal(t, res, s.eventCount(t, "subscription.credits_reserved.v1"), "nothing reserved")
			used, reserved, balance := s.credits(t, user)
			require.Equal(t, [3]int64{0, 0, 105}, [3]int64{used, reserved, balance})
		})
	}

	t.Run("too few credits: 402 naming the price", func(t *testing.T) {
		s.buyCredits(t, poor, 5) // 10 credits
		mine := make([]string, 24)
		photo := jobtest.PNG(t, 64, 48)
		for i := range mine {
			mine[i] = s.put(t, poor, photo)
		}
		q, res := s.eventCount(t, "job.queued.v1"), s.eventCount(t, "subscription.credits_reserved.v1")
		rec, r := s.json(t, poor, "POST", "/api/jobs", spinSetBody([]spinRingJSON{{Photos: 12}, {Photos: 12, Elevation: 30}}, mine))
		require.Equal(t, http.StatusPaymentRequired, rec.Code, rec.Body.String())
		require.Equal(t, "insufficient_credits", r.Error.Code)
		require.Equal(t, "Not enough AI credits: a build from 24 photos uses 24 credits, one per photo. Buy more credits or upgrade your plan on the Subscription page, or build from fewer photos.", r.Error.Message)
		require.Equal(t, q, s.eventCount(t, "job.queued.v1"))
		require.Equal(t, res, s.eventCount(t, "subscription.credits_reserved.v1"))
		used, reserved, balance := s.credits(t, poor)
		require.Equal(t, [3]int64{0, 0, 10}, [3]int64{used, reserved, balance})
	})
}

// A spin set whose first photo cannot be decoded fails for real in the spin
// path, names the photo and gives its eight credits back; its photos are
// refused, so it cannot be retried (409 photos_refused, nothing held): the
// same photos would fail the same way after a full wait. The worker's
// configured reconstructor is the remote GPU server, which has no spin-set
// path: the build goes to the built-in pipeline, and the GPU server is never
// asked. A spin set that failed for the builder's own reason (its last
// attempt ran out of memory) is retried as a new job from the same photos in
// the same rings at the same price; the read model of all three comes back
// the same from the log.
func TestSpinSetRetryKeepsTheLayout(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false)
	ctx := context.Background()
	user := s.env.User(t)
	s.buyCredits(t, user, 11) // 16: two spin sets of eight
	good := s.spinPhotos(t, user, 8)
	urls := slices.Clone(good)
	urls[0] = s.put(t, user, jobtest.BrokenPNG(t, 320, 240))
	rings := []spinRingJSON{{Photos: 4, Elevation: -10}, {Photos: 4, Elevation: 40}}

	rec, r := s.json(t, user, "POST", "/api/jobs", spinSetBody(rings, urls))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	refused := decodeAs[spinReply](t, r.Data)

	var gpuCalls atomic.Int32
	gpu := reconstruct.NewRemote(reconstruct.RemoteConfig{URL: "http://gpu.invalid", Retries: -1, Backoff: time.Millisecond})
	err := s.env.Worker(countingReconstructor{gpu, &gpuCalls}).Work(ctx, riverJob(refused.ID))
	require.Error(t, err, "River is told not to retry: the photo cannot be read")
	rec, r = s.json(t, user, "GET", "/api/jobs/"+refused.ID, nil)
	require.Equal(t, http.StatusOK, rec.Code)
	refused = decodeAs[spinReply](t, r.Data)
	require.Equal(t, job.StatusFailed, refused.Status)
	t.Logf("the merchant reads: %s", refused.Error)
	require.True(t, strings.HasPrefix(refused.Error, "Photo 1: "), "names the photo: %s", refused.Error)
	require.Contains(t, refused.Error, job.BuildRefusedMessage, "the photo problem, as the merchant reads it")
	require.NotContains(t, refused.Error, "retry", "no retry is offered for it")
	require.False(t, refused.Retryable)
	require.Zero(t, gpuCalls.Load(), "the GPU server does not build spin sets")
	require.Equal(t, []int64{8}, s.creditAmounts(t, "subscription.credits_released.v1", refused.ID), "the credits come back")
	used, reserved, balance := s.credits(t, user)
	require.Equal(t, [3]int64{0, 0, 16}, [3]int64{used, reserved, balance})

	queued := s.eventCount(t, "job.queued.v1")
	rec, r = s.json(t, user, "POST", "/api/jobs/"+refused.ID+"/retry", nil)
	require.Equal(t, http.StatusConflict, rec.Code, rec.Body.String())
	require.Equal(t, "photos_refused", r.Error.Code)
	require.Equal(t, job.ErrRefusedPhotos.Message, r.Error.Message)
	require.Equal(t, queued, s.eventCount(t, "job.queued.v1"), "nothing queued")
	used, reserved, balance = s.credits(t, user)
	require.Equal(t, [3]int64{0, 0, 16}, [3]int64{used, reserved, balance}, "nothing held")
	rec, _ = s.json(t, user, "GET", "/api/jobs/"+refused.ID, nil)
	require.Equal(t, http.StatusOK, rec.Code, "the refused build stays, with its reason")

	rec, r = s.json(t, user, "POST", "/api/jobs", spinSetBody(rings, good))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	failed := decodeAs[spinReply](t, r.Data)
	err = s.env.Worker(outOfMemory{gpu}).Work(ctx, lastAttempt(riverJob(failed.ID)))
	require.Error(t, err)
	rec, r = s.json(t, user, "GET", "/api/jobs/"+failed.ID, nil)
	require.Equal(t, http.StatusOK, rec.Code)
	failed = decodeAs[spinReply](t, r.Data)
	require.Equal(t, job.StatusFailed, failed.Status)
	require.Equal(t, job.BuildFailedMessage, failed.Error)
	require.True(t, failed.Retryable, "the builder failed, not the photos")

	rec, r = s.json(t, user, "POST", "/api/jobs/"+failed.ID+"/retry", nil)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	again := decodeAs[spinReply](t, r.Data)
	require.NotEqual(t, failed.ID, again.ID)
	require.Equal(t, 8, again.Views)
	require.Equal(t, &spinLayout{Rings: rings}, again.Spin, "the same rings")
	require.Equal(t, []int64{8}, s.creditAmounts(t, "subscription.credits_reserved.v1", again.ID), "the same price")
	var photos [2]string // upload and further views of each job, in order
	for i, id := range []string{failed.ID, again.ID} {
		require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT upload_id || ' ' || image_key || ' ' || more_views::text FROM jobs WHERE id = $1`, id).
			Scan(&photos[i]))
	}
	require.Equal(t, photos[0], photos[1], "the same photos in the same order")

	before, after := s.replayJobsOf(t, user)
	require.Equal(t, before, after, "a replay writes the same rows")
	var refusedRow bool
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT refused FROM jobs WHERE id = $1`, refused.ID).Scan(&refusedRow))
	require.True(t, refusedRow, "the refusal among them")
	for _, id := range []string{refused.ID, failed.ID, again.ID} {
		require.Equal(t, `{"rings": [{"photos": 4, "elevationDeg": -10}, {"photos": 4, "elevationDeg": 40}]}`, s.spinColumn(t, id), "the layout among them")
	}
}

// outOfMemory is a reconstructor whose spin-set builds fail as a worker short
// of memory would: a failure of the builder, not of the photos.
type outOfMemory struct{ reconstruct.Reconstructor }

func (outOfMemory) ReconstructSpin(context.Context, reconstruct.SpinSet, reconstruct.Options, reconstruct.ProgressFunc) (*reconstruct.Result, reconstruct.SpinReport, error) {
	return nil, reconstruct.SpinReport{}, errors.New("cannot allocate memory")
}

// countingReconstructor is a reconstructor that takes one photo per build
// (like the remote GPU server it wraps) and counts the builds it is asked for.
type countingReconstructor struct {
	reconstruct.Reconstructor
	calls *atomic.Int32
}

func (c countingReconstructor) Reconstruct(ctx context.Context, image []byte, opts reconstruct.Options, progress reconstruct.ProgressFunc) (*reconstruct.Result, error) {
	c.calls.Add(1)
	return c.Reconstructor.Reconstruct(ctx, image, opts, progress)
}

// The OpenAPI document describes spin sets: its spinSet request example and
// the one-photo ok example fit the request schema, a body with both imageURL
// and spinSet does not, and the spin-set answer example fits the 201 schema
// (the real answers are checked against the Job schema in TestCreateSpinSetJob).
func TestSpinSetIsDocumented(t *testing.T) {
	t.Parallel()
	doc, err := apidoc.Document()
	require.NoError(t, err)
	c, err := apidoctest.NewSchemaCompiler(doc.JSON)
	require.NoError(t, err)
	var d any
	require.NoError(t, json.Unmarshal(doc.JSON, &d))
	const op = "#/paths/~1api~1jobs/post"
	const media = "/content/application~1json"
	compile := func(ptr string) *jsonschema.Schema {
		sch, err := c.Compile(apidoctest.DocURL + ptr)
		require.NoError(t, err)
		return sch
	}
	example := func(ptr string) any {
		v, ok := apidoctest.Pointer(d, ptr)
		require.True(t, ok, ptr)
		b, err := json.Marshal(v)
		require.NoError(t, err)
		out, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		require.NoError(t, err)
		return out
	}
	request := compile(op + "/requestBody" + media + "/schema")
	require.NoError(t, request.Validate(example(op+"/requestBody"+media+"/examples/spinSet/value")))
	require.NoError(t, request.Validate(example(op+"/requestBody"+media+"/examples/ok/value")))
	both, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"imageURL": "u", "spinSet": {"rings": [{"photos": 8}], "imageURLs": ["1","2","3","4","5","6","7","8"]}}`))
	require.NoError(t, err)
	require.Error(t, request.Validate(both), "imageURL and spinSet together")
	answer := example(op + "/responses/201" + media + "/examples/spinSet/value")
	require.NoError(t, compile(op+"/responses/201"+media+"/schema").Validate(answer))
}

// Issue 48 §5: a Free-plan merchant who bought the credits uploads a whole
// spin set of 72 photos one after another and starts the build, without the
// daily upload quota (meant for scripts filling the bucket) refusing any of
// them: it allowed 50 files a day.
func TestAWholeSpinSetUploadsAndBuildsOnTheFreePlan(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false) // the uploads' quota is the Free plan's
	user := s.env.User(t)
	s.buyCredits(t, user, reconstruct.MaxSpinPhotos-5)
	urls := s.spinPhotos(t, user, reconstruct.MaxSpinPhotos)
	half := reconstruct.MaxSpinPhotos / 2
	rings := []spinRingJSON{{Photos: half, Elevation: 0}, {Photos: reconstruct.MaxSpinPhotos - half, Elevation: 30}}
	rec, r := s.json(t, user, "POST", "/api/jobs", spinSetBody(rings, urls))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	j := decodeAs[spinReply](t, r.Data)
	require.Equal(t, reconstruct.MaxSpinPhotos, j.Views)
	require.Equal(t, []int64{int64(reconstruct.MaxSpinPhotos)}, s.creditAmounts(t, "subscription.credits_reserved.v1", j.ID))
}
