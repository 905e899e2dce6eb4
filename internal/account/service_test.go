package account_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob/memblob"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/subscription"
)

type bundle struct {
	db    *dbtest.DB
	store *eventstore.Store
	svc   *account.Service
	ctx   context.Context
}

func setup(t *testing.T) bundle {
	db := dbtest.New(t)
	store := eventstore.New(events.Domain())
	bucket := memblob.OpenBucket(nil)
	t.Cleanup(func() { _ = bucket.Close() })
	svc, err := account.NewService(db.Pool, store, subscription.NewService(store, subscription.TestMode{}), account.Options{
		PublicBaseURL: "http://x.test/", Bucket: bucket, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		HashParams: account.HashParams{MemoryKiB: 1024, Time: 1, Threads: 1, KeyLen: 32, SaltLen: 16},
	})
	require.NoError(t, err)
	return bundle{db: db, store: store, svc: svc, ctx: context.Background()}
}

func TestGetAndBrandingDefaults(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := b.svc.Get(b.ctx, b.db.Pool, "missing")
	require.True(t, fault.IsKind(err, fault.NotFound))
	u, err := b.svc.Signup(b.ctx, account.SignupInput{Email: "ada@example.com", Password: "password1", Name: "Ada"})
	require.NoError(t, err)
	br, err := b.svc.Branding(b.ctx, b.db.Pool, u.ID)
	require.NoError(t, err)
	require.Equal(t, account.Branding{BrandName: "Your Brand", BrandColor: "#2E5BBA"}, br)
}

func TestRebuildMatchesIncrementalProjection(t *testing.T) {
	t.Parallel()
	b := setup(t)
	u, err := b.svc.Signup(b.ctx, account.SignupInput{Email: "ada@example.com", Password: "password1", Name: "ada lovelace"})
	require.NoError(t, err)
	first, last := " Augusta ", "King"
	_, err = b.svc.UpdateProfile(b.ctx, u.ID, account.ProfilePatch{FirstName: &first, LastName: &last})
	require.NoError(t, err)
	_, err = b.svc.UpdateBranding(b.ctx, u.ID, "Acme", "#123abc")
	require.NoError(t, err)
	_, err = b.svc.SetLogo(b.ctx, u.ID, []byte(`<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0"/></svg>`))
	require.NoError(t, err)
	require.NoError(t, b.svc.RequestPasswordReset(b.ctx, "ada@example.com"))
	// Ada opened her verification link (a password account signs in only then).
	b.db.VerifiedUser(t, u.ID)

	before, err := b.svc.Get(b.ctx, b.db.Pool, u.ID)
	require.NoError(t, err)
	brBefore, err := b.svc.Branding(b.ctx, b.db.Pool, u.ID)
	require.NoError(t, err)
	require.NoError(t, pgdb.WithTx(b.ctx, b.db.Pool, func(tx pgx.Tx) error { return account.Rebuild(b.ctx, tx, b.store) }))
	after, err := b.svc.Get(b.ctx, b.db.Pool, u.ID)
	require.NoError(t, err)
	brAfter, err := b.svc.Branding(b.ctx, b.db.Pool, u.ID)
	require.NoError(t, err)
	require.Equal(t, before, after)
	require.Equal(t, brBefore, brAfter)
	// Credentials survive a rebuild: the password still works.
	_, err = b.svc.Login(b.ctx, "ada@example.com", "password1")
	require.NoError(t, err)
	require.Equal(t, "Augusta King", after.Name)
}
