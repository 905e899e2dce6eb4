//go:build !race

package reconstruct

// raceDetector: see race_on_test.go.
const raceDetector = false
