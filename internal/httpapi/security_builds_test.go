package httpapi

import (
	"context"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

// buyCredits adds extra AI credits to user's balance (the test billing).
func (s creationStack) buyCredits(t *testing.T, user string, extra int64) {
	t.Helper()
	require.NoError(t, pgdb.WithTx(context.Background(), s.env.DB.Pool, func(tx pgx.Tx) error {
		_, err := s.env.Subs.PurchaseAddon(context.Background(), tx, user, "credits", extra)
		return err
	}))
}

// credits is user's (used, reserved, balance) as GET /api/subscription reports them.
func (s creationStack) credits(t *testing.T, user string) (used, reserved, balance int64) {
	t.Helper()
	v, err := s.env.Subs.Get(context.Background(), s.env.DB.Pool, user)
	require.NoError(t, err)
	require.NotNil(t, v.AICreditBalance)
	return v.AICreditsUsed, v.AICreditsReserved, *v.AICreditBalance
}

// reservedAmounts are the amounts of the credit events of one kind for jobID.
func (s creationStack) creditAmounts(t *testing.T, eventType, jobID string) []int64 {
	t.Helper()
	rows, err := s.env.DB.Pool.Query(context.Background(),
		`SELECT (data->>'amount')::bigint FROM events WHERE type = $1 AND data->>'jobId' = $2 ORDER BY position`, eventType, jobID)
	require.NoError(t, err)
	amounts, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(t, err)
	return amounts
}

// eightPhotos uploads eight photos of user: the front photo and seven moreImages.
func (s creationStack) eightPhotos(t *testing.T, user string) (string, []map[string]any) {
	t.Helper()
	data := jobtest.PNG(t, 96, 96)
	front := s.put(t, user, data)
	more := make([]map[string]any, 7)
	for i := range more {
		more[i] = map[string]any{"imageURL": s.put(t, user, data)}
	}
	return front, more
}

// Security review M6: a build of eight photos used to cost one credit, like
// a build of one, for 22–70× the CPU. The price is one credit per photo:
// the eight-photo build reserves 8, the worker consumes exactly the 8 the
// reservation recorded, a retry of a failed one reserves 8 again, and with
// 3 credits left an eight-photo build is refused (402, saying it needs 8)
// with nothing queued or reserved, while a one-photo build still costs 1.
func TestSecurityMultiPhotoBuildsCostOneCreditPerPhoto(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false)
	ctx := context.Background()
	user := s.env.User(t) // Free plan: 5 credits
	s.buyCredits(t, user, 6)
	front, more := s.eightPhotos(t, user)
	eight := map[string]any{"imageURL": front, "moreImages": more}

	rec, r := s.json(t, user, "POST", "/api/jobs", eight)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	built := decodeAs[viewsReply](t, r.Data)
	require.Equal(t, 8, built.Views)
	require.Equal(t, []int64{8}, s.creditAmounts(t, "subscription.credits_reserved.v1", built.ID), "eight photos reserve 8 credits")
	used, reserved, balance := s.credits(t, user)
	require.Equal(t, [3]int64{0, 8, 3}, [3]int64{used, reserved, balance})

	t.Run("with 3 credits left an eight-photo build is refused and nothing is queued or held", func(t *testing.T) {
		queued, holds := s.eventCount(t, "job.queued.v1"), s.eventCount(t, "subscription.credits_reserved.v1")
		rec, r := s.json(t, user, "POST", "/api/jobs", eight)
		require.Equal(t, http.StatusPaymentRequired, rec.Code, rec.Body.String())
		require.Equal(t, "insufficient_credits", r.Error.Code)
		require.Equal(t, "Not enough AI credits: a build from 8 photos uses 8 credits, one per photo. Buy more credits or upgrade your plan on the Subscription page, or build from fewer photos.", r.Error.Message)
		require.Equal(t, queued, s.eventCount(t, "job.queued.v1"))
		require.Equal(t, holds, s.eventCount(t, "subscription.credits_reserved.v1"))
		_, reserved, balance := s.credits(t, user)
		require.Equal(t, [2]int64{8, 3}, [2]int64{reserved, balance})
	})

	t.Run("the worker consumes what the reservation recorded", func(t *testing.T) {
		require.NoError(t, s.env.Worker(reconstruct.NewBuiltin()).Work(ctx, riverJob(built.ID)))
		j, err := s.env.Jobs.Get(ctx, user, built.ID)
		require.NoError(t, err)
		require.True(t, j.Terminal(), j.Status)
		used, reserved, balance := s.credits(t, user)
		if j.Status == job.StatusCompleted {
			require.Equal(t, []int64{8}, s.creditAmounts(t, "subscription.credits_consumed.v1", built.ID))
			require.Equal(t, [3]int64{8, 0, 3}, [3]int64{used, reserved, balance})
		} else {
			require.Equal(t, []int64{8}, s.creditAmounts(t, "subscription.credits_released.v1", built.ID))
			require.Equal(t, [3]int64{0, 0, 11}, [3]int64{used, reserved, balance})
		}
	})

	t.Run("a retry of a failed eight-photo build is priced the same", func(t *testing.T) {
		s.buyCredits(t, user, 8)
		rec, r := s.json(t, user, "POST", "/api/jobs", eight)
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
		failed := decodeAs[viewsReply](t, r.Data)
		s.env.Finish(t, failed.ID, job.BuildFailedMessage)
		require.NoError(t, pgdb.WithTx(ctx, s.env.DB.Pool, func(tx pgx.Tx) error {
			return s.env.Subs.ReleaseCredits(ctx, tx, user, failed.ID, "failed")
		}))
		rec, r = s.json(t, user, "POST", "/api/jobs/"+failed.ID+"/retry", nil)
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
		again := decodeAs[viewsReply](t, r.Data)
		require.Equal(t, 8, again.Views)
		require.Equal(t, []int64{8}, s.creditAmounts(t, "subscription.credits_reserved.v1", again.ID))
	})

	t.Run("a one-photo build still costs one credit", func(t *testing.T) {
		_, before, _ := s.credits(t, user)
		rec, r := s.json(t, user, "POST", "/api/jobs", map[string]any{"imageURL": front})
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
		one := decodeAs[viewsReply](t, r.Data)
		require.Equal(t, []int64{1}, s.creditAmounts(t, "subscription.credits_reserved.v1", one.ID))
		_, after, _ := s.credits(t, user)
		require.Equal(t, before+1, after)
	})
}

// Security review M6: one account cannot park an unbounded backlog on the
// shared build queue. With job.DefaultMaxWaitingBuilds (5) builds waiting for
// a slot, the next is refused with 429 builds_queued and a Retry-After, and
// nothing is queued or charged; once one of them has finished, the account
// may start another.
func TestSecurityWaitingBuildsPerAccountAreCapped(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false)
	user := s.env.User(t)
	s.buyCredits(t, user, 20)
	photo := s.put(t, user, jobtest.PNG(t, 64, 64))
	var ids []string
	for range job.DefaultMaxWaitingBuilds {
		rec, r := s.json(t, user, "POST", "/api/jobs", map[string]any{"imageURL": photo})
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
		ids = append(ids, decodeAs[viewsReply](t, r.Data).ID)
	}
	queued, holds := s.eventCount(t, "job.queued.v1"), s.eventCount(t, "subscription.credits_reserved.v1")
	rec, r := s.json(t, user, "POST", "/api/jobs", map[string]any{"imageURL": photo})
	require.Equal(t, http.StatusTooManyRequests, rec.Code, rec.Body.String())
	require.Equal(t, job.CodeBuildsQueued, r.Error.Code)
	require.Equal(t, "You already have 5 builds waiting to start. Wait until one of them starts, then try again.", r.Error.Message)
	require.NotEmpty(t, rec.Header().Get("Retry-After"))
	require.Equal(t, queued, s.eventCount(t, "job.queued.v1"), "nothing queued")
	require.Equal(t, holds, s.eventCount(t, "subscription.credits_reserved.v1"), "nothing reserved")

	// Another account is not affected.
	other := s.env.User(t)
	rec, _ = s.json(t, other, "POST", "/api/jobs", map[string]any{"imageURL": s.put(t, other, jobtest.PNG(t, 64, 64))})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())

	s.env.Finish(t, ids[0], "")
	rec, _ = s.json(t, user, "POST", "/api/jobs", map[string]any{"imageURL": photo})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
}
