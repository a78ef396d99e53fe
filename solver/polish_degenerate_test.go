package solver

import (
	"context"
	"math"
	"testing"
)

// TestPolishDependentConstraints: three constraints active at the solution
// of a problem in two variables, so their gradients are dependent there
// (no LICQ) and the multipliers form a segment. Party 0: f_0 = ½||w - a||²,
// w_1 <= 1, w_2 <= 1; party 1: f_1 = 0, ½||w||² <= 1 (through (1, 1)). The
// solution is w* = (1, 1) for a = (3, 2); μ_0 + μ_1·(1, 1) = (2, 1). Off w*
// the linearised constraints are inconsistent at second order, which sent
// a regularised Schur solve's dμ to ~1/δ along null(J_Aᵀ), and the sign
// clip of one multiplier broke every step (the polish failed where every
// client's NP constraint is active, monks-1 at n = 100). The oracle is the
// closed form: w*, and the stationarity residual recomputed here.
func TestPolishDependentConstraints(t *testing.T) {
	a := []float64{3, 2}
	for _, c := range []struct {
		name string
		w0   []float64
		mu0  [][]float64
	}{
		{"off in w_1", []float64{1.01, 0.995}, [][]float64{{1.2, 0.3}, {0.7}}},
		{"off in both", []float64{0.99, 1.003}, [][]float64{{1.5, 0.4}, {0.4}}},
		{"multipliers on the ball", []float64{1.002, 1.002}, [][]float64{{0.2, 0.05}, {1.0}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			oracle := func(_ context.Context, w []float64, mu [][]float64) ([]polishPart, [][]float64, error) {
				m := c.mu0
				if mu != nil {
					m = mu
				}
				p0 := polishPart{
					F:       ((w[0]-a[0])*(w[0]-a[0]) + (w[1]-a[1])*(w[1]-a[1])) / 2,
					LagGrad: []float64{w[0] - a[0] + m[0][0], w[1] - a[1] + m[0][1]},
					C:       []float64{w[0] - 1, w[1] - 1},
					Jac:     []float64{1, 0, 0, 1},
					Hess:    []float64{1, 0, 0, 1},
				}
				p1 := polishPart{
					LagGrad: []float64{m[1][0] * w[0], m[1][0] * w[1]},
					C:       []float64{(w[0]*w[0]+w[1]*w[1])/2 - 1},
					Jac:     []float64{w[0], w[1]},
					Hess:    []float64{m[1][0], 0, 0, m[1][0]},
				}
				var ret [][]float64
				if mu == nil {
					ret = [][]float64{append([]float64(nil), c.mu0[0]...), append([]float64(nil), c.mu0[1]...)}
				}
				return []polishPart{p0, p1}, ret, nil
			}
			const eps = 1e-10
			pr, err := polishKKT(context.Background(), 2, c.w0, []Cone{NonNeg(2), NonNeg(1)}, 10, eps, eps, oracle)
			if err != nil {
				t.Fatal(err)
			}
			if !pr.OK {
				t.Fatalf("not polished: %+v after %d steps", pr.Residuals, pr.Iterations)
			}
			if math.Abs(pr.W[0]-1) > 1e-9 || math.Abs(pr.W[1]-1) > 1e-9 {
				t.Errorf("w = %v, want (1, 1)", pr.W)
			}
			m0, m1 := pr.Mu[0], pr.Mu[1]
			for j, g := range []float64{pr.W[0] - a[0] + m0[0] + m1[0]*pr.W[0], pr.W[1] - a[1] + m0[1] + m1[0]*pr.W[1]} {
				if math.Abs(g) > 1e-9 {
					t.Errorf("stationarity %d: %.2e at μ = %v", j, g, pr.Mu)
				}
			}
			if min(m0[0], m0[1], m1[0]) < 0 {
				t.Errorf("μ = %v: negative", pr.Mu)
			}
			if pr.Iterations > 6 {
				t.Errorf("%d Newton steps", pr.Iterations)
			}
		})
	}
}
