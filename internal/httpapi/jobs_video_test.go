package httpapi

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/reconstruct"
	"github.com/photo3d/photo3d/internal/reconstruct/spinvideo"
	"github.com/photo3d/photo3d/internal/reconstruct/spinvideo/spinvideotest"
	"github.com/photo3d/photo3d/internal/upload"
	"github.com/photo3d/photo3d/internal/videocheck"
)

// turntableVideo encodes an H.264 MP4 of the test chest on a turntable,
// 320×240 at 12 fps, frames frames of a turn of 60 (75: a turn and a quarter).
func turntableVideo(t *testing.T, frames int) []byte {
	t.Helper()
	spinvideotest.RequireFFmpeg(t)
	path := filepath.Join(t.TempDir(), "turn.mp4")
	spinvideotest.Encode(t, path, spinvideotest.H264, 12, spinvideotest.Chest.Turning(320, 240, frames, 60, 0, 1, nil))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

// videoSlot opens an upload slot declared for a video.
func (s creationStack) videoSlot(t *testing.T, user, filename, contentType string, size int) (uploadSlot, int64) {
	t.Helper()
	rec, r := s.json(t, user, "POST", "/api/uploads", map[string]any{"filename": filename, "contentType": contentType, "size": size})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var sl struct {
		uploadSlot
		MaxBytes int64 `json:"maxBytes"`
	}
	require.NoError(t, json.Unmarshal(r.Data, &sl))
	return sl.uploadSlot, sl.MaxBytes
}

// putVideo uploads a video through a signed PUT and returns its app URL.
func (s creationStack) putVideo(t *testing.T, user string, data []byte) string {
	t.Helper()
	sl, _ := s.videoSlot(t, user, "turn.mp4", "video/mp4", len(data))
	rec, _ := s.call(t, "", "PUT", sl.UploadURL, "video/mp4", data)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	return rec.Header().Get("Location")
}

func videoSpinBody(urls ...string) map[string]any {
	return map[string]any{"spinSet": map[string]any{"videoURLs": urls}}
}

// Videos come in through the photos' upload flow with their own checks
// (internal/videocheck), before anything is stored: a video slot takes up to
// 150 MB and says so; a video whose picture is too small, one cut short, or
// a photo sent into a video slot is refused with the sentence to act on, and
// nothing is left in the store; a good one arrives whole, served back to its
// owner as video/mp4, by signed PUT and by the multipart fallback alike.
func TestVideoUploads(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false)
	user := s.env.User(t)
	video := turntableVideo(t, 24)

	sl, limit := s.videoSlot(t, user, "turn.mp4", "video/mp4", len(video))
	require.Equal(t, int64(videocheck.MaxBytes), limit, "a video slot says how much it takes")
	rec, r := s.call(t, "", "PUT", sl.UploadURL, "video/mp4", video)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var got struct {
		ContentType   string `json:"contentType"`
		Bytes         int64  `json:"bytes"`
		Width, Height int
	}
	require.NoError(t, json.Unmarshal(r.Data, &got))
	require.Equal(t, "video/mp4", got.ContentType)
	require.Equal(t, int64(len(video)), got.Bytes)
	require.Equal(t, [2]int{320, 240}, [2]int{got.Width, got.Height})
	rec, _ = s.call(t, user, "GET", rec.Header().Get("Location"), "", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "video/mp4", rec.Header().Get("Content-Type"))
	require.True(t, bytes.Equal(video, rec.Body.Bytes()), "the stored video is the upload, whole")

	// The fallback: the bytes say it is a video, whatever the form says.
	ct, body := multipartBody(t, nil, [3]any{"file", "turn.bin", video})
	rec, r = s.call(t, user, "POST", "/api/uploads/content", ct, body)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	require.NoError(t, json.Unmarshal(r.Data, &got))
	require.Equal(t, "video/mp4", got.ContentType)

	_, photoLimit := s.videoSlot(t, user, "vase.png", "image/png", 1000)
	require.Equal(t, int64(10<<20), photoLimit, "a photo slot keeps the spec's 10 MB")

	small := func() []byte {
		spinvideotest.RequireFFmpeg(t)
		path := filepath.Join(t.TempDir(), "small.mp4")
		spinvideotest.Encode(t, path, spinvideotest.H264, 12, spinvideotest.Chest.Turning(200, 150, 36, 60, 0, 1, nil))
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		return b
	}()
	cases := []struct {
		name, filename, ct string
		data               []byte
		status             int
		code               string
		message            string
	}{
		{"a picture under 240 px", "small.mp4", "video/mp4", small, http.StatusBadRequest, "video_dimensions", videocheck.ErrDimensions.Error()},
		{"a video cut short", "cut.mp4", "video/mp4", video[:len(video)*2/3], http.StatusBadRequest, "unreadable_video", videocheck.ErrUnreadable.Error()},
		{"a photo in a video slot", "vase.mov", "video/quicktime", jobtest.PNG(t, 320, 240), http.StatusUnsupportedMediaType, "invalid_video_type", videocheck.ErrInvalidType.Error()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := s.blobsUnder(t, "uploads/")
			sl, _ := s.videoSlot(t, user, c.filename, c.ct, len(c.data))
			rec, r := s.call(t, "", "PUT", sl.UploadURL, c.ct, c.data)
			require.Equal(t, c.status, rec.Code, rec.Body.String())
			require.Equal(t, c.code, r.Error.Code)
			require.Equal(t, c.message, r.Error.Message)
			require.Equal(t, before, s.blobsUnder(t, "uploads/"), "nothing stored")
			rec, r = s.json(t, user, "POST", "/api/jobs", videoSpinBody(sl.PublicURL))
			require.Equal(t, http.StatusBadRequest, rec.Code, "a refused video cannot be built")
			require.Equal(t, "Video 1: "+upload.ErrNotReceived.Message, r.Error.Message)
		})
	}

	rec, r = s.json(t, user, "POST", "/api/uploads", map[string]any{"filename": "long.mp4", "contentType": "video/mp4", "size": videocheck.MaxBytes + 1})
	require.Equal(t, http.StatusRequestEntityTooLarge, rec.Code, rec.Body.String())
	require.Equal(t, "video_too_large", r.Error.Code)
	require.Equal(t, "Videos must be under 150 MB: film one turn of 10 to 20 seconds at 1080p.", r.Error.Message)
}

// POST /api/jobs {spinSet: {videoURLs}} (issue 48 §1, §5): one turntable
// video becomes one ring of twelve photos and one build costing twelve
// credits, one per photo. The real River worker cuts the video with ffmpeg
// and builds the model: the job says twelve views from one video, its
// stats carry what was read from the video (the turn found, which moments
// became photos) beside the turntable fit, the credits held are consumed,
// and the read model comes back the same from the log. A video with less
// than a full turn fails with the sentence that says what to film, and its
// credits come back.
func TestCreateSpinVideoJob(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false)
	ctx := context.Background()
	user := s.env.User(t) // Free plan: 5 credits
	s.buyCredits(t, user, 19)
	good := s.putVideo(t, user, turntableVideo(t, 75))
	short := s.putVideo(t, user, turntableVideo(t, 40))

	rec, r := s.json(t, user, "POST", "/api/jobs", videoSpinBody(good))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var j struct {
		spinReply
		ImageURL string `json:"imageURL"`
		Spin     struct {
			Rings  []spinRingJSON `json:"rings"`
			Videos int            `json:"videos"`
		} `json:"spin"`
	}
	require.NoError(t, json.Unmarshal(r.Data, &j))
	require.Equal(t, 12, j.Views, "the photos the video becomes")
	require.Equal(t, 1, j.Spin.Videos)
	require.Equal(t, []spinRingJSON{{Photos: 12, Elevation: 0}}, j.Spin.Rings)
	require.Empty(t, j.ImageURL, "no <img> can show a video")
	jobSchemaCheck(t, r.Data)
	require.Equal(t, []int64{12}, s.creditAmounts(t, "subscription.credits_reserved.v1", j.ID), "twelve credits")

	rec, r = s.json(t, user, "POST", "/api/jobs", videoSpinBody(short))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	failing := decodeAs[spinReply](t, r.Data)

	s.env.StartWorkerWithin(t, reconstruct.NewBuiltin(), 10*time.Minute)
	s.env.WaitFor(t, user, failing.ID, 10*time.Minute, func(j job.Job) bool { return j.Terminal() })
	s.env.WaitFor(t, user, j.ID, 10*time.Minute, func(j job.Job) bool { return j.Terminal() })

	rec, r = s.json(t, user, "GET", "/api/jobs/"+failing.ID, nil)
	require.Equal(t, http.StatusOK, rec.Code)
	failing = decodeAs[spinReply](t, r.Data)
	require.Equal(t, job.StatusFailed, failing.Status)
	t.Logf("the merchant reads: %s", failing.Error)
	require.Contains(t, failing.Error, "The video shows less than one full turn: keep filming until the product has turned all the way round")
	require.Contains(t, failing.Error, "No credit was used.")
	require.Equal(t, []int64{12}, s.creditAmounts(t, "subscription.credits_released.v1", failing.ID), "the credits come back")

	rec, r = s.json(t, user, "GET", "/api/jobs/"+j.ID, nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.NoError(t, json.Unmarshal(r.Data, &j))
	require.Equal(t, job.StatusCompleted, j.Status, j.Error)
	require.NotEmpty(t, j.ModelURL)
	jobSchemaCheck(t, r.Data)
	var stats struct {
		reconstruct.Stats
		Spin *struct {
			reconstruct.SpinReport
			Videos []spinvideo.Report `json:"videos"`
		} `json:"spin"`
	}
	require.NoError(t, json.Unmarshal(j.Stats, &stats))
	require.Equal(t, reconstruct.ShapeTurntable, stats.ShapeKind)
	require.Equal(t, 12, stats.Views)
	require.NotNil(t, stats.Spin, "%s", j.Stats)
	require.Len(t, stats.Spin.Videos, 1, "what was read from the video")
	require.InDelta(t, 5.0, stats.Spin.Videos[0].TurnSec, 0.2, "a turn of 60 frames at 12 fps")
	require.Len(t, stats.Spin.Videos[0].Frames, 12)
	require.Equal(t, []int64{12}, s.creditAmounts(t, "subscription.credits_consumed.v1", j.ID))
	used, reserved, balance := s.credits(t, user)
	require.Equal(t, [3]int64{12, 0, 12}, [3]int64{used, reserved, balance})

	// My Blueprints says it was built from a video.
	var lib struct {
		Items []struct {
			JobID string `json:"jobId"`
			Spin  *struct {
				Rings  []spinRingJSON `json:"rings"`
				Videos int            `json:"videos"`
			} `json:"spin"`
		} `json:"items"`
	}
	rec, r = s.json(t, user, "GET", "/api/blueprints", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.NoError(t, json.Unmarshal(r.Data, &lib))
	found := false
	for _, it := range lib.Items {
		if it.JobID == j.ID {
			found = true
			require.NotNil(t, it.Spin)
			require.Equal(t, 1, it.Spin.Videos)
			require.Len(t, it.Spin.Rings, 1)
		}
	}
	require.True(t, found, "the build is in My Blueprints")

	envs, _, err := s.env.Store.Load(ctx, s.env.DB.Pool, events.Stream{Type: events.StreamJob, ID: j.ID})
	require.NoError(t, err)
	queued, ok := envs[0].Data.(events.JobQueued)
	require.True(t, ok)
	require.Equal(t, &events.JobSpin{Videos: 1, Rings: []events.SpinRingSpec{{Photos: 12}}}, queued.Spin)
	before, after := s.replayJobsOf(t, user)
	require.Equal(t, before, after, "a replay writes the same rows")
}

// Every refusal of a build from videos comes before anything is reserved:
// too many videos, a photo named as a video (and a video named as a photo,
// in every kind of build), videos with photos or rings, someone else's
// video, and too few credits (402 naming the price per video).
func TestCreateSpinVideoJobRefusals(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false)
	user, other, poor := s.env.User(t), s.env.User(t), s.env.User(t)
	s.buyCredits(t, user, 100)
	video := turntableVideo(t, 24)
	mine := s.putVideo(t, user, video)
	theirs := s.putVideo(t, other, video)
	photo := s.put(t, user, jobtest.PNG(t, 320, 240))
	cases := []struct {
		name          string
		body          any
		code, message string
	}{
		{"four videos", videoSpinBody(mine, mine, mine, mine), "invalid_spin_set",
			"A spin set takes 1 to 3 videos, one full turn of the turntable at each camera height, lowest first; this one has 4."},
		{"no videos", videoSpinBody([]string{}...), "invalid_spin_set",
			"A spin set takes 1 to 3 videos, one full turn of the turntable at each camera height, lowest first; this one has 0."},
		{"a photo as video 2", videoSpinBody(mine, photo), "photo_not_video", "Video 2: " + upload.ErrPhotoNotVideo.Message},
		{"someone else's video", videoSpinBody(theirs), "invalid_image_url", "Video 1: Choose a photo you uploaded to Photo3D."},
		{"videos and photos", map[string]any{"spinSet": map[string]any{"videoURLs": []string{mine}, "imageURLs": []string{photo}}},
			"invalid_spin_set", job.ErrSpinVideosWithPhotos.Message},
		{"videos and rings", map[string]any{"spinSet": map[string]any{"videoURLs": []string{mine}, "rings": []spinRingJSON{{Photos: 12}}}},
			"invalid_spin_set", job.ErrSpinVideosWithPhotos.Message},
		{"a video as a one-photo build", map[string]any{"imageURL": mine}, "video_not_photo", upload.ErrVideoNotPhoto.Message},
		{"a video as a further photo", map[string]any{"imageURL": photo, "moreImages": []map[string]any{{"imageURL": mine}}},
			"video_not_photo", "Photo 2: " + upload.ErrVideoNotPhoto.Message},
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
		})
	}

	s.buyCredits(t, poor, 5) // 10 credits
	theirVideo := s.putVideo(t, poor, video)
	rec, r := s.json(t, poor, "POST", "/api/jobs", videoSpinBody(theirVideo))
	require.Equal(t, http.StatusPaymentRequired, rec.Code, rec.Body.String())
	require.Equal(t, "Not enough AI credits: a build from 1 video uses 12 credits, one per photo the videos become (12 a video). Buy more credits or upgrade your plan on the Subscription page, or build from fewer videos.", r.Error.Message)
	used, reserved, balance := s.credits(t, poor)
	require.Equal(t, [3]int64{0, 0, 10}, [3]int64{used, reserved, balance})
}

// slowReader hands out its bytes in two parts with a pause between them: a
// phone's upload that takes longer than the server's read timeout.
type slowReader struct {
	r      io.Reader
	after  int64
	pause  time.Duration
	read   int64
	paused bool
}

func (s *slowReader) Read(p []byte) (int, error) {
	if !s.paused && s.read >= s.after {
		s.paused = true
		time.Sleep(s.pause)
	}
	if !s.paused {
		p = p[:min(int64(len(p)), s.after-s.read)]
	}
	n, err := s.r.Read(p)
	s.read += int64(n)
	return n, err
}

// A video larger than a photo arrives over a slow connection: the server's
// read timeout (here half a second, two minutes in cmd/api) is meant for
// photos, and an upload that may be a video gets VideoUploadTime instead, so
// the video is stored whole rather than cut off.
func TestSlowVideoUploadOutlastsTheServerReadTimeout(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false)
	user := s.env.User(t)
	header, err := os.ReadFile(filepath.Join("..", "videocheck", "testdata", "faststart.mp4"))
	require.NoError(t, err)
	const extra = 11 << 20 // past a photo's 10 MB: more frames after the header
	mdat := make([]byte, 8)
	binary.BigEndian.PutUint32(mdat, uint32(extra))
	copy(mdat[4:], "mdat")
	size := int64(len(header) + extra)
	sl, _ := s.videoSlot(t, user, "slow.mp4", "video/mp4", int(size))

	srv := httptest.NewUnstartedServer(s.h)
	srv.Config.ReadTimeout = 500 * time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)
	u, err := url.Parse(sl.UploadURL)
	require.NoError(t, err)
	body := &slowReader{r: io.MultiReader(bytes.NewReader(header), bytes.NewReader(mdat), io.LimitReader(zeroReader{}, extra-8)),
		after: 1 << 20, pause: 1500 * time.Millisecond}
	req, err := http.NewRequest(http.MethodPut, srv.URL+u.RequestURI(), body)
	require.NoError(t, err)
	req.ContentLength = size
	req.Header.Set("Content-Type", "video/mp4")
	res, err := srv.Client().Do(req)
	require.NoError(t, err, "the server cut the upload off")
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	require.Equal(t, http.StatusOK, res.StatusCode, string(out))
	require.True(t, body.paused, "the upload paused longer than the read timeout")
	var got reply
	require.NoError(t, json.Unmarshal(out, &got))
	var up struct {
		Bytes int64 `json:"bytes"`
	}
	require.NoError(t, json.Unmarshal(got.Data, &up))
	require.Equal(t, size, up.Bytes, "stored whole")
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
