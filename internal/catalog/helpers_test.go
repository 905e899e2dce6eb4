package catalog_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// stack is the real catalogue on a throwaway database: the job stack of
// jobtest (whose event store runs catalog.Projection inline, as cmd/api and
// cmd/worker do) and the catalogue service over it.
type stack struct {
	env *jobtest.Env
	svc *catalog.Service
}

func setup(t *testing.T) stack {
	t.Helper()
	env := jobtest.New(t, "http://photo3d.test")
	return stack{env: env, svc: catalog.NewService(env.DB.Pool, env.Store, env.Jobs, catalog.SubscriptionPlans{Subscriptions: env.Subs})}
}

var ctx = context.Background()

// trial gives the user Pro for 7 days (50 products, 10 galleries, 50 credits).
func (s stack) trial(t *testing.T, user string) {
	t.Helper()
	require.NoError(t, pgdb.WithTx(ctx, s.env.DB.Pool, func(tx pgx.Tx) error {
		_, err := s.env.Subs.StartTrial(ctx, tx, user, 7)
		return err
	}))
}

func (s stack) blueprint(t *testing.T, user, end string) string { return s.env.Blueprint(t, user, end) }

// finish ends a job the way the worker does.
func (s stack) finish(t *testing.T, jobID, end string) {
	t.Helper()
	switch end {
	case catalog.StatusReady:
		s.env.Finish(t, jobID, "")
	case catalog.StatusError:
		s.env.Finish(t, jobID, job.BuildFailedMessage)
	}
}

// snapshot reads the three read models in a stable order.
func snapshot(t *testing.T, q pgdb.Querier) []string {
	t.Helper()
	var out []string
	for _, sql := range []string{
		`SELECT row_to_json(c)::text FROM catalogs c ORDER BY id`,
		`SELECT row_to_json(p)::text FROM products p ORDER BY id`,
		`SELECT row_to_json(g)::text FROM galleries g ORDER BY id`,
	} {
		rows, err := q.Query(ctx, sql)
		require.NoError(t, err)
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		out = append(out, got...)
	}
	return out
}
