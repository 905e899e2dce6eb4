package texture

// UVMapper maps working-photo pixel coordinates to texture coordinates of the atlas,
// which is a crop of the photo around the object.
type UVMapper struct{ X0, Y0, w, h float64 }

func (u UVMapper) At(px, py float64) (float32, float32) {
	return float32((px - u.X0) / u.w), float32((py - u.Y0) / u.h)
}
