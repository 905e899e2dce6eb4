package job

// HoldSpinSlots takes every free spin-set slot of w, as running spin builds
// would, until release is called, and says how many it took (tests of the
// memory gate).
func (w *ReconstructWorker) HoldSpinSlots() (release func(), taken int) {
	var held []func()
	for {
		r, ok := w.spin.tryAcquire()
		if !ok {
			break
		}
		held = append(held, r)
	}
	return func() {
		for _, r := range held {
			r()
		}
	}, len(held)
}
