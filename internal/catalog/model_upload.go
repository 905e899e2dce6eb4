package catalog

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/blobstore"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/reconstruct"
	"github.com/photo3d/photo3d/internal/upload"
)

// A merchant's own model (POST /products/{id}/model). Preparing a model
// (parsing, normalising, thumbnailing) is heavy, so the api does only the
// cheap part: it checks the set of files (names, count, 50 MB), the product
// and the daily upload quota (model bytes count with photos), stores the
// files, and in one transaction records a pending submission, appends
// ProductModelSubmitted and queues PrepareModelArgs on the River queue
// `model` (its own slots and a deadline, see cmd/worker). The worker
// validates the files with reconstruct.PrepareUploadedModel, stores the GLB
// and thumbnail under a content-addressed key (a new model is a new URL, so
// browsers refetch) and makes it the product's model by one
// ProductModelUploaded event, or records the refusal the merchant reads. A
// refused file leaves no model behind and appends no ProductModelUploaded.

// ModelContentType is the served type of product models.
const ModelContentType = "model/gltf-binary"

// QueueModel is the River queue of model preparations: workers serve it
// with their own slots (MODEL_WORKERS), so crafted models never hold up
// photos or builds, and the api never prepares a model itself.
const QueueModel = "model"

// ModelWorkers is how many models one worker process prepares at once.
const ModelWorkers = 2

// ModelWait is how long POST /products/{id}/model waits for the worker
// before answering 202 (the client then polls the submission).
const ModelWait = 3 * time.Second

// ModelPrepareTimeout is the deadline of one preparation; past it the
// submission is refused with ErrModelTimeout's message.
const ModelPrepareTimeout = 2 * time.Minute

// Submission statuses.
const (
	ModelPending = "pending"
	ModelReady   = "ready"
	ModelFailed  = "failed"
)

// Messages of failures that are not the file's own fault.
const (
	modelTimeoutMessage = "This model took too long to prepare. Simplify it (fewer triangles, smaller textures) and upload it again."
	modelFailedMessage  = "We could not prepare this model. Please try again."
)

// ErrModelSubmissionNotFound: no such submission for this product and owner.
var ErrModelSubmissionNotFound = fault.NotFoundf("Model upload not found.")

// WithModels gives the service the blob store product files live in (own
// models, and the model read by the preview checks) and the height own models
// are scaled to (MODEL_HEIGHT_METRES; 0 = the reconstructor's default).
func (s *Service) WithModels(blobs *blobstore.Store, heightMetres float64) *Service {
	s.blobs, s.modelHeight = blobs, heightMetres
	return s
}

// WithRiver gives the service the (insert-only) River client that queues
// model preparations.
func (s *Service) WithRiver(rc *river.Client[pgx.Tx]) *Service {
	s.river = rc
	return s
}

// WithModelWait sets how long an upload waits for its preparation before it
// answers 202. Test stacks whose assertions read the synchronous answer set a
// long wait, so a loaded machine cannot turn their 200 or 400 into a 202.
func (s *Service) WithModelWait(d time.Duration) *Service {
	s.modelWait = d
	return s
}

// ModelWaitLimit is the wait WithModelWait set, or ModelWait.
func (s *Service) ModelWaitLimit() time.Duration {
	if s.modelWait > 0 {
		return s.modelWait
	}
	return ModelWait
}

// WithQuota sets how a merchant's daily upload quota is found (cmd/api: by
// plan, as for photos); without it every merchant gets the Free plan's.
func (s *Service) WithQuota(q upload.QuotaFunc) *Service {
	s.quota = q
	return s
}

// modelProblem turns the validator's refusal into the API's 400.
func modelProblem(err error) error {
	var me *reconstruct.ModelError
	if errors.As(err, &me) {
		return fault.New(fault.Invalid, me.Code, me.Message)
	}
	return err
}

// productModelKey names an own model's files by owner, product and content.
func productModelKey(userID, productID string, glb []byte, file string) string {
	return fmt.Sprintf("models/%s/products/%s/%x/%s", userID, productID, sha256.Sum256(glb), file)
}

// modelSourceKey names one uploaded file of a submission until it is prepared.
func modelSourceKey(userID, productID, submissionID, name string) string {
	return fmt.Sprintf("model-sources/%s/%s/%s/%s", userID, productID, submissionID, name)
}

// ModelSubmission is one own-model upload and how its preparation went.
type ModelSubmission struct {
	ID        string
	ProductID string
	Status    string // pending | ready | failed
	Code      string // the refusal's error code (failed)
	Message   string // what the merchant reads (failed)
}

// SubmitModel stores files (one .glb, or one .gltf with its .bin and
// images) and queues their preparation. Someone else's product is not found
// before anything is stored; a set of files that cannot be one model, or
// that would take the merchant past the daily upload quota, is refused
// before anything is stored.
func (s *Service) SubmitModel(ctx context.Context, userID, productID string, files []reconstruct.ModelFile) (ModelSubmission, error) {
	if s.blobs == nil || s.river == nil {
		return ModelSubmission{}, errors.New("submit model: no blob store or River client configured")
	}
	if _, err := getProduct(ctx, s.db, userID, productID); err != nil {
		return ModelSubmission{}, err
	}
	mainName, err := reconstruct.CheckModelFiles(files)
	if err != nil {
		return ModelSubmission{}, modelProblem(err)
	}
	quota := upload.QuotaForPlan("free")
	if s.quota != nil {
		if quota, err = s.quota(ctx, userID); err != nil {
			return ModelSubmission{}, err
		}
	}
	var size int64
	for _, f := range files {
		size += int64(len(f.Data))
	}
	id, err := newID()
	if err != nil {
		return ModelSubmission{}, err
	}
	// The quota is checked before the files are written (and again, under
	// the lock, in the transaction): a refused upload stores nothing.
	if err := upload.CheckQuota(ctx, s.db, quota, userID, size, s.at()); err != nil {
		return ModelSubmission{}, err
	}
	keys := make([]string, 0, len(files))
	for _, f := range files {
		k := modelSourceKey(userID, productID, id, f.Name)
		if err := s.blobs.Write(ctx, k, "application/octet-stream", f.Data); err != nil {
			s.deleteBlobs(keys)
			return ModelSubmission{}, err
		}
		keys = append(keys, k)
	}
	err = s.write(ctx, userID, func(tx pgx.Tx) error {
		if _, err := getProduct(ctx, tx, userID, productID); err != nil {
			return err
		}
		if err := upload.CheckQuotaTx(ctx, tx, quota, userID, size, s.at()); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO product_models (id, product_id, user_id, status, filename, source_keys, source_bytes, created_at)
			VALUES ($1, $2, $3, 'pending', $4, $5, $6, $7)`, id, productID, userID, mainName, keys, size, s.at()); err != nil {
			return fmt.Errorf("record model submission: %w", err)
		}
		if _, err := s.store.Append(ctx, tx, productStream(productID), eventstore.AnyVersion, events.ProductModelSubmitted{
			ProductID: productID, SubmissionID: id, Filename: mainName, Bytes: size, At: s.at()}); err != nil {
			return err
		}
		if _, err := s.river.InsertTx(ctx, tx, PrepareModelArgs{SubmissionID: id}, nil); err != nil {
			return fmt.Errorf("queue model preparation: %w", err)
		}
		return nil
	})
	if err != nil {
		s.deleteBlobs(keys)
		return ModelSubmission{}, err
	}
	return ModelSubmission{ID: id, ProductID: productID, Status: ModelPending}, nil
}

// deleteBlobs removes files a failed request wrote (best effort: the
// storage clean-up finds what is left).
func (s *Service) deleteBlobs(keys []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, k := range keys {
		_ = s.blobs.Delete(ctx, k)
	}
}

// ModelSubmission returns the owner's submission id of product productID.
func (s *Service) ModelSubmission(ctx context.Context, userID, productID, id string) (ModelSubmission, error) {
	return readSubmission(ctx, s.db, userID, productID, id)
}

func readSubmission(ctx context.Context, q pgdb.Querier, userID, productID, id string) (ModelSubmission, error) {
	m := ModelSubmission{ID: id, ProductID: productID}
	err := q.QueryRow(ctx, `SELECT status, code, message FROM product_models WHERE id = $1 AND product_id = $2 AND user_id = $3`,
		id, productID, userID).Scan(&m.Status, &m.Code, &m.Message)
	if errors.Is(err, pgx.ErrNoRows) {
		return ModelSubmission{}, ErrModelSubmissionNotFound
	}
	if err != nil {
		return ModelSubmission{}, fmt.Errorf("read model submission: %w", err)
	}
	return m, nil
}

// WaitModel returns the submission once the worker finished it, or as it
// stands after wait (short, growing polls of one primary-key row).
func (s *Service) WaitModel(ctx context.Context, userID, productID, id string, wait time.Duration) (ModelSubmission, error) {
	deadline := time.Now().Add(wait)
	pause := 20 * time.Millisecond
	for {
		m, err := s.ModelSubmission(ctx, userID, productID, id)
		if err != nil || m.Status != ModelPending || time.Now().After(deadline) {
			return m, err
		}
		select {
		case <-ctx.Done():
			return m, nil
		case <-time.After(min(pause, time.Until(deadline)+time.Millisecond)):
		}
		pause = min(2*pause, 250*time.Millisecond)
	}
}

// PrepareModelArgs is the River job that prepares one submitted model.
type PrepareModelArgs struct {
	SubmissionID string `json:"submissionId"`
}

// Kind implements river.JobArgs; stored in river_job, never change it.
func (PrepareModelArgs) Kind() string { return "prepare_model" }

// InsertOpts implements river.JobArgsWithInsertOpts: the model queue, two
// attempts (a refusal is final at once; the retry is for a lost worker or
// an unreachable store).
func (PrepareModelArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueModel, MaxAttempts: 2}
}

// PrepareModelWorker runs PrepareModelArgs: it owns the heavy part of an
// own-model upload. Each run is bounded by the caps of
// reconstruct.PrepareUploadedModel and by Timeout.
type PrepareModelWorker struct {
	river.WorkerDefaults[PrepareModelArgs]
	DB     *pgxpool.Pool
	Store  *eventstore.Store
	Blobs  *blobstore.Store
	Height float64 // MODEL_HEIGHT_METRES (0: the reconstructor's default)
	Logger *slog.Logger
	// Deadline of one preparation (0: ModelPrepareTimeout).
	Deadline time.Duration
	Now      func() time.Time
}

// Timeout implements river.Worker: the preparation's own deadline.
func (w *PrepareModelWorker) Timeout(*river.Job[PrepareModelArgs]) time.Duration {
	if w.Deadline > 0 {
		return w.Deadline
	}
	return ModelPrepareTimeout
}

func (w *PrepareModelWorker) now() time.Time {
	if w.Now != nil {
		return w.Now().UTC()
	}
	return time.Now().UTC()
}

type pendingModel struct {
	productID, userID string
	keys              []string
}

// Work prepares the submission once; a finished one is left alone.
func (w *PrepareModelWorker) Work(ctx context.Context, job *river.Job[PrepareModelArgs]) error {
	id := job.Args.SubmissionID
	var pm pendingModel
	var status string
	err := w.DB.QueryRow(ctx, `SELECT product_id, user_id, status, source_keys FROM product_models WHERE id = $1`, id).
		Scan(&pm.productID, &pm.userID, &status, &pm.keys)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && status != ModelPending) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read model submission: %w", err)
	}
	files := make([]reconstruct.ModelFile, 0, len(pm.keys))
	for _, k := range pm.keys {
		data, err := w.Blobs.Read(ctx, k, reconstruct.MaxModelUploadBytes)
		if err != nil {
			return fmt.Errorf("read model file: %w", err)
		}
		files = append(files, reconstruct.ModelFile{Name: path.Base(k), Data: data})
	}
	// The preparation runs beside the deadline: when the deadline passes the
	// merchant is told at once; the computation itself is bounded by the
	// model caps and ends soon after.
	type result struct {
		m   *reconstruct.UploadedModel
		err error
	}
	done := make(chan result, 1)
	go func() {
		m, err := reconstruct.PrepareUploadedModel(files, w.Height)
		done <- result{m, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			if err := w.refuse(context.WithoutCancel(ctx), id, pm, "model_timeout", modelTimeoutMessage); err != nil {
				return err
			}
			return river.JobCancel(fmt.Errorf("prepare model %s: %w", id, ctx.Err()))
		}
		return ctx.Err()
	}
	files = nil
	var me *reconstruct.ModelError
	if errors.As(res.err, &me) {
		return w.refuse(ctx, id, pm, me.Code, me.Message)
	}
	if res.err != nil {
		if job.Attempt >= job.MaxAttempts {
			return w.refuse(ctx, id, pm, "model_failed", modelFailedMessage)
		}
		return fmt.Errorf("prepare model %s: %w", id, res.err)
	}
	m := res.m
	modelKey := productModelKey(pm.userID, pm.productID, m.GLB, "model.glb")
	thumbKey := productModelKey(pm.userID, pm.productID, m.GLB, "thumbnail.png")
	if err := w.Blobs.Write(ctx, modelKey, ModelContentType, m.GLB); err != nil {
		return err
	}
	if err := w.Blobs.Write(ctx, thumbKey, "image/png", m.Thumbnail); err != nil {
		return err
	}
	gone := false
	err = pgdb.WithTx(ctx, w.DB, func(tx pgx.Tx) error {
		if err := lockMerchant(ctx, tx, pm.userID); err != nil {
			return err
		}
		// An account being erased records no model: its erasure blanks the
		// file names in the log under this lock (security review 3, L7), so
		// one appended after that would outlive it. Its files go as a
		// deleted product's do.
		if erasing, err := accountErasing(ctx, tx, pm.userID); err != nil || erasing {
			gone = erasing
			return err
		}
		if _, err := getProduct(ctx, tx, pm.userID, pm.productID); errors.Is(err, ErrProductNotFound) {
			gone = true
			return nil
		} else if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE product_models SET status = 'ready', model_key = $2, thumbnail_key = $3, finished_at = $4
			WHERE id = $1 AND status = 'pending'`, id, modelKey, thumbKey, w.now())
		if err != nil {
			return fmt.Errorf("finish model submission: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return nil // finished by an earlier run
		}
		_, err = w.Store.Append(ctx, tx, productStream(pm.productID), eventstore.AnyVersion, events.ProductModelUploaded{
			ProductID: pm.productID, ModelKey: modelKey, ThumbnailKey: thumbKey, Filename: m.Filename,
			Bytes: len(m.GLB), Triangles: m.Triangles, At: w.now()})
		return err
	})
	if err != nil {
		return err
	}
	if gone { // deleted while its model was prepared: keep nothing a live page does not show
		var shown bool
		if err := w.DB.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM publication_versions v JOIN publications p ON p.id = v.publication_id
			WHERE p.unpublished_at IS NULL AND v.snapshot->>'modelKey' = $1)`, modelKey).Scan(&shown); err != nil {
			return fmt.Errorf("check published model: %w", err)
		}
		for _, k := range []string{modelKey, thumbKey} {
			if shown {
				break
			}
			if err := w.Blobs.Delete(ctx, k); err != nil {
				return err
			}
		}
		return w.refuse(ctx, id, pm, "product_not_found", ErrProductNotFound.Message)
	}
	w.dropSources(ctx, id, pm.keys)
	return nil
}

// refuse records why the submission cannot be used and deletes its files.
func (w *PrepareModelWorker) refuse(ctx context.Context, id string, pm pendingModel, code, message string) error {
	if _, err := w.DB.Exec(ctx, `UPDATE product_models SET status = 'failed', code = $2, message = $3, finished_at = $4
		WHERE id = $1 AND status = 'pending'`, id, code, message, w.now()); err != nil {
		return fmt.Errorf("refuse model submission: %w", err)
	}
	w.dropSources(ctx, id, pm.keys)
	return nil
}

// dropSources deletes the uploaded files once the submission is finished
// (storage_cleanup retries what fails here).
func (w *PrepareModelWorker) dropSources(ctx context.Context, id string, keys []string) {
	for _, k := range keys {
		if err := w.Blobs.Delete(ctx, k); err != nil {
			if w.Logger != nil {
				w.Logger.Warn("delete model source", "submission", id, "err", err)
			}
			return
		}
	}
	if _, err := w.DB.Exec(ctx, `UPDATE product_models SET source_keys = '{}' WHERE id = $1`, id); err != nil && w.Logger != nil {
		w.Logger.Warn("mark model sources deleted", "submission", id, "err", err)
	}
}

// readModel reads the product's current model (checks).
func (s *Service) readModel(ctx context.Context, p Product) ([]byte, error) {
	if s.blobs == nil || p.ModelKey == "" {
		return nil, nil
	}
	return s.blobs.Read(ctx, p.ModelKey, 2*reconstruct.MaxModelUploadBytes)
}
