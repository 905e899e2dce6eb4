package account

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// This file is the package's only SQL: the users and branding read models
// (maintained by Project), the user's personal data (user_pii, written by
// the service beside the events, never projected), credentials, Google
// identities, reset tokens and invites.

var errUserNotFound = fault.New(fault.NotFound, "not_found", "User not found.")

type userRow struct {
	ID             string
	Email          string
	Name           string
	FirstName      string
	LastName       string
	AvatarKey      *string
	Version        int64
	CreatedAt      time.Time
	EmailVerified  bool
	SessionVersion int64
}

// userFrom joins the read model to the personal data: an erased user (no
// user_pii row) is not found by any of the account's reads.
const userFrom = `users JOIN user_pii p ON p.user_id = users.id`

const userColumns = `users.id, p.email, p.name, p.first_name, p.last_name, users.avatar_key, users.version, users.created_at,
	COALESCE((SELECT s.email_verified_at IS NOT NULL FROM account_security s WHERE s.user_id = users.id), false),
	COALESCE((SELECT s.session_version FROM account_security s WHERE s.user_id = users.id), 0)`

func scanUser(row pgx.Row) (userRow, error) {
	var u userRow
	err := row.Scan(&u.ID, &u.Email, &u.Name, &u.FirstName, &u.LastName, &u.AvatarKey, &u.Version, &u.CreatedAt,
		&u.EmailVerified, &u.SessionVersion)
	if errors.Is(err, pgx.ErrNoRows) {
		return userRow{}, errUserNotFound
	}
	if err != nil {
		return userRow{}, fmt.Errorf("read user: %w", err)
	}
	return u, nil
}

func loadUser(ctx context.Context, q pgdb.Querier, id string) (userRow, error) {
	return scanUser(q.QueryRow(ctx, `SELECT `+userColumns+` FROM `+userFrom+` WHERE users.id = $1 AND users.erasure_requested_at IS NULL`, id))
}

// lockUser row-locks a user for the rest of tx so the append that follows
// uses the version the decision was made on.
func lockUser(ctx context.Context, tx pgx.Tx, id string) (userRow, error) {
	return scanUser(tx.QueryRow(ctx, `SELECT `+userColumns+` FROM `+userFrom+` WHERE users.id = $1 AND users.erasure_requested_at IS NULL FOR UPDATE OF users`, id))
}

func userByEmail(ctx context.Context, q pgdb.Querier, email string) (userRow, error) {
	return scanUser(q.QueryRow(ctx, `SELECT `+userColumns+` FROM `+userFrom+` WHERE p.email = $1 AND users.erasure_requested_at IS NULL`, email))
}

func passwordHash(ctx context.Context, q pgdb.Querier, userID string) (string, bool, error) {
	var h string
	err := q.QueryRow(ctx, `SELECT hash FROM password_credentials WHERE user_id = $1`, userID).Scan(&h)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read credentials: %w", err)
	}
	return h, true, nil
}

// insertPII stores a new user's address and names; the address is unique
// among accounts that are not erased yet.
func insertPII(ctx context.Context, tx pgx.Tx, userID, email string, n Names, at time.Time) error {
	_, err := tx.Exec(ctx, `INSERT INTO user_pii (user_id, email, name, first_name, last_name, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6)`, userID, email, n.Name, n.FirstName, n.LastName, at)
	if pgdb.IsUniqueViolation(err, "user_pii_email_key") {
		return errEmailTaken
	}
	if err != nil {
		return fmt.Errorf("store personal data: %w", err)
	}
	return nil
}

func updatePIINames(ctx context.Context, tx pgx.Tx, userID string, n Names, at time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE user_pii SET name = $2, first_name = $3, last_name = $4, updated_at = $5 WHERE user_id = $1`,
		userID, n.Name, n.FirstName, n.LastName, at)
	if err != nil {
		return fmt.Errorf("store names: %w", err)
	}
	return nil
}

func setPasswordHash(ctx context.Context, tx pgx.Tx, userID, hash string) error {
	_, err := tx.Exec(ctx, `INSERT INTO password_credentials (user_id, hash) VALUES ($1, $2)
		ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash, updated_at = now()`, userID, hash)
	if err != nil {
		return fmt.Errorf("store credentials: %w", err)
	}
	return nil
}

type brandingRow struct {
	Name    string
	Color   string
	LogoKey *string
}

func loadBranding(ctx context.Context, q pgdb.Querier, userID string) (brandingRow, error) {
	var b brandingRow
	err := q.QueryRow(ctx, `SELECT brand_name, brand_color, logo_key FROM branding WHERE user_id = $1`, userID).
		Scan(&b.Name, &b.Color, &b.LogoKey)
	if errors.Is(err, pgx.ErrNoRows) {
		return brandingRow{Name: DefaultBrandName, Color: DefaultBrandColor}, nil
	}
	if err != nil {
		return brandingRow{}, fmt.Errorf("read branding: %w", err)
	}
	return b, nil
}

// loadStoreSettings reads a user's store settings; an empty currency means
// the merchant has not chosen one.
func loadStoreSettings(ctx context.Context, q pgdb.Querier, userID string) (StoreSettings, error) {
	var cur string
	err := q.QueryRow(ctx, `SELECT default_currency FROM store_settings WHERE user_id = $1`, userID).Scan(&cur)
	if errors.Is(err, pgx.ErrNoRows) {
		return StoreSettings{}, nil
	}
	if err != nil {
		return StoreSettings{}, fmt.Errorf("read store settings: %w", err)
	}
	return StoreSettings{DefaultCurrency: &cur}, nil
}

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Project applies one user event to the users, branding and store settings
// read models.
// The Service calls it for every event it appends, in the same transaction;
// Rebuild replays it over the log. Other events are ignored.
func Project(ctx context.Context, tx pgx.Tx, e eventstore.Envelope) error {
	v, at := e.Version, e.OccurredAt
	var err error
	switch ev := e.Data.(type) {
	case events.UserRegistered:
		_, err = tx.Exec(ctx, `INSERT INTO users (id, version, created_at, updated_at)
			VALUES ($1, $2, $3, $3)`, ev.UserID, v, ev.At)
	case events.ProfileUpdated:
		_, err = tx.Exec(ctx, `UPDATE users SET version = $2, updated_at = $3 WHERE id = $1`, ev.UserID, v, at)
	case events.UserErasureRequested:
		_, err = tx.Exec(ctx, `UPDATE users SET erasure_requested_at = $2, version = $3, updated_at = $4 WHERE id = $1`,
			ev.UserID, ev.At, v, at)
	case events.UserErased:
		// The avatar's blob is gone; so is the branding (name, colour, logo).
		_, err = tx.Exec(ctx, `UPDATE users SET erased_at = $2, avatar_key = NULL, version = $3, updated_at = $4 WHERE id = $1;`,
			ev.UserID, ev.At, v, at)
		// A founder who transferred their workspace leaves its brand and
		// store settings to the new owner (issue 51).
		if err == nil {
			_, err = tx.Exec(ctx, `DELETE FROM branding b WHERE b.user_id = $1
				AND NOT EXISTS (SELECT 1 FROM workspaces w WHERE w.id = $1 AND w.owner_id <> $1)`, ev.UserID)
		}
		if err == nil {
			_, err = tx.Exec(ctx, `DELETE FROM store_settings s WHERE s.user_id = $1
				AND NOT EXISTS (SELECT 1 FROM workspaces w WHERE w.id = $1 AND w.owner_id <> $1)`, ev.UserID)
		}
	case events.AvatarChanged:
		_, err = tx.Exec(ctx, `UPDATE users SET avatar_key = $2, version = $3, updated_at = $4 WHERE id = $1`,
			ev.UserID, nullIfEmpty(ev.AvatarKey), v, at)
	case events.BrandingUpdated:
		_, err = tx.Exec(ctx, `INSERT INTO branding (user_id, brand_name, brand_color, logo_key, updated_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (user_id) DO UPDATE SET brand_name = excluded.brand_name,
			brand_color = excluded.brand_color, logo_key = excluded.logo_key, updated_at = excluded.updated_at`,
			ev.UserID, ev.BrandName, ev.BrandColor, nullIfEmpty(ev.LogoKey), at)
		if err == nil {
			err = bumpVersion(ctx, tx, ev.UserID, v)
		}
	case events.StoreSettingsUpdated:
		_, err = tx.Exec(ctx, `INSERT INTO store_settings (user_id, default_currency, updated_at) VALUES ($1, $2, $3)
			ON CONFLICT (user_id) DO UPDATE SET default_currency = excluded.default_currency, updated_at = excluded.updated_at`,
			ev.UserID, ev.DefaultCurrency, at)
		if err == nil {
			err = bumpVersion(ctx, tx, ev.UserID, v)
		}
	case events.PasswordResetRequested:
		err = bumpVersion(ctx, tx, ev.UserID, v)
	case events.PasswordChanged:
		err = bumpVersion(ctx, tx, ev.UserID, v)
	case events.UserDataExportReady:
		err = bumpVersion(ctx, tx, ev.UserID, v)
	case events.EmailChangeRequested:
		err = bumpVersion(ctx, tx, ev.UserID, v)
	case events.EmailChanged:
		err = bumpVersion(ctx, tx, ev.UserID, v)
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("project %s: %w", e.Type, err)
	}
	return nil
}

func bumpVersion(ctx context.Context, tx pgx.Tx, userID string, v int64) error {
	_, err := tx.Exec(ctx, `UPDATE users SET version = $2 WHERE id = $1`, userID, v)
	return err
}

// Rebuild recreates the users and branding read models from the log in tx.
// Credentials, identities and personal data (user_pii) are not events and
// are kept as they are.
func Rebuild(ctx context.Context, tx pgx.Tx, store *eventstore.Store) error {
	if _, err := tx.Exec(ctx, `CREATE TEMP TABLE keep_credentials ON COMMIT DROP AS SELECT * FROM password_credentials;
		CREATE TEMP TABLE keep_identities ON COMMIT DROP AS SELECT * FROM google_identities;
		CREATE TEMP TABLE keep_resets ON COMMIT DROP AS SELECT * FROM password_resets;
		CREATE TEMP TABLE keep_security ON COMMIT DROP AS SELECT * FROM account_security;
		CREATE TEMP TABLE keep_verifications ON COMMIT DROP AS SELECT * FROM email_verifications;
		CREATE TEMP TABLE keep_email_changes ON COMMIT DROP AS SELECT * FROM email_changes;
		TRUNCATE users CASCADE`); err != nil {
		return fmt.Errorf("clear user read models: %w", err)
	}
	rows, err := tx.Query(ctx, `SELECT `+eventstore.Columns+` FROM events WHERE stream_type = $1 ORDER BY position`, events.StreamUser)
	if err != nil {
		return fmt.Errorf("read user events: %w", err)
	}
	envs, err := store.ScanRows(rows)
	if err != nil {
		return fmt.Errorf("decode user events: %w", err)
	}
	for _, e := range envs {
		if err := Project(ctx, tx, e); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO password_credentials SELECT * FROM keep_credentials;
		INSERT INTO google_identities SELECT * FROM keep_identities;
		INSERT INTO password_resets SELECT * FROM keep_resets;
		INSERT INTO account_security SELECT * FROM keep_security;
		INSERT INTO email_verifications SELECT * FROM keep_verifications;
		INSERT INTO email_changes SELECT * FROM keep_email_changes`); err != nil {
		return fmt.Errorf("restore credentials: %w", err)
	}
	return nil
}
