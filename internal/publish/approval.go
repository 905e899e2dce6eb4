package publish

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// Publishing under approvals (issue 51). In a workspace that requires
// approval, what shoppers see changes only when a reviewer or the owner
// approves: every live product page is locked to a version, and an
// approval publishes the product as it was requested and locks the page to
// that version, in the approval's own transaction.

// PublishApproved publishes the product in tx with the settings asked for
// and pins its page to the product as it is now (a new version when it
// differs from the latest). The caller has checked that the product did not
// change since the request, so this is exactly the requested version. It
// returns the publication id and the version shoppers now see.
func (s *Service) PublishApproved(ctx context.Context, tx pgx.Tx, userID, productID string, set ProductSettings) (string, int, error) {
	if err := s.requireSharing(ctx, userID); err != nil {
		return "", 0, err
	}
	id, _, err := s.publishProductTx(ctx, tx, userID, productID, set)
	if err != nil {
		return "", 0, err
	}
	if err := s.lockLiveTx(ctx, tx, userID, id); err != nil {
		return "", 0, err
	}
	r, err := byID(ctx, tx, id)
	if err != nil {
		return "", 0, err
	}
	return id, r.LockedVersion, nil
}

// LockAllLive pins every live, unlocked product page of the workspace to
// what shoppers see now, in tx: turning approvals on must not let later
// edits reach shoppers through pages that follow their product live.
func (s *Service) LockAllLive(ctx context.Context, tx pgx.Tx, userID string) (int, error) {
	rows, err := tx.Query(ctx, `SELECT id FROM publications
		WHERE user_id = $1 AND product_id <> '' AND unpublished_at IS NULL AND locked_version = 0 ORDER BY id`, userID)
	if err != nil {
		return 0, fmt.Errorf("list live pages: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, fmt.Errorf("list live pages: %w", err)
	}
	n := 0
	for _, id := range ids {
		err := s.lockLiveTx(ctx, tx, userID, id)
		if errors.Is(err, errProductNotFound) || errors.Is(err, errProductNotReady) {
			continue // a page whose product is gone or rebuilding shows what it can; nothing to pin
		}
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// PageState is what a product page shows shoppers, in the terms a reviewer
// compares: the version, the variants with prices, the buy links, the
// hotspots and the email gate.
type PageState struct {
	Version        int            `json:"version"`
	Name           string         `json:"name"`
	Variants       []StateVariant `json:"variants"`
	Links          []StateLink    `json:"links"`
	Hotspots       []string       `json:"hotspots"`
	RequireEmail   bool           `json:"requireEmail"`
	AllowDeepLinks bool           `json:"allowDeepLinks"`
}

// StateVariant is one variant as a shopper sees it.
type StateVariant struct {
	Name     string   `json:"name"`
	SKU      string   `json:"sku"`
	Price    *float64 `json:"price"`
	Currency string   `json:"currency"`
}

// StateLink is one buy link and the variant it belongs to ("" for all).
type StateLink struct {
	URL     string `json:"url"`
	Variant string `json:"variant"`
}

// Comparison is what would go live next to what is live now (Live is nil
// for a product that has no live page).
type Comparison struct {
	Next PageState  `json:"next"`
	Live *PageState `json:"live"`
}

// Compare returns the product as it would go live with set, next to its
// live page. A product that is gone or not ready answers its error.
func (s *Service) Compare(ctx context.Context, q pgdb.Querier, userID, productID string, set ProductSettings) (Comparison, error) {
	now, err := productSnapshot(ctx, q, userID, productID)
	if err != nil {
		return Comparison{}, err
	}
	var c Comparison
	c.Next = stateOf(now, 1, set.RequireEmail, set.AllowDeepLinks)
	r, err := liveByProduct(ctx, q, productID)
	if errors.Is(err, errNoRow) || (err == nil && r.UserID != userID) {
		return c, nil
	}
	if err != nil {
		return Comparison{}, err
	}
	shown, version := now, r.CurrentVersion
	if r.LockedVersion > 0 {
		version = r.LockedVersion
		if shown, err = versionSnapshot(ctx, q, r.ID, r.LockedVersion); err != nil {
			return Comparison{}, err
		}
	}
	live := stateOf(shown, version, r.RequireEmail, r.AllowDeepLinks)
	c.Live = &live
	latest, err := versionSnapshot(ctx, q, r.ID, r.CurrentVersion)
	if err != nil {
		return Comparison{}, err
	}
	c.Next.Version = r.CurrentVersion
	if same, err := sameSnapshot(now, latest); err != nil {
		return Comparison{}, err
	} else if !same {
		c.Next.Version++
	}
	return c, nil
}

func stateOf(snap Snapshot, version int, requireEmail, deepLinks bool) PageState {
	st := PageState{Version: version, Name: snap.Name, RequireEmail: requireEmail, AllowDeepLinks: deepLinks,
		Variants: []StateVariant{}, Links: []StateLink{}, Hotspots: []string{}}
	if snap.Config == nil {
		return st
	}
	names := map[string]string{}
	for _, v := range snap.Config.Variants {
		names[v.ID] = v.Name
		st.Variants = append(st.Variants, StateVariant{Name: v.Name, SKU: v.SKU, Price: v.Price, Currency: v.Currency})
	}
	for _, l := range snap.Config.Links {
		st.Links = append(st.Links, StateLink{URL: l.URL, Variant: names[l.VariantID]})
	}
	for _, h := range snap.Config.Hotspots {
		st.Hotspots = append(st.Hotspots, hotspotLabel(h))
	}
	return st
}

func hotspotLabel(h catalog.Hotspot) string {
	if h.Title != "" {
		return h.Title
	}
	return h.Text
}

// CheckSharing says whether the workspace's plan allows public pages (an
// approval request is refused up front rather than at approval time).
func (s *Service) CheckSharing(ctx context.Context, userID string) error {
	return s.requireSharing(ctx, userID)
}

// PublishPinned is PublishApproved in its own transaction: the owner's
// Publish in a workspace that requires approval goes live at once (the
// owner needs no approval) but pinned like an approved one, so editors'
// later edits still wait for an approval.
func (s *Service) PublishPinned(ctx context.Context, userID, productID string, set ProductSettings) (Publication, bool, error) {
	if err := s.requireSharing(ctx, userID); err != nil {
		return Publication{}, false, err
	}
	var id string
	var created bool
	p, err := s.withTxThenGet(ctx, userID, &id, func(tx pgx.Tx) error {
		var err error
		if id, created, err = s.publishProductTx(ctx, tx, userID, productID, set); err != nil {
			return err
		}
		return s.lockLiveTx(ctx, tx, userID, id)
	})
	if err != nil {
		return Publication{}, false, err
	}
	return p, created, nil
}
