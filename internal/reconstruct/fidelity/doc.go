// Package fidelity scores, from 0 to 100, how closely a finished model matches its
// photo. One photo cannot prove a model right but can prove it wrong: re-rendered
// through the camera that took the photo (EstimateCamera), a faithful model covers
// the photo's mask and shows its colours (Score). Where the photo leaves the depth
// to a guess, the score is capped (ShapeCap, MaskCap), so a guessed shape always
// scores under WarnBelow and the merchant is told LowFidelityAdvice. RemoteFidelity
// scores a GPU server's model the same way.
package fidelity
