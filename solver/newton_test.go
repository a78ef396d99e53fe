package solver_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats"
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

// alWall is (σ/2)||x||² − a·x_0 + (β/2)·max(0, c(x))² with c(x) = x_0 +
// ½Σ_{j≥1} x_j² − b: a client's subproblem with few rows, where the prox-AL
// metric gives only σ of curvature and the constraint's AL term switches on
// far inside Newton's first step (x_0 = a/σ = 175 unconstrained, the wall
// at b). At the optimum x_j = 0 for j ≥ 1 and σx_0 − a + β(x_0 − b) = 0.
type alWall struct{ sigma, a, beta, b float64 }

func (p alWall) c(x []float64) float64 {
	v := x[0] - p.b
	for _, xj := range x[1:] {
		v += 0.5 * xj * xj
	}
	return v
}

func (p alWall) FuncGrad(x, g []float64) float64 {
	v := max(0, p.c(x))
	f := -p.a*x[0] + 0.5*p.beta*v*v
	for j, xj := range x {
		f += 0.5 * p.sigma * xj * xj
		if g != nil {
			g[j] = p.sigma*xj + p.beta*v*xj
		}
	}
	if g != nil {
		g[0] = p.sigma*x[0] - p.a + p.beta*v
	}
	return f
}

// Hessian is the generalised Hessian: the AL term's curvature only where
// c > 0.
func (p alWall) Hessian(dst *mat.SymDense, x []float64) bool {
	v := p.c(x)
	for i := range x {
		for j := i; j < len(x); j++ {
			dst.SetSym(i, j, 0)
		}
		dst.SetSym(i, i, p.sigma)
	}
	if v <= 0 {
		return true
	}
	// β(∇c∇cᵀ + v∇²c), ∇c = (1, x_1, ..., x_{d-1}), ∇²c = diag(0, 1, ..., 1).
	for i := range x {
		gi := 1.0
		if i > 0 {
			gi = x[i]
		}
		for j := i; j < len(x); j++ {
			gj := 1.0
			if j > 0 {
				gj = x[j]
			}
			h := dst.At(i, j) + p.beta*gi*gj
			if i == j && i > 0 {
				h += p.beta * v
			}
			dst.SetSym(i, j, h)
		}
	}
	return true
}

// TestNewtonALWall: Newton's step from the inactive side overshoots the
// wall by a factor of about 175, beyond its halvings; the bisection on the
// slope must land on the wall and the generalised Hessian there finish.
// It used to hand over to L-BFGS, which with β/σ ~ 1e7 crept to its cap
// in the higher dimensions (a client's local solve "missing" its
// tolerance).
func TestNewtonALWall(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    int
		off  float64 // x_j for j ≥ 1 at the start
		// maxIter, when the theory gives one: on the axis φ is
		// quadratic beyond the wall, so one step lands on the wall and
		// one Newton step with the Hessian there is exact.
		maxIter int
	}{
		{"origin", 2, 0, 2},
		{"origin d=100", 100, 0, 2},
		{"off axis d=2", 2, 0.3, 0},
		{"off axis d=20", 20, 0.3, 0},
		{"off axis d=100", 100, 0.1, 0},
		{"behind the wall d=50", 50, -0.05, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := alWall{sigma: 2e-5, a: 3.5e-3, beta: 300, b: 1}
			x := make([]float64, tc.d)
			for j := 1; j < tc.d; j++ {
				x[j] = tc.off
			}
			st := (&solver.Newton{}).Minimize(p, x, 1e-10, 300)
			want := (p.a + p.beta*p.b) / (p.sigma + p.beta)
			if !st.Converged || math.Abs(x[0]-want) > 1e-9 || math.Abs(floats.Norm(x[1:], math.Inf(1))) > 1e-6 {
				t.Fatalf("stats %+v: x_0 = %.12g (want %.12g), max |x_j| = %.3g", st, x[0], want, floats.Norm(x[1:], math.Inf(1)))
			}
			if tc.maxIter > 0 && st.Iterations > tc.maxIter {
				t.Errorf("%d Newton iterations, want at most %d", st.Iterations, tc.maxIter)
			}
		})
	}
}
