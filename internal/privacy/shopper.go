package privacy

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/internal/pgdb"
)

// ShopperResult says what EraseShopper deleted.
type ShopperResult struct {
	Leads     int64 // product_leads rows
	Merchants int64 // distinct merchants they were left with
}

// EraseShopper deletes every lead a shopper left, at any merchant, by
// address (case-insensitively): `worker erase-shopper EMAIL`, for the
// support team answering a shopper's request. Leads are the only place a
// shopper's address is stored: the log records lead ids, webhook deliveries
// store the lead id and add the address when they send (migration 0025).
func EraseShopper(ctx context.Context, db pgdb.Beginner, email string) (ShopperResult, error) {
	email = strings.TrimSpace(email)
	if email == "" || !strings.Contains(email, "@") {
		return ShopperResult{}, fmt.Errorf("erase shopper: %q is not an email address", email)
	}
	var res ShopperResult
	err := pgdb.WithTx(ctx, db, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `WITH d AS (DELETE FROM product_leads WHERE lower(email) = lower($1) RETURNING user_id)
			SELECT count(*), count(DISTINCT user_id) FROM d`, email).Scan(&res.Leads, &res.Merchants)
	})
	if err != nil {
		return ShopperResult{}, fmt.Errorf("erase shopper: %w", err)
	}
	return res, nil
}
