package job

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/photo3d/photo3d/internal/eventstore"
)

// Health is the pipeline's state for GET /jobs/debug/test: can the api reach
// the database and the bucket, how deep is the reconstruct queue, and how
// long did recent builds take step by step.
type Health struct {
	OK       bool           `json:"ok"`
	Database string         `json:"database"`
	Blobs    string         `json:"blobs"`
	Queue    QueueHealth    `json:"queue"`
	Recent   RecentTimings  `json:"recent"`
	Checked  time.Time      `json:"checkedAt"`
	Info     map[string]any `json:"info,omitempty"`
}

// QueueHealth counts River jobs of the reconstruct queue by state.
type QueueHealth struct {
	Name             string           `json:"name"`
	States           map[string]int64 `json:"states"`
	OldestWaitingSec float64          `json:"oldestWaitingSeconds"`
}

// RecentTimings summarise the last completed builds (up to 50).
type RecentTimings struct {
	Completed        int              `json:"completed"`
	Failed           int              `json:"failed"`
	AvgPickupMillis  float64          `json:"avgPickupMillis"`
	AvgTotalMillis   float64          `json:"avgTotalMillis"`
	AvgStepMillis    map[string]int64 `json:"avgStepMillis"`
	LastCompletedAt  *time.Time       `json:"lastCompletedAt,omitempty"`
	Reconstructors   []string         `json:"reconstructors"`
	SampleJobIDs     []string         `json:"sampleJobIds"`
	SampleWindowSize int              `json:"sampleWindowSize"`
}

// Health checks the pipeline without doing any heavy work in the api.
func (s *Service) Health(ctx context.Context) Health {
	h := Health{OK: true, Database: "ok", Blobs: "ok", Checked: time.Now().UTC(),
		Queue: QueueHealth{Name: QueueReconstruct, States: map[string]int64{}}}
	fail := func(field *string, err error) {
		h.OK = false
		*field = "error: " + err.Error()
	}
	if err := s.db.Ping(ctx); err != nil {
		fail(&h.Database, err)
		return h
	}
	if err := s.blobs.Ping(ctx); err != nil {
		fail(&h.Blobs, err)
	}
	if err := s.queueHealth(ctx, &h.Queue); err != nil {
		fail(&h.Database, err)
	}
	if err := s.recentTimings(ctx, &h.Recent); err != nil {
		fail(&h.Database, err)
	}
	return h
}

func (s *Service) queueHealth(ctx context.Context, q *QueueHealth) error {
	rows, err := s.db.Query(ctx, `SELECT state::text, count(*) FROM river_job WHERE queue = $1 GROUP BY state`, QueueReconstruct)
	if err != nil {
		return fmt.Errorf("count queue: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var state string
		var n int64
		if err := rows.Scan(&state, &n); err != nil {
			return fmt.Errorf("count queue: %w", err)
		}
		q.States[state] = n
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("count queue: %w", err)
	}
	return s.db.QueryRow(ctx, `
SELECT coalesce(extract(epoch FROM now() - min(scheduled_at)), 0)::float8
FROM river_job WHERE queue = $1 AND state = 'available'`, QueueReconstruct).Scan(&q.OldestWaitingSec)
}

func (s *Service) recentTimings(ctx context.Context, r *RecentTimings) error {
	const window = 50
	r.SampleWindowSize = window
	r.AvgStepMillis = map[string]int64{}
	rows, err := s.db.Query(ctx, `
SELECT id, status, stats, reconstructor, queued_at, started_at, finished_at
FROM jobs WHERE status IN ('completed', 'failed') ORDER BY finished_at DESC NULLS LAST LIMIT $1`, window)
	if err != nil {
		return fmt.Errorf("read recent jobs: %w", err)
	}
	defer rows.Close()
	var pickup, total float64
	var nPickup int
	stepSum := map[string]int64{}
	seen := map[string]bool{}
	for rows.Next() {
		var id, status, rec string
		var stats []byte
		var queued time.Time
		var started, finished *time.Time
		if err := rows.Scan(&id, &status, &stats, &rec, &queued, &started, &finished); err != nil {
			return fmt.Errorf("read recent jobs: %w", err)
		}
		if started != nil {
			pickup += float64(started.Sub(queued).Microseconds()) / 1000
			nPickup++
		}
		if status == StatusFailed {
			r.Failed++
			continue
		}
		r.Completed++
		if r.LastCompletedAt == nil {
			r.LastCompletedAt = finished
		}
		if len(r.SampleJobIDs) < 5 {
			r.SampleJobIDs = append(r.SampleJobIDs, id)
		}
		if rec != "" && !seen[rec] {
			seen[rec] = true
			r.Reconstructors = append(r.Reconstructors, rec)
		}
		var st struct {
			StepMillis  map[string]int64 `json:"stepMillis"`
			TotalMillis int64            `json:"totalMillis"`
		}
		if err := json.Unmarshal(stats, &st); err == nil {
			total += float64(st.TotalMillis)
			for k, v := range st.StepMillis {
				stepSum[k] += v
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read recent jobs: %w", err)
	}
	if nPickup > 0 {
		r.AvgPickupMillis = pickup / float64(nPickup)
	}
	if r.Completed > 0 {
		r.AvgTotalMillis = total / float64(r.Completed)
		for k, v := range stepSum {
			r.AvgStepMillis[k] = v / int64(r.Completed)
		}
	}
	return nil
}

// Inference is everything support needs to understand one build: its
// timings, the intermediate images (mask, parts map) and the event timeline.
type Inference struct {
	Job          Job              `json:"-"`
	ImageURL     string           `json:"imageURL"`
	MaskURL      string           `json:"maskURL"`
	PartsMapURL  string           `json:"partsMapURL"`
	ThumbnailURL string           `json:"thumbnailURL"`
	ModelURL     string           `json:"modelURL"`
	PickupMillis *float64         `json:"pickupMillis"`
	TotalMillis  *float64         `json:"endToEndMillis"`
	StepMillis   map[string]int64 `json:"stepMillis"`
	Timeline     []TimelineEntry  `json:"timeline"`
}

// TimelineEntry is one event of the job's stream.
type TimelineEntry struct {
	Version    int64           `json:"version"`
	Type       string          `json:"type"`
	At         time.Time       `json:"at"`
	SinceQueue float64         `json:"sinceQueuedMillis"`
	Data       json.RawMessage `json:"data"`
}

// Inference returns the debug view of a job: the owner's, or anyone's when
// anyUser is set (admins).
func (s *Service) Inference(ctx context.Context, userID, jobID string, anyUser bool) (Inference, error) {
	var j Job
	var err error
	if anyUser {
		j, err = lookupAny(ctx, s.db, jobID)
	} else {
		j, err = Lookup(ctx, s.db, userID, jobID)
	}
	if err != nil {
		return Inference{}, err
	}
	out := Inference{Job: j, StepMillis: map[string]int64{}}
	for _, f := range []struct {
		dst *string
		key string
	}{{&out.ImageURL, j.ImageKey}, {&out.MaskURL, j.MaskKey}, {&out.PartsMapURL, j.PartsMapKey},
		{&out.ThumbnailURL, j.ThumbnailKey}, {&out.ModelURL, j.ModelKey}} {
		if *f.dst, err = s.SignedURL(ctx, f.key); err != nil {
			return Inference{}, err
		}
	}
	if j.StartedAt != nil {
		v := float64(j.StartedAt.Sub(j.QueuedAt).Microseconds()) / 1000
		out.PickupMillis = &v
	}
	if j.FinishedAt != nil {
		v := float64(j.FinishedAt.Sub(j.QueuedAt).Microseconds()) / 1000
		out.TotalMillis = &v
	}
	var st struct {
		StepMillis map[string]int64 `json:"stepMillis"`
	}
	if len(j.Stats) > 0 && json.Unmarshal(j.Stats, &st) == nil && st.StepMillis != nil {
		out.StepMillis = st.StepMillis
	}
	envs, _, err := s.dispatch.Store.Load(ctx, s.db, jobStream(j.ID))
	if err != nil {
		return Inference{}, err
	}
	out.Timeline = timeline(envs, j.QueuedAt)
	return out, nil
}

func timeline(envs []eventstore.Envelope, queued time.Time) []TimelineEntry {
	out := make([]TimelineEntry, 0, len(envs))
	for _, e := range envs {
		out = append(out, TimelineEntry{Version: e.Version, Type: e.Type, At: e.OccurredAt,
			SinceQueue: float64(e.OccurredAt.Sub(queued).Microseconds()) / 1000, Data: e.Raw})
	}
	return out
}
