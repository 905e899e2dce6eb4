package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"

	"github.com/photo3d/photo3d/internal/channels"
	"github.com/photo3d/photo3d/internal/channels/usdz"
	"github.com/photo3d/photo3d/internal/glbvariants"
	"github.com/photo3d/photo3d/internal/glbvariants/glbtest"
	"github.com/photo3d/photo3d/internal/publish"
)

// readyFile asks for a worker-made file of a public page until it is no
// longer "not ready yet" (503): its final answer.
func (s productPubStack) readyFile(t *testing.T, path string) *httptest.ResponseRecorder {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute) // a hung-worker guard, not a speed assertion
	for {
		rec := s.shopper(t, "GET", path, "")
		if rec.Code != http.StatusServiceUnavailable {
			return rec
		}
		require.True(t, time.Now().Before(deadline), "%s still not ready: %s", path, rec.Body.String())
		time.Sleep(50 * time.Millisecond)
	}
}

// channelJobs counts the channel_files jobs queued for a model.
func (s productPubStack) channelJobs(t *testing.T, modelKey string) int {
	t.Helper()
	return s.count(t, `SELECT count(*) FROM river_job WHERE kind = 'channel_files' AND args->>'modelKey' = $1`, modelKey)
}

// Security review 3, item H1: channel files were built inside the api on
// anonymous requests, with no bound (one commerce GLB of a 2 M-triangle own
// model: 62 s of api CPU; one USDZ: 91 MB, six times its budget). Now an
// anonymous request never builds: 40 parallel requests across every
// variant's .usdz, .commerce.glb and .glb of a freshly published large
// model are answered "not ready yet" (503, Retry-After, a short text), the
// blob store gains none of those files, and the one channel_files job the
// publish queued stays the only one for that content. The worker then
// makes them, the USDZ held to the Quick Look budget (as it was, this
// model's would be about 19 MB).
func TestSecurityChannelFilesAreNeverBuiltInTheAPI(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	ctx := context.Background()
	user := s.env.User(t)
	startTrialFor(t, s.creationStack, user)
	bp := s.env.Blueprint(t, user, "ready")
	modelKey := "models/" + bp + "/model.glb"
	big := glbtest.Grid(450) // 7.3 MB, 403,202 triangles
	require.NoError(t, s.env.Blobs.Bucket.WriteAll(ctx, modelKey, big, nil))
	rec, r := s.json(t, user, "POST", "/api/products", map[string]any{"name": "Grid", "blueprintId": bp})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	id := decodeAs[productReply](t, r.Data).ID
	s.ok(t, user, "POST", "/api/products/"+id+"/variants", map[string]any{"name": "Black", "material": "matte-black"})
	pub := decodeAs[publishReply](t, s.ok(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{}))

	vs := []glbvariants.Variant{{ID: "v1", Material: glbvariants.Original}, {ID: "v2", Material: "matte-black"}}
	var paths []string
	for i := range 40 {
		v := vs[i%2].ID
		paths = append(paths, "/v/"+pub.Slug+"/ar/"+v+[]string{".usdz", ".commerce.glb", ".glb"}[i%3])
	}
	answers := make([]*httptest.ResponseRecorder, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := httptest.NewRequest("GET", p, nil)
			req.RemoteAddr = "203.0.113.9:40000"
			answers[i] = httptest.NewRecorder()
			s.h.ServeHTTP(answers[i], req)
		}()
	}
	wg.Wait()
	for i, a := range answers {
		require.Equal(t, http.StatusServiceUnavailable, a.Code, "%s: not ready yet, and not built here (answered %d bytes of %s)",
			paths[i], a.Body.Len(), a.Header().Get("Content-Type"))
		require.Equal(t, publish.ARRetryAfter, a.Header().Get("Retry-After"), paths[i])
		require.Equal(t, "This 3D file is being prepared. Please try again in a moment.\n", a.Body.String())
	}
	// The page's configurator GLB (model.glb, built within the api's
	// limit on heavy work) is all there is.
	for it := s.env.Blobs.Bucket.List(&blob.ListOptions{Prefix: "variants/"}); ; {
		o, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		require.True(t, strings.HasSuffix(o.Key, "/model.glb"), "the api built %s", o.Key)
	}
	require.Equal(t, 1, s.channelJobs(t, modelKey),
		"the publish queued the page's channel files in its transaction; 40 anonymous requests queued nothing more")

	// The worker makes them; the page's files are then served as they are.
	startModelWorker(t, s.env, s.env.Store)
	pkg := s.readyFile(t, "/v/"+pub.Slug+"/ar/v2.usdz")
	require.Equal(t, http.StatusOK, pkg.Code, pkg.Body.String())
	require.LessOrEqual(t, int64(pkg.Body.Len()), channels.QuickLookBudget.MaxBytes, "held to the Quick Look budget")
	_, err := usdz.Check(pkg.Body.Bytes())
	require.NoError(t, err)
	require.Contains(t, pkg.Body.String(), `color3f inputs:diffuseColor = (0.02, 0.02, 0.02)`, "the black variant's colour")
	commerce := s.readyFile(t, "/v/"+pub.Slug+"/ar/v1.commerce.glb")
	require.Equal(t, http.StatusOK, commerce.Code)
	require.LessOrEqual(t, int64(commerce.Body.Len()), channels.CommerceBudget.MaxBytes)
	require.Equal(t, http.StatusOK, s.readyFile(t, "/v/"+pub.Slug+"/ar/v1.glb").Code)

	// The merchant's Channels panel says what was reduced to fit.
	var report struct{ Assets []channels.Asset }
	require.NoError(t, json.Unmarshal(s.ok(t, user, "GET", "/api/products/"+id+"/channels", nil), &report))
	require.Len(t, report.Assets, 5)
	ql := report.Assets[4]
	require.Equal(t, "quick-look", ql.Channel)
	require.Equal(t, channels.StateReady, ql.State)
	require.NotEqual(t, "red", ql.Status)
	require.NotEmpty(t, ql.Notes)
	require.True(t, strings.HasSuffix(ql.Notes[len(ql.Notes)-1], "to fit 15 MB as a USDZ"), ql.Notes)
}

// A file that cannot be made within its budget is never published over it:
// shoppers get a 404 (their viewer falls back to its own conversion), the
// merchant reads why in the Channels panel, and nothing is queued again.
func TestSecurityRefusedChannelFileIsExplainedNotServed(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	ctx := context.Background()
	user, id := s.readyProduct(t, "Chair")
	startTrialFor(t, s.creationStack, user)
	pub := decodeAs[publishReply](t, s.ok(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{}))
	var modelKey string
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT model_key FROM products WHERE id = $1`, id).Scan(&modelKey))
	usdzKey := channels.FilesOf(modelKey, glbvariants.Variant{ID: "v1", Material: glbvariants.Original}).USDZ
	const reason = "The iPhone AR Quick Look file cannot be made within its size limit (still 16.2 MB, the limit is 15 MB). Upload a lighter model."
	require.NoError(t, s.env.Blobs.Bucket.WriteAll(ctx, usdzKey+".refused", []byte(reason), nil))

	rec := s.shopper(t, "GET", "/v/"+pub.Slug+"/ar/v1.usdz", "")
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.Equal(t, "This 3D file is not available for this product.\n", rec.Body.String(), "the shopper is not told the merchant's business")
	var report struct{ Assets []channels.Asset }
	require.NoError(t, json.Unmarshal(s.ok(t, user, "GET", "/api/products/"+id+"/channels", nil), &report))
	require.Equal(t, channels.StateRefused, report.Assets[2].State)
	require.Equal(t, reason, report.Assets[2].Reason)
	require.Equal(t, channels.StatePending, report.Assets[1].State, "the others are still to make")
}

// The worker writes channel files under the account's file lock, and none
// once the account's erasure was requested (security review 3, M3: files
// written after the erasure's listing would outlive it).
func TestChannelFilesAreNotWrittenForAnAccountBeingErased(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	ctx := context.Background()
	user, id := s.readyProduct(t, "Chair")
	startTrialFor(t, s.creationStack, user)
	s.ok(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{})
	var modelKey string
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT model_key FROM products WHERE id = $1`, id).Scan(&modelKey))
	require.Equal(t, 1, s.channelJobs(t, modelKey))
	_, err := s.env.DB.Pool.Exec(ctx, `UPDATE users SET erasure_requested_at = now() WHERE id = $1`, user)
	require.NoError(t, err)

	startModelWorker(t, s.env, s.env.Store)
	deadline := time.Now().Add(time.Minute)
	for s.count(t, `SELECT count(*) FROM river_job WHERE kind = 'channel_files' AND state = 'completed'`) == 0 {
		require.True(t, time.Now().Before(deadline), "channel_files job not finished")
		time.Sleep(50 * time.Millisecond)
	}
	f := channels.FilesOf(modelKey, glbvariants.Variant{ID: "v1", Material: glbvariants.Original})
	for _, k := range []string{f.AR, f.Commerce, f.USDZ, f.USDZ + ".refused"} {
		ok, err := s.env.Blobs.Bucket.Exists(ctx, k)
		require.NoError(t, err)
		require.False(t, ok, "%s written for an account being erased", k)
	}
}
