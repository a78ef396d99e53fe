package solver_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fedcon/fedcon/solver"
)

// pseudoHuber is Σ_j sqrt(1 + x_j²): convex, with a curvature that
// vanishes far out, where Newton's step overshoots by orders of magnitude.
type pseudoHuber struct{}

func (pseudoHuber) FuncGrad(x, g []float64) float64 {
	var f float64
	for j, v := range x {
		s := math.Sqrt(1 + v*v)
		f += s
		if g != nil {
			g[j] = v / s
		}
	}
	return f
}

func (pseudoHuber) Hessian(dst *mat.SymDense, x []float64) bool {
	for j, v := range x {
		dst.SetSym(j, j, math.Pow(1+v*v, -1.5))
	}
	return true
}

// TestNewtonHandsOverToLBFGS: far out on the tails a fresh Newton step
// fails every halving of its line search; Newton must then go on with
// L-BFGS and reach the tolerance, not stop short of it (it used to).
func TestNewtonHandsOverToLBFGS(t *testing.T) {
	x := []float64{1000, -2000}
	st := (&solver.Newton{}).Minimize(pseudoHuber{}, x, 1e-8, 500)
	if !st.Converged || st.GradNorm > 1e-8 || math.Abs(x[0]) > 1e-7 || math.Abs(x[1]) > 1e-7 {
		t.Errorf("stats %+v at x = %v", st, x)
	}
}
