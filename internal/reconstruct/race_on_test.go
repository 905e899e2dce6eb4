//go:build race

package reconstruct

// raceDetector reports whether the tests were built with -race: the CPU-bound
// real-product regression runs without it (ops/test.sh runs it separately), as
// the detector slows the reconstructor five- to tenfold and tests nothing there
// that the race run of the other tests does not.
const raceDetector = true
