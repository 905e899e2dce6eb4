package publish

import (
	"context"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/mail"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// Leads are the emails shoppers leave at a product page's email gate. They
// are personal data: stored in product_leads only (the log records that a
// lead was captured, never the address), listed, exported and deleted by the
// product's owner alone.

// ConsentText is what the shopper agrees to by ticking the gate's box; it is
// stored with each lead, so a later change of wording never rewrites what
// someone consented to.
func ConsentText(brand string) string {
	return "I agree that " + brand + " may email me about this product. I can ask for my email to be deleted at any time."
}

// Lead is one captured email as the merchant sees it.
type Lead struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	CreatedAt time.Time `json:"createdAt"`
	VariantID string    `json:"variantId"`
	// Surface is where the shopper last left the address: "page" (the share
	// link) or "embed" (the product on the merchant's own site).
	Surface string `json:"surface"`
}

// Lead surfaces: the share page or an embed.
const (
	SurfacePage  = "page"
	SurfaceEmbed = "embed"
)

var (
	errInvalidEmail = fault.New(fault.Invalid, "invalid_email", "Enter a valid email address, for example name@example.com.")
	errNoConsent    = fault.New(fault.Invalid, "consent_required", "Please tick the box to agree before continuing.")
	errLeadNotFound = fault.New(fault.NotFound, "not_found", "Lead not found.")
)

// MaxEmailLength is the longest address accepted (RFC 5321's path limit).
const MaxEmailLength = 254

// CleanEmail validates a shopper's address: one plain addr-spec (no display
// name, no comments, no list), a dotted domain, at most 254 characters.
func CleanEmail(raw string) (string, error) {
	e := strings.TrimSpace(raw)
	if e == "" || len(e) > MaxEmailLength || !utf8.ValidString(e) || strings.ContainsAny(e, " <>\"(),;:\\[]\r\n\t") {
		return "", errInvalidEmail
	}
	a, err := mail.ParseAddress(e)
	if err != nil || a.Name != "" || a.Address != e {
		return "", errInvalidEmail
	}
	at := strings.LastIndexByte(e, '@')
	domain := e[at+1:]
	if at < 1 || !strings.Contains(domain, ".") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") ||
		strings.Contains(domain, "..") {
		return "", errInvalidEmail
	}
	return e, nil
}

// captureLead stores a lead for a live product page and records the fact
// (not the address) in the log, in one transaction. An address already
// captured for this product (case-insensitively, through the page, an embed
// or an earlier publication) updates its lead with the latest publication,
// variant, consent wording and surface, and records nothing: no second
// lead.captured event, so no second webhook. isNew says which it was.
func captureLead(ctx context.Context, db pgdb.Beginner, store *eventstore.Store, e *pageEntry, email, variantID, consent, surface string, at time.Time) (isNew bool, err error) {
	if surface != SurfaceEmbed {
		surface = SurfacePage
	}
	id := uuid.NewString()
	err = pgdb.WithTx(ctx, db, func(tx pgx.Tx) error {
		var stored string
		if err := tx.QueryRow(ctx, `INSERT INTO product_leads (id, user_id, product_id, publication_id, email, variant_id, consent, surface, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
			ON CONFLICT (user_id, product_id, lower(email)) DO UPDATE SET publication_id = EXCLUDED.publication_id,
				variant_id = EXCLUDED.variant_id, consent = EXCLUDED.consent, surface = EXCLUDED.surface
			RETURNING id`, id, e.ownerID, e.product.productID, e.pubID, email, variantID, consent, surface, at).Scan(&stored); err != nil {
			return fmt.Errorf("store lead: %w", err)
		}
		if isNew = stored == id; !isNew {
			return nil
		}
		_, err := store.Append(ctx, tx, stream(e.pubID), eventstore.AnyVersion,
			events.ProductLeadCaptured{ProductID: e.product.productID, PublicationID: e.pubID, LeadID: id, VariantID: variantID, At: at})
		return err
	})
	return isNew, err
}

// Paging of the leads list (security review 2, item 8: the list and the
// CSV stopped at the newest 10,000, so junk pushed real leads out).
const (
	DefaultLeadsLimit = 50
	MaxLeadsLimit     = 500
	leadsBatch        = 1000 // rows per query while streaming the CSV
)

var (
	errBadLeadsCursor = fault.New(fault.Invalid, "invalid_cursor", "The page cursor is not valid. Start again from the first page.")
	errBadLeadsLimit  = fault.New(fault.Invalid, "invalid_limit", "limit must be a number between 1 and 500.")
)

// LeadPage is one page of a product's leads, newest first.
type LeadPage struct {
	Items      []Lead `json:"items"`
	NextCursor string `json:"nextCursor"` // empty on the last page
}

// Leads lists one page of the leads of one of userID's products, newest
// first, after cursor (the previous page's NextCursor; "" for the first).
// The caller has checked that the product is the user's; the user_id
// condition keeps another merchant's rows out whatever happens.
func (s *Service) Leads(ctx context.Context, userID, productID string, limit int, cursor string) (LeadPage, error) {
	if limit == 0 {
		limit = DefaultLeadsLimit
	}
	if limit < 1 || limit > MaxLeadsLimit {
		return LeadPage{}, errBadLeadsLimit
	}
	after, err := decodeLeadsCursor(cursor)
	if err != nil {
		return LeadPage{}, errBadLeadsCursor
	}
	items, err := s.leadsAfter(ctx, userID, productID, after, limit+1)
	if err != nil {
		return LeadPage{}, err
	}
	page := LeadPage{Items: items}
	if len(items) > limit {
		page.Items = items[:limit]
		last := page.Items[limit-1]
		page.NextCursor = encodeLeadsCursor(leadKey{at: last.CreatedAt, id: last.ID})
	}
	return page, nil
}

// EachLead calls fn for every lead of the product, newest first, reading
// them in keyset batches: the CSV export streams all of them in flat memory.
func (s *Service) EachLead(ctx context.Context, userID, productID string, fn func(Lead) error) error {
	var after *leadKey
	for {
		items, err := s.leadsAfter(ctx, userID, productID, after, leadsBatch)
		if err != nil {
			return err
		}
		for _, l := range items {
			if err := fn(l); err != nil {
				return err
			}
		}
		if len(items) < leadsBatch {
			return nil
		}
		last := items[len(items)-1]
		after = &leadKey{at: last.CreatedAt, id: last.ID}
	}
}

type leadKey struct {
	at time.Time
	id string
}

func encodeLeadsCursor(k leadKey) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(k.at.UnixMicro(), 10) + "|" + k.id))
}

func decodeLeadsCursor(c string) (*leadKey, error) {
	if c == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return nil, err
	}
	ts, id, ok := strings.Cut(string(b), "|")
	micros, err := strconv.ParseInt(ts, 10, 64)
	if !ok || err != nil || uuid.Validate(id) != nil {
		return nil, errBadLeadsCursor
	}
	return &leadKey{at: time.UnixMicro(micros).UTC(), id: id}, nil
}

// leadsAfter reads up to n leads after the keyset position (nil: from the
// newest), served in order by the product_leads_owner index.
func (s *Service) leadsAfter(ctx context.Context, userID, productID string, after *leadKey, n int) ([]Lead, error) {
	var at *time.Time
	var id *string
	if after != nil {
		at, id = &after.at, &after.id
	}
	rows, err := s.db.Query(ctx, `SELECT id, email, created_at, variant_id, surface FROM product_leads
		WHERE user_id = $1 AND product_id = $2 AND ($3::timestamptz IS NULL OR (created_at, id) < ($3, $4::text))
		ORDER BY created_at DESC, id DESC LIMIT $5`, userID, productID, at, id, n)
	if err != nil {
		return nil, fmt.Errorf("list leads: %w", err)
	}
	defer rows.Close()
	out := []Lead{}
	for rows.Next() {
		var l Lead
		if err := rows.Scan(&l.ID, &l.Email, &l.CreatedAt, &l.VariantID, &l.Surface); err != nil {
			return nil, fmt.Errorf("scan lead: %w", err)
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// DeleteLead erases one lead for good (the shopper asked, or the merchant
// cleans up); another merchant's lead is not found.
func (s *Service) DeleteLead(ctx context.Context, userID, productID, leadID string) error {
	tag, err := s.db.Exec(ctx, `DELETE FROM product_leads WHERE id = $1 AND user_id = $2 AND product_id = $3`,
		leadID, userID, productID)
	if err != nil {
		return fmt.Errorf("delete lead: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return errLeadNotFound
	}
	return nil
}

// LeadsExport names a product's leads download: the product's name and its
// variants' names, so the file reads without ids.
type LeadsExport struct {
	ProductName string
	variants    map[string]string // id → name
}

// FileName is "leads-<product-slug>-<YYYY-MM-DD>.csv" for the day given.
func (x LeadsExport) FileName(day time.Time) string {
	slug := fileSlug(x.ProductName)
	if slug == "" {
		slug = "product"
	}
	return "leads-" + slug + "-" + day.UTC().Format(time.DateOnly) + ".csv"
}

// VariantName is the variant's name as the product names it now; a variant
// deleted since reads "Deleted variant", none "".
func (x LeadsExport) VariantName(id string) string {
	if id == "" {
		return ""
	}
	if n, ok := x.variants[id]; ok && n != "" {
		return n
	}
	return "Deleted variant"
}

// fileSlug is a name as lower-case ASCII words joined by hyphens, at most 60
// characters: safe in a Content-Disposition file name.
func fileSlug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			if b.Len() >= 60 {
				break
			}
			continue
		}
		dash = true
	}
	return b.String()
}

// LeadsExportFor reads what the leads download of one of userID's products
// needs (another merchant's product is not found).
func (s *Service) LeadsExportFor(ctx context.Context, userID, productID string) (LeadsExport, error) {
	var x LeadsExport
	var vj []byte
	err := s.db.QueryRow(ctx, `SELECT name, COALESCE(config->'variants', '[]'::jsonb) FROM products WHERE id = $1 AND user_id = $2`,
		productID, userID).Scan(&x.ProductName, &vj)
	if errors.Is(err, pgx.ErrNoRows) {
		return x, fault.New(fault.NotFound, "not_found", "Product not found.")
	}
	if err != nil {
		return x, fmt.Errorf("read product for leads: %w", err)
	}
	var vs []struct{ ID, Name string }
	_ = json.Unmarshal(vj, &vs) // a configuration that does not parse names no variant: "Deleted variant"
	x.variants = map[string]string{}
	for _, v := range vs {
		x.variants[v.ID] = v.Name
	}
	return x, nil
}

// WriteLeadsCSV writes every lead of the product as CSV (email, product,
// variant, surface, createdAt) with the product's and variants' names,
// streamed from the database in batches, newest first. A cell a spreadsheet
// would read as a formula is prefixed with an apostrophe.
func (s *Service) WriteLeadsCSV(ctx context.Context, w io.Writer, userID, productID string, x LeadsExport) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"email", "product", "variant", "surface", "createdAt"}); err != nil {
		return err
	}
	err := s.EachLead(ctx, userID, productID, func(l Lead) error {
		return cw.Write([]string{csvCell(l.Email), csvCell(x.ProductName), csvCell(x.VariantName(l.VariantID)), l.Surface,
			l.CreatedAt.UTC().Format(time.RFC3339)})
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

func csvCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
