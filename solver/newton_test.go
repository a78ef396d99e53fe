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

// roundedQuad is ½ Σ_j h_j x_j² as a sum of many rows evaluates it: its
// value and gradient carry deterministic rounding noise (a hash of x) of
// 1e-15 and 1e-12, so below ||∇φ|| ~ 1e-12 neither φ nor ∇φ can show
// progress. It counts its passes.
type roundedQuad struct {
	h      []float64
	passes int
}

func noise(x []float64, salt uint64) float64 {
	h := salt*0x9e3779b97f4a7c15 + 1
	for _, v := range x {
		h ^= math.Float64bits(v)
		h *= 0xbf58476d1ce4e5b9
		h ^= h >> 31
	}
	return float64(h>>11)/(1<<53)*2 - 1
}

func (p *roundedQuad) FuncGrad(x, g []float64) float64 {
	p.passes++
	var f float64
	for j, v := range x {
		f += 0.5 * p.h[j] * v * v
		if g != nil {
			g[j] = p.h[j]*v + 1e-12*noise(x, uint64(j+1))
		}
	}
	return 0.6 + f + 1e-15*noise(x, 0)
}

func (p *roundedQuad) Hessian(dst *mat.SymDense, x []float64) bool {
	p.passes++
	for j, v := range p.h {
		dst.SetSym(j, j, v)
	}
	return true
}

// TestNewtonRoundingFloor: asked for a gradient below what rounding allows
// (Algorithm 2's ε_{t+1} = q^t with no floor reaches 1e-30), Newton must
// stop within a few passes at a point on the floor. It used to accept
// steps on Armijo's test when φ did not change at all (fx + 1e-4·t·gᵀp
// rounds to fx), refactor, and cycle: 101 iterations and 251 passes here.
func TestNewtonRoundingFloor(t *testing.T) {
	for _, tol := range []float64{1e-30, 0} {
		p := &roundedQuad{h: []float64{1e-5, 1e-2, 1, 3}}
		x := []float64{1, -2, 0.5, 0.1}
		st := (&solver.Newton{}).Minimize(p, x, tol, 1000)
		t.Logf("tol %g: ||g|| = %.3g after %d iterations, %d passes", tol, st.GradNorm, st.Iterations, p.passes)
		if st.GradNorm > 1e-11 {
			t.Errorf("tol %g: stopped at ||g|| = %g, above the floor", tol, st.GradNorm)
		}
		if p.passes > 60 {
			t.Errorf("tol %g: %d passes (%d iterations) for a solve limited by rounding", tol, p.passes, st.Iterations)
		}
	}
}
