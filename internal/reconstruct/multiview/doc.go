// Package multiview builds a model from several photos of one product.
//
// Each photo becomes a View (decoded, segmented, with a loose mask that keeps what
// the strict one may have cut as shadow, masks.go). EstimatePoses searches the
// cameras the merchant did not state exactly (azimuth given roughly, elevation,
// distance and aim unknown) by silhouette coherence: posed right, every view's
// cone agrees with the others' hull (pose.go). CarveMesh carves the visual hull
// from the masks (carve.go), takes back a part one view lost where the other views
// agree it is there (takeback.go, choose.go), stands it on the ground (ground.go),
// and TextureViews paints each triangle from the view that sees it best
// (texture.go).
package multiview
