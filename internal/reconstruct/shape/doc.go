// Package shape builds a closed model from one silhouette, where the hidden side
// must be inferred from the outline alone.
//
// ClassifySilhouette reads what kind of product the outline shows (a round body, a
// box, furniture on legs, flat goods) and so how deep it is (depthprior.go). Each
// kind has its builder: FitLathe/BuildLathe (a surface of revolution, with the
// camera read from its rims, view.go, and lamp shades over stems, overhang.go),
// FitCuboid/BuildCuboid (a box seen from above at an angle), FitHandle (a mug's
// body and handle), BuildInflate (Poisson inflation of any outline) and
// BuildClassShape (furniture and flat goods, with rear legs). Every part it builds
// is a closed, outward-facing mesh.
package shape
