package eventlog_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/eventlog"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/pgdb"
)

type exported struct {
	Position   int64           `json:"position"`
	XID        string          `json:"xid"`
	StreamID   string          `json:"streamId"`
	StreamType string          `json:"streamType"`
	Type       string          `json:"type"`
	Data       json.RawMessage `json:"data"`
}

type bundle struct {
	ctx   context.Context
	db    *dbtest.DB
	store *eventstore.Store
}

func setup(t *testing.T) bundle {
	t.Helper()
	return bundle{ctx: context.Background(), db: dbtest.New(t), store: eventstore.New(events.Domain())}
}

// queue appends one JobQueued (stream type job) and one AddonPurchased
// (stream type subscription) in one committed transaction.
func (b bundle) queue(t *testing.T, i int) {
	t.Helper()
	require.NoError(t, pgdb.WithTx(b.ctx, b.db.Pool, func(tx pgx.Tx) error { return b.append(tx, i) }))
}

func (b bundle) append(tx pgx.Tx, i int) error {
	id := fmt.Sprintf("j%04d", i)
	if _, err := b.store.Append(b.ctx, tx, events.Stream{Type: events.StreamJob, ID: id}, 0,
		events.JobQueued{JobID: id, UserID: "u1", Name: "vase", At: time.Unix(0, 0).UTC()}); err != nil {
		return err
	}
	_, err := b.store.Append(b.ctx, tx, events.Stream{Type: events.StreamSubscription, ID: id}, 0,
		events.AddonPurchased{UserID: id, Kind: "credits", Amount: 20})
	return err
}

// exportN exports until want events come out: xmin is cluster-wide, so an
// open transaction in any other test holds every export back for a moment.
func (b bundle) exportN(t *testing.T, o eventlog.Options, want int) ([]exported, eventlog.Result) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, res := b.export(t, o)
		if len(out) >= want || time.Now().After(deadline) {
			require.Len(t, out, want)
			return out, res
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exportAll exports in format until want events come out (see exportN for
// why it may take a moment) and returns the file's bytes.
func (b bundle) exportAll(t *testing.T, format eventlog.Format, want int) ([]byte, eventlog.Result) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var buf bytes.Buffer
		res, err := eventlog.Export(b.ctx, b.db.Pool, &buf, eventlog.Options{Format: format})
		require.NoError(t, err)
		if res.Events == int64(want) || time.Now().After(deadline) {
			require.EqualValues(t, want, res.Events)
			return buf.Bytes(), res
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (b bundle) export(t *testing.T, o eventlog.Options) ([]exported, eventlog.Result) {
	t.Helper()
	var buf bytes.Buffer
	res, err := eventlog.Export(b.ctx, b.db.Pool, &buf, o)
	require.NoError(t, err)
	var out []exported
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		var e exported
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), sc.Text())
		out = append(out, e)
	}
	require.EqualValues(t, len(out), res.Events)
	return out, res
}

func TestExportIsCompleteOrderedFilteredAndResumable(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i := range 5 {
		b.queue(t, i)
	}
	all, res := b.exportN(t, eventlog.Options{}, 10)
	// One writer: commit order is position order. This once failed under the
	// full suite (position 10 before 1) when the test cluster's transaction
	// ids went from 999 to 1000+: the export sorted them as text. See
	// TestExportOrdersTransactionIDsAsNumbers.
	for i := 1; i < len(all); i++ {
		require.Greater(t, all[i].Position, all[i-1].Position, "one writer: commit order is position order")
	}
	require.Equal(t, "job.queued.v1", all[0].Type)
	var data map[string]any
	require.NoError(t, json.Unmarshal(all[0].Data, &data))
	require.Equal(t, "j0000", data["jobId"], "the event's own JSON, verbatim")

	jobs, _ := b.export(t, eventlog.Options{StreamTypes: []string{events.StreamJob}})
	require.Len(t, jobs, 5)
	addons, _ := b.export(t, eventlog.Options{Types: []string{"subscription.addon_purchased.v1"}})
	require.Len(t, addons, 5)
	none, _ := b.export(t, eventlog.Options{StreamTypes: []string{events.StreamJob}, Types: []string{"subscription.addon_purchased.v1"}})
	require.Empty(t, none)

	// Resume: from the cursor nothing is repeated, new events follow.
	again, same := b.export(t, eventlog.Options{After: res.Next})
	require.Empty(t, again)
	require.Equal(t, res.Next, same.Next)
	b.queue(t, 5)
	more, _ := b.exportN(t, eventlog.Options{After: res.Next}, 2)
	require.Equal(t, "job-j0005", more[0].StreamID)

	// A cursor from a line resumes after that line.
	c, err := eventlog.ParseCursor(all[3].XID + ":" + fmt.Sprint(all[3].Position))
	require.NoError(t, err)
	rest, _ := b.export(t, eventlog.Options{After: c, Limit: 4})
	require.Len(t, rest, 4)
	require.Equal(t, all[4].Position, rest[0].Position)
}

// An export never moves past a transaction that is still open, even when
// later transactions have already committed: resuming from its cursor after
// the slow transaction commits still yields that transaction's events.
func TestExportNeverSkipsALateCommit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.queue(t, 0)
	slow, err := b.db.Pool.Begin(b.ctx)
	require.NoError(t, err)
	defer func() { _ = slow.Rollback(b.ctx) }()
	require.NoError(t, b.append(slow, 1)) // takes its xid before the next commit
	b.queue(t, 2)

	first, res := b.export(t, eventlog.Options{})
	for _, e := range first {
		require.Contains(t, []string{"job-j0000", "subscription-j0000"}, e.StreamID, "nothing at or after the open transaction")
	}
	require.NoError(t, slow.Commit(b.ctx))

	rest, _ := b.exportN(t, eventlog.Options{After: res.Next}, 6-len(first))
	rest = rest[2-len(first):]
	var ids []string
	for _, e := range rest {
		ids = append(ids, e.StreamID)
	}
	require.Equal(t, []string{"job-j0001", "subscription-j0001", "job-j0002", "subscription-j0002"}, ids)
}

func TestParseCursor(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"1", "x:1", "1:x", "1:-1", ":"} {
		_, err := eventlog.ParseCursor(bad)
		require.Error(t, err, bad)
	}
	c, err := eventlog.ParseCursor("42:7")
	require.NoError(t, err)
	require.Equal(t, eventlog.Cursor{XID: 42, Position: 7}, c)
	require.Equal(t, "42:7", c.String())
}

// Transaction ids gain digits as a cluster ages (999 → 1000 …). The first
// exporter selected transaction_id::text and ordered by the bare name, which
// Postgres resolves to that text output column: "10" came before "9", and a
// resume from a cursor taken after "10" skipped every event of 9. Ids 9 and
// 10 belong to transactions that ended long ago in any cluster (initdb alone
// uses hundreds), so these rows read like real ones.
func TestExportOrdersTransactionIDsAsNumbers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := b.db.Pool.Exec(b.ctx, `INSERT INTO events (stream_id, stream_type, version, type, data, transaction_id)
		SELECT 'job-x' || (g % 5), 'job', g, 'job.queued.v1', jsonb_build_object('n', g), (CASE WHEN g <= 40 THEN '9' ELSE '10' END)::xid8
		FROM generate_series(1, 80) g`)
	require.NoError(t, err)

	all, _ := b.exportN(t, eventlog.Options{}, 80)
	for i, e := range all {
		require.EqualValues(t, i+1, e.Position, "xid 9's events, then xid 10's")
	}
	// Resumed in slices of 30, every event comes out once and in order.
	var got []int64
	cur := eventlog.Cursor{}
	for {
		part, res := b.export(t, eventlog.Options{After: cur, Limit: 30})
		if len(part) == 0 {
			break
		}
		for _, e := range part {
			got = append(got, e.Position)
		}
		cur = res.Next
	}
	require.Len(t, got, 80)
	for i, p := range got {
		require.EqualValues(t, i+1, p)
	}
}
