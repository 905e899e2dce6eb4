// Package googlefeed serves each merchant's Google Merchant Center product
// feed (issue 32, item 3): an RSS 2.0 document in Google's namespace
// (xmlns:g="http://base.google.com/ns/1.0") listing every variant of the
// merchant's published products with a price, its page, its poster and a
// virtual_model_link to the variant's commerce GLB, at
// /feeds/{token}/google.xml. The token is an unguessable capability the
// merchant pastes into Merchant Center once and can rotate.
//
// The attribute rules follow Google's product data specification
// (https://support.google.com/merchants/answer/7052112) and the 3D model
// link's page (https://support.google.com/merchants/answer/13674896):
// Validate checks exactly those this feed writes.
package googlefeed

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/catalog"
)

// Namespace is Google's product namespace.
const Namespace = "http://base.google.com/ns/1.0"

// UTMSource marks feed traffic in shopper analytics (issue 32, item 5).
const UTMSource = "google_shopping"

// Limits from the product data specification.
const (
	MaxID          = 50
	MaxTitle       = 150
	MaxDescription = 5000
	MaxBrand       = 70
	MaxURL         = 2000
)

// Availability values the specification allows.
var Availability = []string{"in_stock", "out_of_stock", "preorder", "backorder"}

// Item is one feed entry: one variant of a published product.
type Item struct {
	ID, Title, Description, Link, ImageLink, Price, Availability, Brand, GroupID, ModelLink string
}

// Service reads feeds and their tokens.
type Service struct {
	DB      *pgxpool.Pool
	BaseURL string
	// Brand is the merchant's brand name (account branding); "" or an
	// error: the merchant's name is not guessed, the feed says "Photo3D".
	Brand func(ctx context.Context, userID string) (string, error)
	// Live reports whether a publication may still be shown (its owner has
	// views left); nil: always.
	Live func(ctx context.Context, ownerID, pubID string) bool
	Now  func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func newToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("feed token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// URL is the feed address of a token.
func (s *Service) URL(token string) string { return s.BaseURL + "/feeds/" + token + "/google.xml" }

// Token returns the merchant's feed token, creating it on first use.
func (s *Service) Token(ctx context.Context, userID string) (string, error) {
	tok, err := newToken()
	if err != nil {
		return "", err
	}
	now := s.now().UTC()
	var out string
	err = s.DB.QueryRow(ctx, `INSERT INTO channel_feeds (user_id, token, created_at, rotated_at) VALUES ($1, $2, $3, $3)
		ON CONFLICT (user_id) DO UPDATE SET user_id = EXCLUDED.user_id RETURNING token`, userID, tok, now).Scan(&out)
	if err != nil {
		return "", fmt.Errorf("read feed token: %w", err)
	}
	return out, nil
}

// Rotate gives the merchant a new token; the old URL answers 404 at once.
func (s *Service) Rotate(ctx context.Context, userID string) (string, error) {
	tok, err := newToken()
	if err != nil {
		return "", err
	}
	now := s.now().UTC()
	_, err = s.DB.Exec(ctx, `INSERT INTO channel_feeds (user_id, token, created_at, rotated_at) VALUES ($1, $2, $3, $3)
		ON CONFLICT (user_id) DO UPDATE SET token = EXCLUDED.token, rotated_at = EXCLUDED.rotated_at`, userID, tok, now)
	if err != nil {
		return "", fmt.Errorf("rotate feed token: %w", err)
	}
	return tok, nil
}

// ErrUnknownToken: no feed behind this token (never issued or rotated away).
var ErrUnknownToken = errors.New("unknown feed token")

// Feed renders the feed behind token.
func (s *Service) Feed(ctx context.Context, token string) ([]byte, error) {
	if len(token) != 32 {
		return nil, ErrUnknownToken
	}
	var userID string
	// An account being erased has no feed (security review 3, M1): its
	// request deletes the token, and this covers a request made before that.
	err := s.DB.QueryRow(ctx, `SELECT f.user_id FROM channel_feeds f JOIN users u ON u.id = f.user_id
		WHERE f.token = $1 AND NOT `+account.WorkspaceErasing, token).Scan(&userID)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrUnknownToken
	}
	if err != nil {
		return nil, fmt.Errorf("read feed token: %w", err)
	}
	brand := ""
	if s.Brand != nil {
		if b, err := s.Brand(ctx, userID); err == nil {
			brand = strings.TrimSpace(b)
		}
	}
	if brand == "" {
		brand = "Photo3D"
	}
	// Live product pages without the email gate (a gated page shows no
	// product to Google's crawler), of products that are ready.
	rows, err := s.DB.Query(ctx, `SELECT pub.id, pub.slug, pub.allow_deep_links, p.id, p.name, p.description, p.product_url, p.thumbnail_key, p.config
		FROM publications pub JOIN products p ON p.id = pub.product_id
		WHERE pub.user_id = $1 AND pub.unpublished_at IS NULL AND pub.product_id <> '' AND NOT pub.require_email
		  AND p.user_id = $1 AND p.deleted_at IS NULL AND p.status = 'ready' AND p.model_key <> ''
		ORDER BY p.created_at, p.id`, userID)
	if err != nil {
		return nil, fmt.Errorf("read feed products: %w", err)
	}
	defer rows.Close()
	var items []Item
	for rows.Next() {
		var pubID, slug, productID, name, description, productURL, thumb string
		var deep bool
		var rawCfg []byte
		if err := rows.Scan(&pubID, &slug, &deep, &productID, &name, &description, &productURL, &thumb, &rawCfg); err != nil {
			return nil, fmt.Errorf("read feed product: %w", err)
		}
		if s.Live != nil && !s.Live(ctx, userID, pubID) {
			continue
		}
		var cfg catalog.Config
		if err := json.Unmarshal(rawCfg, &cfg); err != nil {
			return nil, fmt.Errorf("read product %s configuration: %w", productID, err)
		}
		items = append(items, s.items(slug, deep, productID, name, description, productURL, thumb != "", brand, cfg)...)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read feed products: %w", err)
	}
	return Render(brand, s.BaseURL, items), nil
}

// items are a product's feed entries: one per variant with a price (Google
// refuses items without one, or without an image).
func (s *Service) items(slug string, deep bool, productID, name, description, productURL string, poster bool, brand string, cfg catalog.Config) []Item {
	if !poster {
		return nil
	}
	share := s.BaseURL + "/v/" + slug
	var out []Item
	for _, v := range cfg.Variants {
		if v.Price == nil || *v.Price < 0 || len(v.Currency) != 3 {
			continue
		}
		it := Item{Availability: "in_stock", Brand: clip(brand, MaxBrand), GroupID: productID}
		it.ID = strings.TrimSpace(v.SKU)
		if it.ID == "" || utf8.RuneCountInString(it.ID) > MaxID {
			it.ID = clip(productID, MaxID-len(v.ID)-1) + "-" + v.ID
		}
		it.Title = strings.TrimSpace(name)
		if len(cfg.Variants) > 1 && strings.TrimSpace(v.Name) != "" {
			it.Title += " – " + strings.TrimSpace(v.Name)
		}
		it.Title = clip(it.Title, MaxTitle)
		it.Description = strings.TrimSpace(description)
		if it.Description == "" {
			it.Description = strings.TrimSpace(name) + " in interactive 3D: turn it, zoom in and place it in your room."
		}
		it.Description = clip(it.Description, MaxDescription)
		page := share
		if deep && v.ID != cfg.Variants[0].ID {
			page += "?variant=" + url.QueryEscape(v.ID)
		}
		it.Link = withUTM(page)
		if u, err := url.Parse(productURL); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" {
			it.Link = withUTM(productURL) // the merchant's own product page
		}
		it.ImageLink = share + "/poster.png"
		it.Price = strconv.FormatFloat(*v.Price, 'f', 2, 64) + " " + strings.ToUpper(v.Currency)
		it.ModelLink = share + "/ar/" + url.PathEscape(v.ID) + ".commerce.glb"
		out = append(out, it)
	}
	return out
}

// withUTM adds utm_source (and utm_medium) so the visit counts as this
// channel's in shopper analytics.
func withUTM(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	q.Set("utm_source", UTMSource)
	q.Set("utm_medium", "product_feed")
	u.RawQuery = q.Encode()
	return u.String()
}

// clip cuts s to at most n characters (runes), on a rune boundary.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n]))
}

// Render writes the RSS 2.0 document.
func Render(brand, baseURL string, items []Item) []byte {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<rss version="2.0" xmlns:g="` + Namespace + `">` + "\n<channel>\n")
	el(&b, "title", brand+" products")
	el(&b, "link", baseURL)
	el(&b, "description", brand+"'s products in 3D, from Photo3D")
	for _, it := range items {
		b.WriteString("<item>\n")
		el(&b, "g:id", it.ID)
		el(&b, "g:title", it.Title)
		el(&b, "g:description", it.Description)
		el(&b, "g:link", it.Link)
		if it.ImageLink != "" {
			el(&b, "g:image_link", it.ImageLink)
		}
		el(&b, "g:price", it.Price)
		el(&b, "g:availability", it.Availability)
		el(&b, "g:condition", "new")
		el(&b, "g:brand", it.Brand)
		// No GTIN or MPN is known for these products.
		el(&b, "g:identifier_exists", "no")
		el(&b, "g:item_group_id", it.GroupID)
		el(&b, "g:virtual_model_link", it.ModelLink)
		b.WriteString("</item>\n")
	}
	b.WriteString("</channel>\n</rss>\n")
	return b.Bytes()
}

func el(b *bytes.Buffer, name, text string) {
	b.WriteString("<" + name + ">")
	_ = xml.EscapeText(b, []byte(text))
	b.WriteString("</" + name + ">\n")
}
