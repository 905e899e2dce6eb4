// Package segment turns a photo into the product's silhouette and parts, the first
// stage of every reconstruction: everything after it (shape, texture, thumbnail,
// fidelity) is only as good as its mask.
//
//   - DecodePhoto checks and decodes the photo (EXIF orientation applied, large
//     JPEGs reduced while decoding) to the working size.
//   - Segment takes an alpha channel when the photo has a meaningful one; otherwise
//     it fits a model of the backdrop to the image border and separates the product
//     with a GrabCut-style graph cut (gmm.go, maxflow.go), then recovers what the
//     colour cut loses: parts close to the backdrop's colour (enclose.go), dark parts
//     on a dark sweep (segtint.go), legs, stacked pieces.
//   - SubjectSeparated refuses a photo whose product cannot be told apart
//     (ErrSubjectNotSeparated, shown to the merchant verbatim).
//   - DetectParts splits the silhouette into colour regions (CIELAB k-means), the
//     parts a merchant later configures.
package segment
