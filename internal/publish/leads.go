package publish

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/mail"
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
}

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
// (not the address) in the log, in one transaction.
func captureLead(ctx context.Context, db pgdb.Beginner, store *eventstore.Store, e *pageEntry, email, variantID, consent string, at time.Time) error {
	id := uuid.NewString()
	return pgdb.WithTx(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO product_leads (id, user_id, product_id, publication_id, email, variant_id, consent, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, id, e.ownerID, e.product.productID, e.pubID, email, variantID, consent, at); err != nil {
			return fmt.Errorf("store lead: %w", err)
		}
		_, err := store.Append(ctx, tx, stream(e.pubID), eventstore.AnyVersion,
			events.ProductLeadCaptured{ProductID: e.product.productID, PublicationID: e.pubID, LeadID: id, VariantID: variantID, At: at})
		return err
	})
}

// Leads lists the leads of one of userID's products, newest first. The
// caller has checked that the product is the user's; the user_id condition
// keeps another merchant's rows out whatever happens.
func (s *Service) Leads(ctx context.Context, userID, productID string) ([]Lead, error) {
	rows, err := s.db.Query(ctx, `SELECT id, email, created_at, variant_id FROM product_leads
		WHERE user_id = $1 AND product_id = $2 ORDER BY created_at DESC, id LIMIT 10000`, userID, productID)
	if err != nil {
		return nil, fmt.Errorf("list leads: %w", err)
	}
	defer rows.Close()
	out := []Lead{}
	for rows.Next() {
		var l Lead
		if err := rows.Scan(&l.ID, &l.Email, &l.CreatedAt, &l.VariantID); err != nil {
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

// WriteLeadsCSV writes leads as CSV (email, createdAt, variantId). A cell a
// spreadsheet would read as a formula is prefixed with an apostrophe.
func WriteLeadsCSV(w io.Writer, leads []Lead) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"email", "createdAt", "variantId"}); err != nil {
		return err
	}
	for _, l := range leads {
		if err := cw.Write([]string{csvCell(l.Email), l.CreatedAt.UTC().Format(time.RFC3339), csvCell(l.VariantID)}); err != nil {
			return err
		}
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
