package apikey

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// Service creates, lists, revokes and checks keys. Its store must run
// Projection inline (cmd/api registers it with the other inline projections).
type Service struct {
	db    *pgxpool.Pool
	store *eventstore.Store
	now   func() time.Time
}

// NewService builds the service.
func NewService(db *pgxpool.Pool, store *eventstore.Store) *Service {
	return &Service{db: db, store: store, now: time.Now}
}

func stream(id string) events.Stream { return events.Stream{Type: events.StreamAPIKey, ID: id} }

// Create mints a key for userID. The secret is in the answer and nowhere
// else: the caller shows it once.
func (s *Service) Create(ctx context.Context, userID, name string, scopes []string) (Created, error) {
	name, err := CleanName(name)
	if err != nil {
		return Created{}, err
	}
	sc, err := CleanScopes(scopes)
	if err != nil {
		return Created{}, err
	}
	secret, err := newSecret()
	if err != nil {
		return Created{}, fmt.Errorf("new api key: %w", err)
	}
	uid, err := uuid.NewV7()
	if err != nil {
		return Created{}, fmt.Errorf("new api key id: %w", err)
	}
	id := uid.String()
	at := s.now().UTC().Truncate(time.Microsecond)
	names := make([]string, len(sc))
	for i, x := range sc {
		names[i] = string(x)
	}
	err = pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		// One creation at a time per user, so the active-key limit holds
		// under parallel requests.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('apikeys:' || $1, 0))`, userID); err != nil {
			return fmt.Errorf("lock api keys: %w", err)
		}
		// Only a proven address may hold keys, and a key lives only as long
		// as the sessions of the moment it was made (see Authenticate).
		sessionVersion, err := account.RequireVerified(ctx, tx, userID, "creating API keys")
		if err != nil {
			return err
		}
		var active int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL`, userID).Scan(&active); err != nil {
			return fmt.Errorf("count api keys: %w", err)
		}
		if active >= MaxActiveKeys {
			return errTooManyKeys
		}
		ev := events.APIKeyCreated{KeyID: id, UserID: userID, Name: name, Prefix: secret[:DisplayPrefixLen], Scopes: names, At: at}
		if _, err := s.store.Append(ctx, tx, stream(id), 0, ev); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO api_key_secrets (key_id, hash, session_version) VALUES ($1, $2, $3)`,
			id, Hash(secret), sessionVersion); err != nil {
			return fmt.Errorf("store api key hash: %w", err)
		}
		return nil
	})
	if err != nil {
		return Created{}, err
	}
	return Created{Key: Key{ID: id, Name: name, Prefix: secret[:DisplayPrefixLen], Scopes: sc, CreatedAt: at}, Secret: secret}, nil
}

// List returns userID's keys, newest first, revoked ones included (so the
// panel can show when a key stopped working).
func (s *Service) List(ctx context.Context, userID string) ([]Key, error) {
	rows, err := s.db.Query(ctx, `
		SELECT k.id, k.name, k.prefix, k.scopes, k.created_at, s.last_used_at, k.revoked_at
		FROM api_keys k LEFT JOIN api_key_secrets s ON s.key_id = k.id
		WHERE k.user_id = $1 ORDER BY k.created_at DESC, k.id DESC LIMIT 200`, userID)
	if err != nil {
		return nil, fmt.Errorf("list api keys: %w", err)
	}
	out := []Key{}
	for rows.Next() {
		var k Key
		var scopes []string
		if err := rows.Scan(&k.ID, &k.Name, &k.Prefix, &scopes, &k.CreatedAt, &k.LastUsedAt, &k.RevokedAt); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scan api key: %w", err)
		}
		for _, x := range scopes {
			k.Scopes = append(k.Scopes, Scope(x))
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// Revoke stops userID's key id at once: the next request with it is a 401.
// Another user's key, an unknown id and an already revoked key are all
// "not found" (revoking twice changes nothing, and ids are never confirmed
// to someone else).
func (s *Service) Revoke(ctx context.Context, userID, id string) error {
	if _, err := uuid.Parse(id); err != nil {
		return errKeyNotFound
	}
	return pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		var version int64
		err := tx.QueryRow(ctx, `SELECT version FROM api_keys WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL FOR UPDATE`,
			id, userID).Scan(&version)
		if errors.Is(err, pgx.ErrNoRows) {
			return errKeyNotFound
		}
		if err != nil {
			return fmt.Errorf("load api key: %w", err)
		}
		_, err = s.store.Append(ctx, tx, stream(id), version, events.APIKeyRevoked{KeyID: id, UserID: userID, At: s.now().UTC()})
		return err
	})
}

// EndAccess implements account.AccessRevoker: every active key of userID is
// revoked (an apikey.revoked.v1 each, projected inline in tx) whenever the
// account's sessions end or a reset proves a pre-registered address. The
// session-version binding in Authenticate already refuses them; revoking
// them as well makes the panel say so.
func (s *Service) EndAccess(ctx context.Context, tx pgx.Tx, userID string, _ account.AccessEnd, at time.Time) error {
	rows, err := tx.Query(ctx, `SELECT id, version FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL ORDER BY id FOR UPDATE`, userID)
	if err != nil {
		return fmt.Errorf("find api keys: %w", err)
	}
	type key struct {
		id      string
		version int64
	}
	keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (key, error) {
		var k key
		return k, r.Scan(&k.id, &k.version)
	})
	if err != nil {
		return fmt.Errorf("find api keys: %w", err)
	}
	for _, k := range keys {
		if _, err := s.store.Append(ctx, tx, stream(k.id), k.version, events.APIKeyRevoked{KeyID: k.id, UserID: userID, At: at.UTC()}); err != nil {
			return err
		}
	}
	return nil
}

// Authenticate returns who key belongs to, or ok=false for a malformed,
// unknown or revoked key, a key of an account whose address is not verified,
// and a key made before the account's sessions last ended ("sign out
// everywhere", a password change or reset bump the session version the key
// was bound to). It reads the database on every call (no cache), so a
// revocation takes effect on the very next request. It records the
// last-used time at most once per LastUsedEvery.
func (s *Service) Authenticate(ctx context.Context, key string) (p Principal, ok bool, err error) {
	if !wellFormed(key) {
		return Principal{}, false, nil
	}
	var scopes []string
	var lastUsed *time.Time
	// A key is its workspace's (issue 51). While the founder owns the
	// workspace, their signing out everywhere or changing the password ends
	// its keys (the session version they were made at); once it was
	// transferred, the founder's account no longer decides for it. The
	// approval rule is read here too, so a key request costs no second
	// statement.
	err = s.db.QueryRow(ctx, `
		SELECT k.id, k.user_id, k.scopes, s.last_used_at, coalesce(w.require_approval, false)
		FROM api_key_secrets s JOIN api_keys k ON k.id = s.key_id
		LEFT JOIN account_security a ON a.user_id = k.user_id
		LEFT JOIN workspaces w ON w.id = k.user_id
		WHERE s.hash = $1 AND k.revoked_at IS NULL
			AND (coalesce(w.owner_id <> w.id, false)
				OR (a.email_verified_at IS NOT NULL AND a.session_version = s.session_version))`, Hash(key)).
		Scan(&p.KeyID, &p.UserID, &scopes, &lastUsed, &p.RequireApproval)
	if errors.Is(err, pgx.ErrNoRows) {
		return Principal{}, false, nil
	}
	if err != nil {
		return Principal{}, false, fmt.Errorf("look up api key: %w", err)
	}
	for _, x := range scopes {
		p.Scopes = append(p.Scopes, Scope(x))
	}
	now := s.now()
	if lastUsed == nil || now.Sub(*lastUsed) >= LastUsedEvery {
		// Best effort: a failed bookkeeping write must not refuse the request.
		_, _ = s.db.Exec(ctx, `UPDATE api_key_secrets SET last_used_at = $2 WHERE key_id = $1`, p.KeyID, now.UTC())
	}
	return p, true, nil
}

// Projection keeps api_keys in step with the apikey-{id} streams; it is
// inline so the panel lists a new key at once.
type Projection struct{}

// Apply implements eventstore.Inline.
func (Projection) Apply(ctx context.Context, tx pgx.Tx, e eventstore.Envelope) error {
	switch ev := e.Data.(type) {
	case events.APIKeyCreated:
		_, err := tx.Exec(ctx, `
			INSERT INTO api_keys (id, user_id, name, prefix, scopes, created_at, version)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, prefix = EXCLUDED.prefix,
				scopes = EXCLUDED.scopes, version = EXCLUDED.version`,
			ev.KeyID, ev.UserID, ev.Name, ev.Prefix, ev.Scopes, ev.At, e.Version)
		if err != nil {
			return fmt.Errorf("project %s: %w", e.Type, err)
		}
	case events.APIKeyRevoked:
		_, err := tx.Exec(ctx, `UPDATE api_keys SET revoked_at = $2, version = $3 WHERE id = $1`,
			strings.TrimPrefix(e.StreamID, events.StreamAPIKey+"-"), ev.At, e.Version)
		if err != nil {
			return fmt.Errorf("project %s: %w", e.Type, err)
		}
	}
	return nil
}
