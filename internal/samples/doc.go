// Package samples builds the bundled demo models of the /demo viewer (spec §2 "Demo
// viewer"): bed, exploded bed, table, wallbed, puffin and bumblee, each as a GLB and
// a reference image.
//
// The samples are modelled procedurally here instead of being downloaded or drawn by
// hand, so that every byte we ship is ours (no licence to track), can be rebuilt with
// `go run ./cmd/worker samples`, and is checked by tests: every model must pass the
// Khronos validator, every part must be a closed, outward-facing mesh, and the files
// committed under web/public/demo must equal what the generator writes now.
//
// Geometry follows the glTF conventions the viewer relies on: metres, +Y up, +Z the
// front, origin at the centre of the model's base. Materials are plain PBR
// metallic-roughness colours; a model has no textures, which keeps each GLB small.
//
// The reference image is a software render of the same geometry (a z-buffered
// rasteriser with Lambert shading and a soft ground shadow) rather than a photo,
// because the demo only needs "what this model should look like" next to the viewer
// and the render cannot drift from the mesh. After projecting and lighting vertices the
// rasteriser works in fixed-point integers, so the small floating-point differences
// between CPUs (fused multiply-add on arm64) practically never reach a pixel and the
// committed images stay reproducible.
package samples
