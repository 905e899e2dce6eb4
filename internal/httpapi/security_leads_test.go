package httpapi

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/glbvariants/glbtest"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/subscription"
)

// posterPNG is a w×h poster, its left half red and its right half blue.
func posterPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	im := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{R: 220, G: 30, B: 30, A: 255}
			if x >= w/2 {
				c = color.RGBA{R: 30, G: 30, B: 220, A: 255}
			}
			im.SetRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, im))
	return buf.Bytes()
}

// shopperFrom requests a public URL from ip without signing in.
func (s productPubStack) shopperFrom(t *testing.T, ip, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.RemoteAddr = net.JoinHostPort(ip, "40000")
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

// gateToken leaves email at slug's email gate and returns the token it answers.
func (s productPubStack) gateToken(t *testing.T, slug, email string) string {
	t.Helper()
	rec := s.shopper(t, "POST", "/v/"+slug+"/lead", `{"email":"`+email+`","consent":true}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var r struct {
		GateToken string `json:"gateToken"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &r))
	require.NotEmpty(t, r.GateToken)
	return r.GateToken
}

func (s productPubStack) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, s.env.DB.Pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

// Security review 2, item 8: leads were accepted on pages without the email
// gate, from any number of addresses, each a new row and a new webhook. Now
// only a gated page takes leads, an address is one lead per publication (a
// repeat updates it, no new event, so no second webhook), and a publication
// takes at most LeadsPerPublicationPerMinute a minute.
func TestSecurityLeadFloodIsBounded(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user, open := s.readyProduct(t, "Open lamp")
	startTrialFor(t, s.creationStack, user)
	gated := s.productOf(t, user)
	openPub := decodeAs[publishReply](t, s.ok(t, user, "POST", "/api/products/"+open+"/publish", map[string]any{"requireEmail": false}))
	rec, r := s.json(t, user, "POST", "/api/products/"+gated+"/publish", map[string]any{"requireEmail": true})
	require.Less(t, rec.Code, 300, rec.Body.String())
	pub := decodeAs[publishReply](t, r.Data)

	// No gate, no leads.
	rec = s.shopperFrom(t, "2001:db8:1::1", "POST", "/v/"+openPub.Slug+"/lead", `{"email":"junk@example.com","consent":true}`)
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.Zero(t, s.count(t, `SELECT count(*) FROM product_leads WHERE product_id = $1`, open))

	// One address per publication: repeats (any case) update the lead.
	lead := "/v/" + pub.Slug + "/lead"
	for i, email := range []string{"repeat@example.com", "REPEAT@example.com", "Repeat@Example.com"} {
		rec := s.shopperFrom(t, fmt.Sprintf("2001:db8:2:%x::1", i), "POST", lead,
			fmt.Sprintf(`{"email":%q,"consent":true,"variantId":"v1"}`, email))
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	}
	require.Equal(t, 1, s.count(t, `SELECT count(*) FROM product_leads WHERE product_id = $1`, gated))
	require.Equal(t, 1, s.count(t, `SELECT count(*) FROM events WHERE type = 'product.lead_captured.v1'`),
		"one lead.captured event: webhooks fire once")

	// 60 junk leads from 60 /64s: the publication's ceiling holds.
	codes := map[int]int{}
	for i := range 60 {
		codes[s.shopperFrom(t, fmt.Sprintf("2001:db8:3:%x::1", i), "POST", lead,
			fmt.Sprintf(`{"email":"junk%d@example.com","consent":true}`, i)).Code]++
	}
	require.Equal(t, map[int]int{http.StatusOK: LeadsPerPublicationPerMinute - 3,
		http.StatusTooManyRequests: 60 - (LeadsPerPublicationPerMinute - 3)}, codes)
	require.Equal(t, LeadsPerPublicationPerMinute-2, s.count(t, `SELECT count(*) FROM product_leads WHERE product_id = $1`, gated))
}

// Security review 2, item 8: the leads list and the CSV stopped at the
// newest 10,000, so junk pushed real leads out of both. The list pages
// (keyset, newest first) and the CSV streams every lead.
func TestSecurityLeadsListAndExportArePaged(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user, id := s.readyProduct(t, "Popular lamp")
	startTrialFor(t, s.creationStack, user)
	pub := decodeAs[publishReply](t, s.ok(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{"requireEmail": true}))
	const total = 10_050
	_, err := s.env.DB.Pool.Exec(context.Background(), `INSERT INTO product_leads (id, user_id, product_id, publication_id, email, consent, created_at)
		SELECT gen_random_uuid()::text, $1, $2, $3, 'lead' || i || '@example.com', 'ok', now() - i * interval '1 second'
		FROM generate_series(1, $4) i`, user, id, pub.PublicationID, total)
	require.NoError(t, err)

	type page struct {
		Items []struct {
			ID, Email string
		} `json:"items"`
		NextCursor string `json:"nextCursor"`
	}
	seen := map[string]bool{}
	var first string
	cursor, pages := "", 0
	for {
		p := decodeAs[page](t, s.ok(t, user, "GET", "/api/products/"+id+"/leads?limit=500&cursor="+cursor, nil))
		pages++
		for _, l := range p.Items {
			require.False(t, seen[l.ID], "a lead appears once across pages")
			seen[l.ID] = true
			if first == "" {
				first = l.Email
			}
		}
		if p.NextCursor == "" {
			break
		}
		cursor = p.NextCursor
	}
	require.Len(t, seen, total)
	require.Equal(t, 21, pages)
	require.Equal(t, "lead1@example.com", first, "newest first")
	require.True(t, seen[decodeAs[page](t, s.ok(t, user, "GET", "/api/products/"+id+"/leads", nil)).Items[0].ID])
	rec, _ := s.json(t, user, "GET", "/api/products/"+id+"/leads?cursor=bm90LWEtY3Vyc29y", nil)
	require.Equal(t, http.StatusBadRequest, rec.Code)
	rec, _ = s.json(t, user, "GET", "/api/products/"+id+"/leads?limit=501", nil)
	require.Equal(t, http.StatusBadRequest, rec.Code)

	rec, _ = s.call(t, user, "GET", "/api/products/"+id+"/leads.csv", "", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	recs, err := csv.NewReader(bytes.NewReader(rec.Body.Bytes())).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, total+1, "every lead, not the newest 10,000")
	require.Equal(t, "lead10050@example.com", recs[total][0], "the oldest lead is still there")
}

// Security review 2, item 9: the email gate was cosmetic: the gated page
// carried the model URL and the GLB was served without a lead. The gated
// page's model routes (model, AR files, poster) now answer only with the
// token the gate issues when it takes an email.
func TestSecurityGatedModelNeedsTheGateToken(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	ctx := context.Background()
	user := s.env.User(t)
	bp := s.env.Blueprint(t, user, "ready")
	require.NoError(t, s.env.Blobs.Bucket.WriteAll(ctx, "models/"+bp+"/model.glb", glbtest.Model(t), nil))
	poster := posterPNG(t, 640, 480)
	require.NoError(t, s.env.Blobs.Bucket.WriteAll(ctx, "models/"+bp+"/thumbnail.png", poster, nil))
	rec, r := s.json(t, user, "POST", "/api/products", map[string]any{"name": "Gated vase", "blueprintId": bp})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	id := decodeAs[productReply](t, r.Data).ID
	startTrialFor(t, s.creationStack, user)
	pub := decodeAs[publishReply](t, s.ok(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{"requireEmail": true}))
	other := decodeAs[publishReply](t, s.ok(t, user, "POST", "/api/products/"+s.productOf(t, user)+"/publish", map[string]any{"requireEmail": true}))

	page := s.shopper(t, "GET", "/v/"+pub.Slug, "").Body.String()
	require.NotContains(t, viewerTag.FindString(page), ` src="`)
	require.NotContains(t, page, "poster.png", "the poster (a picture of the model) is not on the gated page")
	require.NotContains(t, page, "model.glb", "nor is the model in its structured data")

	routes := []string{"/v/" + pub.Slug + "/model.glb", "/v/" + pub.Slug + "/ar/v1.glb", "/v/" + pub.Slug + "/poster.png"}
	otherToken := s.gateToken(t, other.Slug, "elsewhere@example.com")
	for _, path := range routes {
		require.Equal(t, http.StatusForbidden, s.shopper(t, "GET", path, "").Code, path)
		require.Equal(t, http.StatusForbidden, s.shopper(t, "GET", path+"?gt="+otherToken, "").Code, "%s with another page's token", path)
		require.Equal(t, http.StatusForbidden, s.shopper(t, "GET", path+"?gt=9999999999.AAAAAAAAAAAAAAAAAAAAAA", "").Code, "%s forged", path)
	}
	gt := s.gateToken(t, pub.Slug, "shopper@example.com")
	startModelWorker(t, s.env, s.env.Store) // the AR file is the worker's (security review 3, H1)
	for _, path := range routes {
		rec := s.readyFile(t, path+"?gt="+gt)
		require.Equal(t, http.StatusOK, rec.Code, path)
		require.NotZero(t, rec.Body.Len(), path)
	}
	// Issue 29 item 19: behind the gate's card the page shows a teaser made
	// from the poster, a few dozen pixels, not the poster; it needs no token.
	teaserPath := "/v/" + pub.Slug + "/teaser.jpg"
	require.Contains(t, page, `class="p3d-gate-teaser"`)
	require.Regexp(t, `src="`+regexp.QuoteMeta(teaserPath)+`\?v=[0-9a-f]{12}"`, page)
	rec = s.shopper(t, "GET", teaserPath, "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, "image/jpeg", rec.Header().Get("Content-Type"))
	teaser, err := jpeg.Decode(bytes.NewReader(rec.Body.Bytes()))
	require.NoError(t, err)
	tb := teaser.Bounds()
	require.LessOrEqual(t, max(tb.Dx(), tb.Dy()), 48, "the teaser is at most 48 px on its long side")
	require.Equal(t, publish.TeaserMaxSide, tb.Dx(), "640×480 fits 32×24")
	require.Equal(t, 24, tb.Dy())
	// It shows the poster's colours (its left half red, its right half blue), nothing sharper.
	lr, _, lb, _ := teaser.At(2, tb.Dy()/2).RGBA()
	rr, _, rb, _ := teaser.At(tb.Dx()-3, tb.Dy()/2).RGBA()
	require.Greater(t, lr, lb, "left is red")
	require.Greater(t, rb, rr, "right is blue")
	require.Equal(t, http.StatusNotFound, s.shopper(t, "GET", "/v/AAAAAAAAAAAAAAAAAAAAAA/teaser.jpg", "").Code)
	require.Equal(t, http.StatusNotFound, s.shopper(t, "GET", "/v/"+other.Slug+"/teaser.jpg", "").Code, "a product without a poster has no teaser")

	// A page without the gate is as before.
	open := decodeAs[publishReply](t, s.ok(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{"requireEmail": false}))
	require.Equal(t, http.StatusOK, s.shopper(t, "GET", "/v/"+open.Slug+"/model.glb", "").Code)
	// The teaser follows the poster's rules: unpublished, it is gone too.
	require.Equal(t, http.StatusOK, s.shopper(t, "GET", "/v/"+open.Slug+"/teaser.jpg", "").Code)
	s.ok(t, user, "DELETE", "/api/publications/"+open.PublicationID, nil)
	require.Equal(t, http.StatusNotFound, s.shopper(t, "GET", "/v/"+open.Slug+"/teaser.jpg", "").Code, "unpublished")
	require.Equal(t, http.StatusNotFound, s.shopper(t, "GET", "/v/"+open.Slug+"/poster.png", "").Code, "unpublished")

	// An owner whose views ran out: the page shows its notice, and neither the
	// poster (even with the gate's token) nor its teaser is handed out.
	owner := s.env.User(t)
	bp2 := s.env.Blueprint(t, owner, "ready")
	require.NoError(t, s.env.Blobs.Bucket.WriteAll(ctx, "models/"+bp2+"/model.glb", glbtest.Model(t), nil))
	require.NoError(t, s.env.Blobs.Bucket.WriteAll(ctx, "models/"+bp2+"/thumbnail.png", poster, nil))
	rec, r = s.json(t, owner, "POST", "/api/products", map[string]any{"name": "Spent vase", "blueprintId": bp2})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	startTrialFor(t, s.creationStack, owner)
	spent := decodeAs[publishReply](t, s.ok(t, owner, "POST", "/api/products/"+decodeAs[productReply](t, r.Data).ID+"/publish", map[string]any{"requireEmail": true}))
	spentToken := s.gateToken(t, spent.Slug, "late@example.com")
	require.NoError(t, pgdb.WithTx(ctx, s.env.DB.Pool, func(tx pgx.Tx) error {
		if _, err := s.env.Subs.ChangePlan(ctx, tx, owner, subscription.PlanFree); err != nil {
			return err
		}
		v, err := s.env.Subs.Get(ctx, tx, owner)
		if err != nil || v.PublicViewsBalance == nil || *v.PublicViewsBalance == 0 {
			return err
		}
		_, err = s.env.Subs.LeaseViews(ctx, tx, owner, "spend-them-all", *v.PublicViewsBalance, time.Hour)
		return err
	}))
	require.Equal(t, http.StatusNotFound, s.shopper(t, "GET", "/v/"+spent.Slug+"/poster.png?gt="+spentToken, "").Code, "views ran out")
	require.Equal(t, http.StatusNotFound, s.shopper(t, "GET", "/v/"+spent.Slug+"/teaser.jpg", "").Code, "views ran out")
}

// productOf makes another ready product of user and returns its id.
func (s productPubStack) productOf(t *testing.T, user string) string {
	t.Helper()
	bp := s.env.Blueprint(t, user, "ready")
	require.NoError(t, s.env.Blobs.Bucket.WriteAll(context.Background(), "models/"+bp+"/model.glb", glbtest.Model(t), nil))
	rec, r := s.json(t, user, "POST", "/api/products", map[string]any{"name": "Other", "blueprintId": bp})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	return decodeAs[productReply](t, r.Data).ID
}
