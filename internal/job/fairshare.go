package job

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/internal/fault"
)

// The price and the fair share of builds (security review M6). A build's
// work grows with its photos: an eight-photo build of 512 px photos took
// 22–70× the CPU of a one-photo build, and builds of every merchant shared
// the reconstruct slots in order of arrival, so one account's backlog
// delayed everyone's first build by minutes. Three rules answer it, all
// decided in queueViewsTx, the one way a build starts:
//
//   - the price follows the work: CreditsFor(photos) is reserved;
//   - River priority gives each account's builds a share of the slots: an
//     account's k-th unfinished build is queued at priority k (capped at
//     River's lowest, 4), and River runs available jobs by priority, then
//     by arrival, so another account's first build passes a backlog and
//     waits at most for a slot to free (one build's time);
//   - an account has at most MaxWaitingBuilds builds waiting for a slot.

// CreditsFor is the price in AI credits of a build from photos photos: one
// credit per photo, so the one-photo build the spec describes ("Generate 3D
// uses 1 AI credit") keeps its price and a build of eight photos costs 8.
// The reservation event (subscription.credits_reserved.v1) records the
// amount, and consumption or release moves exactly that amount, so replays
// never re-derive a price from this function.
func CreditsFor(photos int) int64 {
	return CreditsPerBuild * int64(max(1, photos))
}

// DefaultMaxWaitingBuilds is how many of one account's builds may wait for a
// build slot at once (MAX_WAITING_BUILDS). Five is the free plan's whole
// allowance of credits, and more than a person starting builds by hand ever
// has waiting (a build of one photo takes seconds); a script or a credit-rich
// account that starts more is told to wait (429 builds_queued) instead of
// parking a backlog that every other heavy account would queue behind at
// River's lowest priority. Builds already running do not count: how many run
// at once is bounded by the worker slots and the priorities.
const DefaultMaxWaitingBuilds = 5

// riverLowestPriority is River's lowest job priority (1 is the highest).
const riverLowestPriority = 4

// CodeBuildsQueued is the error code of a build refused because the account
// already has MaxWaitingBuilds builds waiting.
const CodeBuildsQueued = "builds_queued"

// Option configures a Service at wiring time.
type Option func(*Service)

// WithMaxWaitingBuilds sets how many builds an account may have waiting for
// a slot (DefaultMaxWaitingBuilds unless set; 0 or less: no limit, for load
// tests that queue one merchant's whole batch at once).
func WithMaxWaitingBuilds(n int) Option {
	return func(s *Service) { s.maxWaiting = n }
}

// errBuildsQueued is the refusal of a build over the waiting limit.
func errBuildsQueued(limit int) *fault.Error {
	builds := "builds"
	if limit == 1 {
		builds = "build"
	}
	return fault.New(fault.RateLimited, CodeBuildsQueued, fmt.Sprintf(
		"You already have %d %s waiting to start. Wait until one of them starts, then try again.", limit, builds))
}

// insufficientCredits rewords the balance refusal of a multi-photo build
// (Credits' PaymentRequired fault) so it says what the build costs, keeping
// its code; a one-photo build keeps the usual sentence.
func insufficientCredits(err error, photos int) error {
	fe, ok := fault.As(err)
	if photos <= 1 || !ok || fe.Kind != fault.PaymentRequired {
		return err
	}
	return fault.Wrap(err, fe.Kind, fe.Code, fmt.Sprintf(
		"Not enough AI credits: a build from %d photos uses %d credits, one per photo. Buy more credits or upgrade your plan on the Subscription page, or build from fewer photos.",
		photos, CreditsFor(photos)))
}

// insufficientCreditsVideos is insufficientCredits for a build from
// turntable videos, priced by the photos they become.
func insufficientCreditsVideos(err error, videos, photos int) error {
	fe, ok := fault.As(err)
	if !ok || fe.Kind != fault.PaymentRequired {
		return err
	}
	noun := "videos"
	if videos == 1 {
		noun = "video"
	}
	return fault.Wrap(err, fe.Kind, fe.Code, fmt.Sprintf(
		"Not enough AI credits: a build from %d %s uses %d credits, one per photo the videos become (%d a video). Buy more credits or upgrade your plan on the Subscription page, or build from fewer videos.",
		videos, noun, CreditsFor(photos), photos/videos))
}

// buildShare counts the account's live builds that hold or wait for a slot,
// in the caller's transaction: waiting (queued) and unfinished (queued or
// running). Deleted blueprints are left out: one deleted while queued ends
// as soon as a worker picks it up, and the query stays on the account's
// rows of the jobs_user_live index. The caller holds the account's
// subscription row lock (ReserveCredits), so two requests of one account
// count one after the other and the waiting limit holds under concurrency.
func buildShare(ctx context.Context, tx pgx.Tx, userID string) (waiting, unfinished int, err error) {
	err = tx.QueryRow(ctx, `
SELECT count(*) FILTER (WHERE status = 'queued'), count(*)
FROM jobs WHERE user_id = $1 AND deleted_at IS NULL AND status IN ('queued', 'processing')`, userID).Scan(&waiting, &unfinished)
	if err != nil {
		return 0, 0, fmt.Errorf("count builds of user %s: %w", userID, err)
	}
	return waiting, unfinished, nil
}

// priorityFor is the River priority of an account's next build when it has
// unfinished builds already: 1 for its first, 2 for its second, … 4 beyond.
func priorityFor(unfinished int) int {
	return min(1+unfinished, riverLowestPriority)
}
