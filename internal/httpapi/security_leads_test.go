package httpapi

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/glbvariants/glbtest"
)

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
	require.NoError(t, s.env.Blobs.Bucket.WriteAll(ctx, "models/"+bp+"/thumbnail.png", []byte("\x89PNG\r\n\x1a\n poster"), nil))
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
	for _, path := range routes {
		rec := s.shopper(t, "GET", path+"?gt="+gt, "")
		require.Equal(t, http.StatusOK, rec.Code, path)
		require.NotZero(t, rec.Body.Len(), path)
	}
	// A page without the gate is as before.
	open := decodeAs[publishReply](t, s.ok(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{"requireEmail": false}))
	require.Equal(t, http.StatusOK, s.shopper(t, "GET", "/v/"+open.Slug+"/model.glb", "").Code)
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
