package httpapi

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/blobstore"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

// stepNames are the four user-visible steps in order (spec §2 Processing).
var stepNames = []string{string(reconstruct.StepAnalyzing), string(reconstruct.StepDeconstructing),
	string(reconstruct.StepAssembling), string(reconstruct.StepFinalizing)}

type stepView struct {
	Name  string `json:"name"`
	State string `json:"state"` // pending | active | done | error
}

// jobView is the answer of GET /jobs/{id}. URLs are signed GET URLs valid
// for job.URLExpiry (1 h): model-viewer and <img> load them without an
// Authorization header, so authenticated API URLs would not work there.
// assetId leads to GET /assets/{id} for a download.
type jobView struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Status       string          `json:"status"`
	Progress     int             `json:"progress"`
	Step         string          `json:"step"`
	Steps        []stepView      `json:"steps"`
	Attempt      int             `json:"attempt"`
	ImageURL     string          `json:"imageURL"`
	ModelURL     string          `json:"modelURL"`
	ThumbnailURL string          `json:"thumbnailURL"`
	AssetID      string          `json:"assetId"`
	Parts        []partView      `json:"parts"`
	Stats        json.RawMessage `json:"stats"`
	Fidelity     *int            `json:"fidelity"` // 0–100, null when none (reconstruct/fidelity.go)
	// Views is how many photos the build uses (1, 2–8 for a multi-photo build,
	// 8–72 for a spin set).
	Views int `json:"views"`
	// Spin is the ring layout of a build from a turntable spin set, as POST
	// /api/jobs took it; absent for every other build.
	Spin  *spinView `json:"spin,omitempty"`
	Error string    `json:"error"`
	// Retryable: the build failed and POST /jobs/{id}/retry may start it
	// again; false for a build whose photos were refused (job.Job.Refused).
	Retryable bool `json:"retryable"`
	// Warnings are the builder's sentences about a model it built but doubts
	// (the product runs off an edge of its photo); [] when all is well.
	Warnings   []string   `json:"warnings"`
	CreatedAt  time.Time  `json:"createdAt"`
	UpdatedAt  time.Time  `json:"updatedAt"`
	StartedAt  *time.Time `json:"startedAt"`
	FinishedAt *time.Time `json:"finishedAt"`
}

// partView is one part of a built model: what the build measured plus a
// description derived from it (spec §3 "Part: id, name, description").
type partView struct {
	events.JobPart
	Description string `json:"description"`
}

func partViews(parts []events.JobPart) []partView {
	out := make([]partView, 0, len(parts))
	for _, p := range parts {
		out = append(out, partView{JobPart: p, Description: catalog.PartDescription(p)})
	}
	return out
}

func newJobView(ctx context.Context, s *job.Service, j job.Job) (jobView, error) {
	v := jobView{ID: j.ID, Name: j.Name, Status: j.Status, Progress: j.Progress, Step: j.Step, Attempt: j.Attempt,
		AssetID: j.AssetID, Parts: partViews(j.Parts), Stats: j.Stats, Fidelity: j.Fidelity(), Error: j.Error, CreatedAt: j.CreatedAt,
		UpdatedAt: j.UpdatedAt, StartedAt: j.StartedAt, FinishedAt: j.FinishedAt, Views: j.Views(), Spin: newSpinView(j.Spin),
		Retryable: j.Retryable(), Warnings: j.Warnings}
	if v.Warnings == nil {
		v.Warnings = []string{}
	}
	if len(v.Stats) == 0 {
		v.Stats = json.RawMessage("{}")
	}
	if v.Status == job.StatusProcessing && v.Step == "" {
		v.Step = stepNames[0]
	}
	v.Steps = steps(j.Status, v.Step)
	var err error
	if !j.FromVideos() {
		if v.ImageURL, err = s.SignedURL(ctx, j.ImageKey); err != nil {
			return jobView{}, err
		}
	}
	if j.Status == job.StatusCompleted {
		if v.ModelURL, err = s.SignedURL(ctx, j.ModelKey); err != nil {
			return jobView{}, err
		}
		if v.ThumbnailURL, err = s.SignedURL(ctx, j.ThumbnailKey); err != nil {
			return jobView{}, err
		}
	}
	return v, nil
}

func steps(status, current string) []stepView {
	idx := -1
	for i, n := range stepNames {
		if n == current {
			idx = i
		}
	}
	out := make([]stepView, len(stepNames))
	for i, n := range stepNames {
		state := "pending"
		switch {
		case status == job.StatusCompleted || i < idx:
			state = "done"
		case i == idx && status == job.StatusFailed:
			state = "error"
		case i == idx:
			state = "active"
		}
		out[i] = stepView{Name: n, State: state}
	}
	if status == job.StatusFailed && idx < 0 {
		out[0].State = "error"
	}
	return out
}

type createJobRequest struct {
	ImageURL   string             `json:"imageURL"`
	MoreImages []moreImageRequest `json:"moreImages"`
	// SpinSet replaces imageURL and moreImages for a build from a turntable
	// spin set.
	SpinSet *spinSetRequest `json:"spinSet"`
}

// spinSetRequest is a turntable spin set: its rings in shooting order and
// every photo, ring after ring; or, instead, one turntable video per camera
// height, lowest first (VideoURLs: uploads of MP4, MOV or WebM videos).
type spinSetRequest struct {
	Rings     []spinRingJSON `json:"rings"`
	ImageURLs []string       `json:"imageURLs"`
	VideoURLs []string       `json:"videoURLs"`
}

// spinRingJSON is one ring of a spin set, in requests and in the job view:
// photos over one full turn, and the camera's elevation in degrees above the
// product's middle (0 when left out).
type spinRingJSON struct {
	Photos    int     `json:"photos"`
	Elevation float64 `json:"elevation"`
}

// spinView is a spin-set build's layout in the job view: its rings, and for
// a build from videos how many (each became one ring).
type spinView struct {
	Rings  []spinRingJSON `json:"rings"`
	Videos int            `json:"videos,omitempty"`
}

func newSpinView(s *events.JobSpin) *spinView {
	if s == nil {
		return nil
	}
	v := &spinView{Rings: make([]spinRingJSON, len(s.Rings)), Videos: s.Videos}
	for i, r := range s.Rings {
		v.Rings[i] = spinRingJSON{Photos: r.Photos, Elevation: r.ElevationDeg}
	}
	return v
}

// moreImageRequest is one further photo of a multi-photo build.
type moreImageRequest struct {
	ImageURL string   `json:"imageURL"`
	Azimuth  *float64 `json:"azimuth"`
}

// moreImages converts the request's further photos for internal/job, which
// checks them (POST /api/jobs and POST /api/products alike).
func moreImages(req []moreImageRequest) []job.MoreImage {
	more := make([]job.MoreImage, len(req))
	for i, m := range req {
		more[i] = job.MoreImage{ImageURL: m.ImageURL, Azimuth: m.Azimuth}
	}
	return more
}

// createJob serves POST /api/jobs {imageURL, moreImages?: [{imageURL, azimuth?}]}
// or {spinSet: {rings: [{photos, elevation}], imageURLs}} or {spinSet:
// {videoURLs}}: every imageURL must name one of the caller's uploads (up to 7
// more photos of the same product, from other angles; or a turntable spin
// set of 8–72 photos, job.CreateSpin; or 1–3 turntable videos,
// job.CreateSpinVideos);
// one AI credit per photo is held until the build ends (job.CreditsFor), and an
// account may have job.DefaultMaxWaitingBuilds builds waiting (429 builds_queued).
func createJob(s *job.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req createJobRequest
		if err := DecodeJSON(r, &req); err != nil {
			return err
		}
		var j job.Job
		var err error
		if req.SpinSet != nil {
			if req.ImageURL != "" || req.MoreImages != nil {
				return job.ErrSpinWithImage
			}
			if req.SpinSet.VideoURLs != nil {
				if req.SpinSet.ImageURLs != nil || req.SpinSet.Rings != nil {
					return job.ErrSpinVideosWithPhotos
				}
				j, err = s.CreateSpinVideos(r.Context(), currentWorkspace(r), req.SpinSet.VideoURLs)
				if err != nil {
					return err
				}
				return writeCreatedJob(w, r, s, j)
			}
			rings := make([]job.SpinRing, len(req.SpinSet.Rings))
			for i, ring := range req.SpinSet.Rings {
				rings[i] = job.SpinRing{Photos: ring.Photos, Elevation: ring.Elevation}
			}
			j, err = s.CreateSpin(r.Context(), currentWorkspace(r), rings, req.SpinSet.ImageURLs)
		} else {
			j, err = s.CreateViews(r.Context(), currentWorkspace(r), req.ImageURL, moreImages(req.MoreImages))
		}
		if err != nil {
			return err
		}
		return writeCreatedJob(w, r, s, j)
	}
}

// writeCreatedJob answers 201 with the new job and its Location.
func writeCreatedJob(w http.ResponseWriter, r *http.Request, s *job.Service, j job.Job) error {
	v, err := newJobView(r.Context(), s, j)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/jobs/"+j.ID)
	WriteJSON(w, http.StatusCreated, v)
	return nil
}

// getJob serves GET /api/jobs/{id}, polled every 2 s by the processing screen.
func getJob(s *job.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		j, err := s.Get(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		v, err := newJobView(r.Context(), s, j)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, v)
		return nil
	}
}

// typicalDuration serves GET /api/jobs/typical-duration: the median
// queue-to-done time of recent builds on this server (job.TypicalDuration),
// which the processing screen quotes ("usually about 3 seconds").
func typicalDuration(s *job.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		d, n, err := s.TypicalDuration(r.Context())
		if err != nil {
			return err
		}
		var median *float64
		if n > 0 {
			v := math.Round(d.Seconds()*10) / 10
			median = &v
		}
		WriteJSON(w, http.StatusOK, map[string]any{"medianSeconds": median, "samples": n})
		return nil
	}
}

// retryJob serves POST /api/jobs/{id}/retry: a new attempt at the caller's
// failed build from the same photo (see job.Service.Retry). It answers the
// new job, like POST /api/jobs.
func retryJob(s *job.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		j, err := s.Retry(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		return writeCreatedJob(w, r, s, j)
	}
}

// jobThumbnail serves GET /api/jobs/{id}/thumbnail to the owner.
func jobThumbnail(s *job.Service, blobs *blobstore.Store) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		j, err := s.Get(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		if j.ThumbnailKey == "" || (j.FromVideos() && j.Status != job.StatusCompleted) {
			return errBlobNotFound // a video build has a thumbnail once its model exists
		}
		return streamBlob(w, r, blobs, j.ThumbnailKey, "")
	}
}

type assetView struct {
	ID          string    `json:"id"`
	JobID       string    `json:"jobId"`
	URL         string    `json:"url"`         // signed GET, valid 1 h
	DownloadURL string    `json:"downloadURL"` // authenticated, with a file name
	Filename    string    `json:"filename"`
	ContentType string    `json:"contentType"`
	Bytes       int64     `json:"bytes"`
	CreatedAt   time.Time `json:"createdAt"`
}

// getAsset serves GET /api/assets/{id}.
func getAsset(s *job.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		a, err := s.Asset(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		u, err := s.SignedURL(r.Context(), a.Key)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, assetView{ID: a.ID, JobID: a.JobID, URL: u, DownloadURL: "/api/assets/" + a.ID + "/file",
			Filename: downloadName(a.JobName), ContentType: a.ContentType, Bytes: a.Bytes, CreatedAt: a.CreatedAt})
		return nil
	}
}

// assetFile serves GET /api/assets/{id}/file: the GLB as an attachment.
func assetFile(s *job.Service, blobs *blobstore.Store) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		a, err := s.Asset(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		return streamBlob(w, r, blobs, a.Key, downloadName(a.JobName))
	}
}

// downloadName makes a safe ASCII file name from a blueprint name.
func downloadName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ' || r == '.':
			b.WriteRune('-')
		}
	}
	s := strings.Trim(b.String(), "-")
	if s == "" {
		s = "model"
	}
	if len(s) > 80 {
		s = s[:80]
	}
	return s + ".glb"
}

// blueprintView is one card of My Blueprints (spec §3: id, name, jobId,
// thumbnailURL, createdAt) plus its real status.
type blueprintView struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	JobID        string    `json:"jobId"`
	ThumbnailURL string    `json:"thumbnailURL"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
	Status       string    `json:"status"` // processing | ready | failed
	AssetID      string    `json:"assetId"`
	Error        string    `json:"error,omitempty"`
	// Retryable: failed, and a retry may start it again (as in the job view).
	Retryable bool `json:"retryable"`
	Fidelity  *int `json:"fidelity"` // 0–100, null when none
	// Views is how many photos the build uses: two builds of one name and
	// photo differ here (merchant walk 4, H1).
	Views int `json:"views"`
	// Spin is a spin set's layout (its rings, and its videos when cut from
	// them), as in the job view; absent for other builds.
	Spin *spinView `json:"spin,omitempty"`
}

func newBlueprintView(ctx context.Context, s *job.Service, j job.Job) (blueprintView, error) {
	var thumb string
	var err error
	if !j.FromVideos() || j.Status == job.StatusCompleted {
		if thumb, err = s.SignedURL(ctx, j.ThumbnailKey); err != nil {
			return blueprintView{}, err
		}
	}
	return blueprintView{ID: j.ID, Name: j.Name, JobID: j.ID, ThumbnailURL: thumb, CreatedAt: j.CreatedAt,
		UpdatedAt: j.UpdatedAt, Status: j.BlueprintStatus(), AssetID: j.AssetID, Error: j.Error, Fidelity: j.Fidelity(), Views: j.Views(),
		Spin: newSpinView(j.Spin), Retryable: j.Retryable()}, nil
}

type blueprintPage struct {
	Items      []blueprintView `json:"items"`
	NextCursor string          `json:"nextCursor"`
	Total      int             `json:"total"`
	Limit      int             `json:"limit"`
}

// listBlueprints serves GET /api/blueprints?limit=&cursor=: newest first,
// limit 1–100 (default 20); pass nextCursor back as cursor for the next
// page (empty on the last); total counts all of the caller's blueprints.
func listBlueprints(s *job.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		p := job.ListParams{Cursor: q.Get("cursor")}
		if v := q.Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return job.ErrBadLimit
			}
			p.Limit = n
		}
		page, err := s.List(r.Context(), currentWorkspace(r), p)
		if err != nil {
			return err
		}
		out := blueprintPage{Items: make([]blueprintView, 0, len(page.Items)), NextCursor: page.NextCursor, Total: page.Total,
			Limit: max(p.Limit, 0)}
		if out.Limit == 0 {
			out.Limit = job.DefaultLimit
		}
		for _, j := range page.Items {
			v, err := newBlueprintView(r.Context(), s, j)
			if err != nil {
				return err
			}
			out.Items = append(out.Items, v)
		}
		WriteJSON(w, http.StatusOK, out)
		return nil
	}
}

// blueprintDetail is a card plus the full job (model URL, parts, stats).
type blueprintDetail struct {
	blueprintView
	Job jobView `json:"job"`
}

func writeBlueprint(w http.ResponseWriter, r *http.Request, s *job.Service, j job.Job) error {
	card, err := newBlueprintView(r.Context(), s, j)
	if err != nil {
		return err
	}
	jv, err := newJobView(r.Context(), s, j)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, blueprintDetail{blueprintView: card, Job: jv})
	return nil
}

// getBlueprint serves GET /api/blueprints/{id}.
func getBlueprint(s *job.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		j, err := s.Blueprint(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		return writeBlueprint(w, r, s, j)
	}
}

type renameRequest struct {
	Name *string `json:"name"`
}

// renameBlueprint serves PATCH /api/blueprints/{id} {name}.
func renameBlueprint(s *job.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req renameRequest
		if err := DecodeJSON(r, &req); err != nil {
			return err
		}
		if req.Name == nil {
			return job.ErrNameRequired
		}
		j, err := s.Rename(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), *req.Name)
		if err != nil {
			return err
		}
		return writeBlueprint(w, r, s, j)
	}
}

// deleteBlueprint serves DELETE /api/blueprints/{id}.
func deleteBlueprint(s *job.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := chi.URLParam(r, "id")
		if err := s.Delete(r.Context(), currentWorkspace(r), id); err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"id": id, "deleted": true})
		return nil
	}
}

// debugAccess decides who may call the debug endpoints: anyone signed in
// when DEV_MODE is on (their own jobs), and admins (any job). To everyone
// else the routes do not exist (404), so production hides them.
func debugAccess(d Deps, r *http.Request) (allowed, admin bool, err error) {
	if d.IsAdmin != nil {
		admin, err = d.IsAdmin(r.Context(), currentWorkspace(r))
		if err != nil {
			return false, false, err
		}
	}
	return admin || d.DevMode, admin, nil
}

// debugTest serves GET /api/jobs/debug/test: pipeline health.
func debugTest(s *job.Service, d Deps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		ok, _, err := debugAccess(d, r)
		if err != nil {
			return err
		}
		if !ok {
			return fault.NotFoundf("No API route %s %s.", r.Method, r.URL.Path)
		}
		h := s.Health(r.Context())
		h.Info = map[string]any{"devMode": d.DevMode, "reconstructor": d.Reconstructor, "steps": stepNames}
		status := http.StatusOK
		if !h.OK {
			status = http.StatusServiceUnavailable
		}
		WriteJSON(w, status, h)
		return nil
	}
}

type inferenceView struct {
	job.Inference
	Job jobView `json:"job"`
}

// debugInference serves GET /api/jobs/debug/inference/{id}: per-step
// timings, intermediate images and the event timeline of one job.
func debugInference(s *job.Service, d Deps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		ok, admin, err := debugAccess(d, r)
		if err != nil {
			return err
		}
		if !ok {
			return fault.NotFoundf("No API route %s %s.", r.Method, r.URL.Path)
		}
		inf, err := s.Inference(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), admin)
		if err != nil {
			return err
		}
		jv, err := newJobView(r.Context(), s, inf.Job)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, inferenceView{Inference: inf, Job: jv})
		return nil
	}
}
