package channels

import "github.com/photo3d/photo3d/internal/channels/fit"

// The budgets and the fitting live in internal/channels/fit (pure compute,
// tested without race instrumentation); these names keep the package's
// callers as they were.
type Budget = fit.Budget

var (
	WebBudget       = fit.WebBudget
	CommerceBudget  = fit.CommerceBudget
	QuickLookBudget = fit.QuickLookBudget
	ErrCannotFit    = fit.ErrCannotFit
)

// FitGLB is fit.FitGLB.
func FitGLB(glb []byte, b Budget) ([]byte, []string, error) { return fit.FitGLB(glb, b) }

// FitUSDZ is fit.FitUSDZ.
func FitUSDZ(glb []byte, b Budget) ([]byte, []string, error) { return fit.FitUSDZ(glb, b) }
