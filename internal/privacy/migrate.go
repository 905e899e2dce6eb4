package privacy

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/internal/pgdb"
)

// legacyPersonalFields are the keys user events carried before issue 31.
var legacyPersonalFields = []string{"email", "name", "firstName", "lastName"}

// MigrateResult says what MigrateEvents did.
type MigrateResult struct {
	Stripped int64 // events whose personal fields were removed
	Copied   int64 // user_pii rows created from the log (accounts the table missed)
}

// MigrateEvents moves personal fields out of user events stored before
// issue 31 (`worker migrate-pii`). In one transaction it fills user_pii for
// accounts that have no row yet and were never erased (from the events
// themselves: the registration, then each profile update in order; migration
// 0029 already copied the rows the users read model had), then removes the
// fields from the stored events. Read models never read those fields any
// more, so replays give the same rows before and after; a second run finds
// nothing to do.
func MigrateEvents(ctx context.Context, db pgdb.Beginner) (MigrateResult, error) {
	var res MigrateResult
	err := pgdb.WithTx(ctx, db, func(tx pgx.Tx) error {
		// Rows are locked so an api appending at the same time waits.
		rows, err := tx.Query(ctx, `SELECT stream_id, type, data FROM events
			WHERE stream_type = 'user' AND type IN ('user.registered.v1', 'user.profile_updated.v1') AND data ?| $1
			ORDER BY position FOR UPDATE`, legacyPersonalFields)
		if err != nil {
			return fmt.Errorf("read user events: %w", err)
		}
		type pii struct {
			UserID    string  `json:"userId"`
			Email     *string `json:"email"`
			Name      *string `json:"name"`
			FirstName *string `json:"firstName"`
			LastName  *string `json:"lastName"`
		}
		latest := map[string]*pii{}
		var order []string
		for rows.Next() {
			var stream, typ string
			var data []byte
			if err := rows.Scan(&stream, &typ, &data); err != nil {
				rows.Close()
				return fmt.Errorf("scan user event: %w", err)
			}
			var p pii
			if err := json.Unmarshal(data, &p); err != nil {
				rows.Close()
				return fmt.Errorf("decode %s of %s: %w", typ, stream, err)
			}
			cur, ok := latest[p.UserID]
			if !ok {
				cur = &pii{UserID: p.UserID}
				latest[p.UserID] = cur
				order = append(order, p.UserID)
			}
			for _, f := range []struct{ dst, src **string }{{&cur.Email, &p.Email}, {&cur.Name, &p.Name},
				{&cur.FirstName, &p.FirstName}, {&cur.LastName, &p.LastName}} {
				if *f.src != nil {
					*f.dst = *f.src
				}
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read user events: %w", err)
		}
		for _, id := range order {
			p := latest[id]
			if p.Email == nil || *p.Email == "" {
				continue
			}
			tag, err := tx.Exec(ctx, `INSERT INTO user_pii (user_id, email, name, first_name, last_name)
				SELECT $1, lower($2), $3, $4, $5
				WHERE EXISTS (SELECT 1 FROM users WHERE id = $1 AND erasure_requested_at IS NULL)
				ON CONFLICT DO NOTHING`, id, *p.Email, deref(p.Name), deref(p.FirstName), deref(p.LastName))
			if err != nil {
				return fmt.Errorf("copy personal data of %s: %w", id, err)
			}
			res.Copied += tag.RowsAffected()
		}
		tag, err := tx.Exec(ctx, `UPDATE events SET data = data - $1::text[]
			WHERE stream_type = 'user' AND type IN ('user.registered.v1', 'user.profile_updated.v1') AND data ?| $1`,
			legacyPersonalFields)
		if err != nil {
			return fmt.Errorf("strip personal data from events: %w", err)
		}
		res.Stripped = tag.RowsAffected()
		return nil
	})
	return res, err
}
