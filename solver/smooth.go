package solver

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
)

// SmoothFunc is a smooth function with its gradient in one call; grad may be
// nil when only the value is needed.
type SmoothFunc interface {
	FuncGrad(x, grad []float64) float64
}

// SmoothStats report one smooth minimisation.
type SmoothStats struct {
	Iterations int
	// GradNorm is ||∇φ(x)||_∞ at the returned x.
	GradNorm float64
	// Converged reports GradNorm <= tol.
	Converged bool
}

// SmoothSolver minimises a smooth, strongly convex function from x (updated
// in place) until ||∇φ(x)||_∞ <= tol — the inexactness tests of (18), (19)
// and Algorithm 3 — or maxIter iterations. When rounding prevents further
// progress it returns the best point with Converged false, not an error.
type SmoothSolver interface {
	Minimize(f SmoothFunc, x []float64, tol float64, maxIter int) SmoothStats
}

// LBFGS is the smooth subproblem solver of the authors' code: gonum's
// limited-memory BFGS with a strong-Wolfe line search.
type LBFGS struct {
	// Store is the number of correction pairs; zero means gonum's default (15).
	Store int
}

var _ SmoothSolver = LBFGS{}

// Minimize implements SmoothSolver.
func (l LBFGS) Minimize(f SmoothFunc, x []float64, tol float64, maxIter int) SmoothStats {
	d := len(x)
	// gonum calls Func and Grad separately; one pass computes both, so cache
	// the last point.
	var lastX, lastG []float64
	var lastF float64
	have := false
	eval := func(p []float64) {
		if have && floats.Equal(p, lastX) {
			return
		}
		if lastX == nil {
			lastX, lastG = make([]float64, d), make([]float64, d)
		}
		copy(lastX, p)
		lastF = f.FuncGrad(lastX, lastG)
		have = true
	}
	prob := optimize.Problem{
		Func: func(p []float64) float64 { eval(p); return lastF },
		Grad: func(g, p []float64) { eval(p); copy(g, lastG) },
	}
	g0 := make([]float64, d)
	f0 := f.FuncGrad(x, g0)
	st := SmoothStats{GradNorm: floats.Norm(g0, math.Inf(1))}
	if st.GradNorm <= tol || maxIter <= 0 || math.IsNaN(f0) {
		st.Converged = st.GradNorm <= tol
		return st
	}
	settings := &optimize.Settings{
		InitValues:        &optimize.Location{F: f0, Gradient: g0},
		GradientThreshold: tol,
		MajorIterations:   maxIter,
		Converger:         optimize.NeverTerminate{},
	}
	res, _ := optimize.Minimize(prob, x, settings, &optimize.LBFGS{Store: l.Store, GradStopThreshold: math.NaN()})
	// A failed line search near the tolerance still leaves a valid,
	// improved iterate; keep whichever point has the smaller gradient.
	if res != nil && res.Gradient != nil && !math.IsNaN(res.F) {
		if gn := floats.Norm(res.Gradient, math.Inf(1)); gn < st.GradNorm {
			copy(x, res.X)
			st.GradNorm = gn
		}
		st.Iterations = res.Stats.MajorIterations
	}
	st.Converged = st.GradNorm <= tol
	return st
}
