// Package geom holds the geometry every reconstruction stage shares: Mesh, one
// part's closed triangle mesh (built in working-photo pixels, scaled to metres at
// the end), VoxGrid, a box of cubic voxels, and SurfaceNets with Taubin smoothing,
// which turn a field sampled on a grid (a carved hull) into a closed, smooth mesh.
package geom
