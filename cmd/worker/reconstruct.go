package main

import (
	"context"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/photo3d/photo3d/internal/blobstore"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/reconstruct"
	"github.com/photo3d/photo3d/internal/subscription"
)

// reconstructor picks the photo → 3D implementation from RECONSTRUCTOR: the
// built-in CPU pipeline, or a GPU inference server at RECONSTRUCTOR_URL.
func (d *deps) reconstructor() reconstruct.Reconstructor {
	if d.cfg.Reconstructor == "remote" {
		return reconstruct.NewRemote(reconstruct.RemoteConfig{URL: d.cfg.ReconstructorURL, Timeout: d.cfg.ReconstructTimeout})
	}
	return reconstruct.NewBuiltin()
}

// addReconstructWorker registers the reconstruct River worker. The bucket
// stays open for the life of the process.
func (d *deps) addReconstructWorker(w *river.Workers) error {
	blobs, err := blobstore.Open(context.Background(), d.cfg.BlobURL)
	if err != nil {
		return fmt.Errorf("open blob store: %w", err)
	}
	worker := job.NewReconstructWorker(job.WorkerConfig{
		DB:            d.pool,
		Events:        d.store,
		Blobs:         blobs,
		Reconstructor: d.reconstructor(),
		Credits:       subscription.NewService(d.store, subscription.BillingFor(d.cfg.BillingProvider)),
		Options:       job.WorkerOptions(d.cfg.ModelHeightMetres),
		Timeout:       d.cfg.ReconstructTimeout,
		Logger:        d.log,
	})
	return river.AddWorkerSafely(w, worker)
}
