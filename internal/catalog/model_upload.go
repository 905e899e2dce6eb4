package catalog

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/blobstore"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

// A merchant's own model (POST /products/{id}/model): validated, normalised
// and thumbnailed by reconstruct.PrepareUploadedModel, stored under a
// content-addressed key (a new model is a new URL, so browsers refetch), and
// made the product's current model by one ProductModelUploaded event. A
// refused file stores nothing and appends nothing.

// ModelContentType is the served type of product models.
const ModelContentType = "model/gltf-binary"

// WithModels gives the service the blob store product files live in (own
// models, and the model read by the preview checks) and the height own models
// are scaled to (MODEL_HEIGHT_METRES; 0 = the reconstructor's default).
func (s *Service) WithModels(blobs *blobstore.Store, heightMetres float64) *Service {
	s.blobs, s.modelHeight = blobs, heightMetres
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

// UploadModel makes files (one .glb, or one .gltf with its .bin and images)
// the product's model. Someone else's product is not found before any file
// is parsed.
func (s *Service) UploadModel(ctx context.Context, userID, productID string, files []reconstruct.ModelFile) (Product, error) {
	if s.blobs == nil {
		return Product{}, errors.New("upload model: no blob store configured")
	}
	if _, err := getProduct(ctx, s.db, userID, productID); err != nil {
		return Product{}, err
	}
	m, err := reconstruct.PrepareUploadedModel(files, s.modelHeight)
	if err != nil {
		return Product{}, modelProblem(err)
	}
	modelKey := productModelKey(userID, productID, m.GLB, "model.glb")
	thumbKey := productModelKey(userID, productID, m.GLB, "thumbnail.png")
	if err := s.blobs.Write(ctx, modelKey, ModelContentType, m.GLB); err != nil {
		return Product{}, err
	}
	if err := s.blobs.Write(ctx, thumbKey, "image/png", m.Thumbnail); err != nil {
		return Product{}, err
	}
	err = s.write(ctx, userID, func(tx pgx.Tx) error {
		if _, err := getProduct(ctx, tx, userID, productID); err != nil {
			return err
		}
		_, err := s.store.Append(ctx, tx, productStream(productID), eventstore.AnyVersion, events.ProductModelUploaded{
			ProductID: productID, ModelKey: modelKey, ThumbnailKey: thumbKey, Filename: m.Filename,
			Bytes: len(m.GLB), Triangles: m.Triangles, At: s.at()})
		return err
	})
	if err != nil {
		return Product{}, err
	}
	return s.Product(ctx, userID, productID)
}

// readModel reads the product's current model (checks).
func (s *Service) readModel(ctx context.Context, p Product) ([]byte, error) {
	if s.blobs == nil || p.ModelKey == "" {
		return nil, nil
	}
	return s.blobs.Read(ctx, p.ModelKey, 2*reconstruct.MaxModelUploadBytes)
}
