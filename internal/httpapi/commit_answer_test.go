package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/eventstore/committest"
	"github.com/photo3d/photo3d/internal/job/jobtest"
)

// A request whose write committed is answered with what it made, even when
// its connection to the database is lost right after the COMMIT
// (committest.CutAfterCommit): POST /api/jobs answers the job it started, and
// POST /api/products, which reads the product's whole detail after the
// write, answers the product as written. Before, both answered 500 for a
// build that was started and charged, and the merchant's retry paid for a
// second one (ops/chaos: one job in twelve runs that no accepted request
// created).
func TestAWriteThatCommittedIsAnsweredWhenTheConnectionIsLostRightAfter(t *testing.T) {
	t.Parallel()
	s := newCatalogueStack(t)
	user := s.env.User(t)
	startTrialFor(t, s, user)
	// cut posts body to path as user under a context cut after the COMMIT.
	cut := func(path string, body any) (*httptest.ResponseRecorder, reply) {
		t.Helper()
		b, err := json.Marshal(body)
		require.NoError(t, err)
		ctx := committest.CutAfterCommit(context.Background())
		req := httptest.NewRequestWithContext(ctx, "POST", path, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		tok, _, err := s.tokens.Issue(user)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+tok)
		rec := httptest.NewRecorder()
		s.h.ServeHTTP(rec, req)
		require.Error(t, ctx.Err(), "%s: the connection was cut after the COMMIT", path)
		var r reply
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &r), rec.Body.String())
		return rec, r
	}
	count := func(sql string) (n int) {
		t.Helper()
		require.NoError(t, s.env.DB.Pool.QueryRow(context.Background(), sql, user).Scan(&n))
		return n
	}

	rec, r := cut("/api/jobs", map[string]any{"imageURL": s.env.UploadPhoto(t, user, jobtest.PNG(t, 64, 64))})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var j struct{ ID, Status string }
	require.NoError(t, json.Unmarshal(r.Data, &j))
	require.Equal(t, "queued", j.Status)
	require.Equal(t, "/api/jobs/"+j.ID, rec.Header().Get("Location"))
	require.Equal(t, 1, count(`SELECT count(*) FROM jobs WHERE user_id = $1`))

	upload, err := s.env.Uploads.ParseImageURL(s.env.UploadPhoto(t, user, jobtest.PNG(t, 64, 64)))
	require.NoError(t, err)
	rec, r = cut("/api/products", map[string]any{"name": "Desk lamp", "uploadId": upload, "generate": true})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	p := decodeAs[productReply](t, r.Data)
	require.Equal(t, "Desk lamp", p.Name)
	require.Equal(t, "processing", p.Status)
	require.Equal(t, "/api/products/"+p.ID, rec.Header().Get("Location"))
	var built struct {
		JobID    string `json:"jobId"`
		Variants []any  `json:"variants"`
	}
	require.NoError(t, json.Unmarshal(r.Data, &built))
	require.NotEmpty(t, built.JobID, "the answer names the build it started")
	require.NotEmpty(t, built.Variants, "and the product's configuration")
	require.Equal(t, 1, count(`SELECT count(*) FROM products WHERE user_id = $1`))
	require.Equal(t, 2, count(`SELECT count(*) FROM jobs WHERE user_id = $1`))

	// Read whole on the next GET.
	rec, r = s.json(t, user, "GET", "/api/products/"+p.ID, nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.NotEmpty(t, decodeAs[productReply](t, r.Data).Timeline)
}
