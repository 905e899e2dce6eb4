package publish

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"gocloud.dev/blob"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/channels"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/glbvariants"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// A product page's AR GLBs, commerce GLBs and USDZ files are made by the
// worker (security review 3, item H1: one anonymous request for a USDZ or
// commerce GLB of a large own model cost the api up to a minute of CPU and
// hundreds of MB). The channel_files job (channels.FilesArgs) is queued in
// the transaction that changes what a live product page shows (publish, a
// new version, a lock, a variant or model change of a live product:
// ChannelFilesOnChange, an inline projection) and, uniquely, when a request
// finds a file missing; the request then answers "not ready yet".

// ChannelFilesOnChange queues the channel files of what a product's live page
// shows, inside the transaction of the event that changed it: the job
// exists exactly when the change does.
type ChannelFilesOnChange struct {
	River *river.Client[pgx.Tx]
}

// Apply implements eventstore.Inline.
func (c ChannelFilesOnChange) Apply(ctx context.Context, tx pgx.Tx, e eventstore.Envelope) error {
	if c.River == nil {
		return nil
	}
	var r record
	var err error
	switch ev := e.Data.(type) {
	case events.PublicationVersioned:
		r, err = byID(ctx, tx, ev.PublicationID)
	case events.PublicationLocked:
		r, err = byID(ctx, tx, ev.PublicationID)
	case events.ProductVariantAdded:
		r, err = liveByProduct(ctx, tx, ev.ProductID)
	case events.ProductVariantChanged:
		r, err = liveByProduct(ctx, tx, ev.ProductID)
	case events.ProductVariantRemoved:
		r, err = liveByProduct(ctx, tx, ev.ProductID)
	case events.ProductModelUploaded:
		r, err = liveByProduct(ctx, tx, ev.ProductID)
	case events.ProductModelAttached:
		r, err = liveByProduct(ctx, tx, ev.ProductID)
	default:
		return nil
	}
	if errors.Is(err, errNoRow) {
		return nil
	}
	if err != nil {
		return err
	}
	if r.ProductID == "" || r.UnpublishedAt != nil {
		return nil
	}
	args, ok, err := liveChannelFiles(ctx, tx, r)
	if err != nil || !ok {
		return err
	}
	if _, err := c.River.InsertTx(ctx, tx, args, nil); err != nil {
		return fmt.Errorf("queue channel files: %w", err)
	}
	return nil
}

// liveChannelFiles is the content of r's live product page: its locked
// version, else the product as it is now (ok=false: nothing to show yet).
func liveChannelFiles(ctx context.Context, q pgdb.Querier, r record) (channels.FilesArgs, bool, error) {
	snap, err := productSnapshot(ctx, q, r.UserID, r.ProductID)
	if errors.Is(err, errProductNotFound) || (errors.Is(err, errProductNotReady) && r.LockedVersion == 0) {
		return channels.FilesArgs{}, false, nil
	}
	if err != nil && !errors.Is(err, errProductNotReady) {
		return channels.FilesArgs{}, false, err
	}
	if r.LockedVersion > 0 {
		if snap, err = versionSnapshot(ctx, q, r.ID, r.LockedVersion); err != nil {
			return channels.FilesArgs{}, false, err
		}
	}
	if snap.Config == nil || snap.ModelKey == "" {
		return channels.FilesArgs{}, false, nil
	}
	return channels.NewFilesArgs(r.UserID, r.ProductID, snap.ModelKey, ConfigVariants(*snap.Config)), true, nil
}

// ConfigVariants is what the GLB builder needs of a configuration.
func ConfigVariants(cfg catalog.Config) []glbvariants.Variant {
	out := make([]glbvariants.Variant, 0, len(cfg.Variants))
	for _, v := range cfg.Variants {
		out = append(out, glbvariants.Variant{ID: v.ID, Material: v.Material, Parts: v.Parts})
	}
	return out
}

// ChannelFilesTimeout is the deadline of one run of the channel_files job;
// a run cut short keeps what it made and the next attempt continues. It
// stays under the worker's rescue delay (RECONSTRUCT_TIMEOUT plus a margin)
// so a slow run is never started twice at once.
const ChannelFilesTimeout = 4 * time.Minute

// channelFilesTooLong is the refusal of files still missing when the last
// attempt ran out of time.
const channelFilesTooLong = "This file took too long to make from this model. Upload a lighter model (fewer triangles, smaller textures)."

// ChannelFilesWorker runs channels.FilesArgs: it builds a product's channel
// files (channels.Packager.Build) on the model queue, with its own slots and
// deadline, holding the account's file lock while it writes.
type ChannelFilesWorker struct {
	river.WorkerDefaults[channels.FilesArgs]
	DB       *pgxpool.Pool
	Packager *channels.Packager
	Logger   *slog.Logger
	// Deadline of one run (0: ChannelFilesTimeout).
	Deadline time.Duration
}

// Timeout implements river.Worker.
func (w *ChannelFilesWorker) Timeout(*river.Job[channels.FilesArgs]) time.Duration {
	if w.Deadline > 0 {
		return w.Deadline
	}
	return ChannelFilesTimeout
}

// Work builds what is missing of the job's files, unless the content is no
// longer shown or sold anywhere (the merchant changed the product since, or
// deleted it): then a newer job has the current content and this one ends.
func (w *ChannelFilesWorker) Work(ctx context.Context, job *river.Job[channels.FilesArgs]) error {
	a := job.Args
	current, err := w.current(ctx, a)
	if err != nil {
		return err
	}
	if !current {
		w.log().Info("channel files no longer shown; skipped", "product", a.ProductID, "model", a.ModelKey)
		return nil
	}
	built, err := w.Packager.Build(ctx, a.ModelKey, a.Variants, w.write(a.OwnerID))
	switch {
	case errors.Is(err, channels.ErrErasing):
		return nil // the erasure deletes what was written before
	case err != nil && ctx.Err() != nil && job.Attempt >= job.MaxAttempts:
		// Out of time on the last attempt: what is still missing is
		// refused, so pages stop waiting and the merchant reads why.
		n, rerr := w.Packager.Refuse(context.WithoutCancel(ctx), a.ModelKey, a.Variants, channelFilesTooLong, w.write(a.OwnerID))
		if rerr != nil && !errors.Is(rerr, channels.ErrErasing) {
			return errors.Join(err, rerr)
		}
		w.log().Warn("channel files took too long; refused", "product", a.ProductID, "refused", n)
		return river.JobCancel(err)
	case err != nil:
		return fmt.Errorf("build channel files of %s: %w", a.ModelKey, err)
	}
	if built.Written > 0 || built.Refused > 0 {
		w.log().Info("channel files built", "product", a.ProductID, "written", built.Written, "refused", built.Refused)
	}
	return nil
}

// current reports whether a's content is what the product shows now (the
// Channels panel, "Send to Shopify", its unlocked page) or what its live
// page's locked version shows.
func (w *ChannelFilesWorker) current(ctx context.Context, a channels.FilesArgs) (bool, error) {
	want := glbvariants.Hash(a.ModelKey, a.Variants)
	p, ok, err := catalog.LoadProduct(ctx, w.DB, a.ProductID)
	if err != nil {
		return false, err
	}
	if !ok || p.UserID != a.OwnerID || p.DeletedAt != nil {
		return false, nil
	}
	now := channels.NewFilesArgs(p.UserID, p.ID, p.ModelKey, ConfigVariants(p.Config))
	if glbvariants.Hash(now.ModelKey, now.Variants) == want {
		return true, nil
	}
	r, err := liveByProduct(ctx, w.DB, a.ProductID)
	if errors.Is(err, errNoRow) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if r.LockedVersion == 0 {
		return false, nil
	}
	live, ok, err := liveChannelFiles(ctx, w.DB, r)
	if err != nil || !ok {
		return false, err
	}
	return glbvariants.Hash(live.ModelKey, live.Variants) == want, nil
}

// write stores one file while holding the shared side of the account's
// file lock, and nothing once the account's erasure was requested: either
// the erasure waits for this write and then deletes the file, or the file
// is never written (account.LockFileWrites).
func (w *ChannelFilesWorker) write(ownerID string) channels.Writer {
	return func(ctx context.Context, key string, data []byte, opts *blob.WriterOptions) error {
		return pgdb.WithTx(ctx, w.DB, func(tx pgx.Tx) error {
			erasing, err := account.LockFileWrites(ctx, tx, ownerID)
			if err != nil {
				return err
			}
			if erasing {
				return channels.ErrErasing
			}
			if err := w.Packager.Bucket.WriteAll(ctx, key, data, opts); err != nil {
				return fmt.Errorf("store %s: %w", key, err)
			}
			return nil
		})
	}
}

func (w *ChannelFilesWorker) log() *slog.Logger {
	if w.Logger != nil {
		return w.Logger
	}
	return slog.Default()
}
