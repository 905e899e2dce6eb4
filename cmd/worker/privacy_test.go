package main

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/dbtest"
)

// `worker migrate-pii` is safe to run twice, and `worker erase-shopper`
// reports counts without echoing the address.
func TestPrivacySubcommands(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	_, err := db.Pool.Exec(ctx, `INSERT INTO events (stream_id, stream_type, version, type, data) VALUES
		('user-o1', 'user', 1, 'user.registered.v1', '{"userId":"o1","email":"o1@shop.example","name":"O","method":"password"}');
		INSERT INTO product_leads (id, user_id, product_id, publication_id, email, consent, created_at)
		VALUES ('l1', 'm1', 'p', 'pub', 'sam@buyer.example', 'ok', now())`)
	require.NoError(t, err)
	dataDir := t.TempDir()
	getenv := func(k string) string {
		return map[string]string{"DATABASE_URL": db.URL, "DATA_DIR": dataDir}[k]
	}
	var out bytes.Buffer
	require.Zero(t, dispatch(ctx, []string{"migrate-pii"}, getenv, &out, io.Discard))
	require.Contains(t, out.String(), "migrate-pii: 1 events stripped")
	out.Reset()
	require.Zero(t, dispatch(ctx, []string{"migrate-pii"}, getenv, &out, io.Discard))
	require.Contains(t, out.String(), "migrate-pii: 0 events stripped")

	out.Reset()
	require.Zero(t, dispatch(ctx, []string{"erase-shopper", "SAM@buyer.example"}, getenv, &out, io.Discard))
	require.Equal(t, "erase-shopper: 1 leads deleted at 1 merchants\n", out.String())
	require.Equal(t, 1, dispatch(ctx, []string{"erase-shopper"}, getenv, io.Discard, io.Discard), "usage")
}
