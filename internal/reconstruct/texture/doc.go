// Package texture packs the photo region a model is painted from into one JPEG
// atlas (BuildAtlas: the product's crop, the backdrop filled in by push-pull so no
// backdrop colour bleeds into the model) and maps working-photo pixels to the
// atlas's texture coordinates (UVMapper).
package texture
