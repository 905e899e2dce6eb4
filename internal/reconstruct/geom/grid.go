package geom

// VoxGrid is a box of cubic voxels in world units.
type VoxGrid struct {
	Lo         [3]float64
	S          float64 // voxel side
	Nx, Ny, Nz int
}

func (g VoxGrid) Centre(i, j, k int) [3]float64 {
	return [3]float64{g.Lo[0] + (float64(i)+0.5)*g.S, g.Lo[1] + (float64(j)+0.5)*g.S, g.Lo[2] + (float64(k)+0.5)*g.S}
}
