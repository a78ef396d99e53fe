package solver

import (
	"context"
	"math"
	"testing"
)

// TestPolishIndefiniteHessian: a nonconvex problem whose Lagrangian
// Hessian is indefinite at the solution while the Hessian reduced to the
// active constraints' null space is positive definite (the fairness
// disparity, a difference of two losses, does this on conic Table 3).
// Party 0: f_0 = (s/2)(w_1 - a)² + ½(w_2 - b)², -1 <= w_1 <= 1
// (c = (w_1 - 1, -w_1 - 1) <= 0); party 1: f_1 = ½(w_3 - e)² + ½w_3²,
// unconstrained. With s = -1, a = 0 the solution is w_1 = ±1, μ = 1 on
// that bound, and ∇²L = diag(-1, 1, 2): Newton's KKT step needs
// H + γJ_AᵀJ_A, for H alone has no Cholesky factor. The oracle is the
// closed-form KKT point.
func TestPolishIndefiniteHessian(t *testing.T) {
	const b, e = 0.3, 0.8
	for _, c := range []struct {
		name   string
		s, a   float64
		w0     []float64
		mu0    []float64
		w1, mu []float64 // w_1* and party 0's μ*
	}{
		{"concave, upper bound", -1, 0, []float64{0.98, 0.2, 0.1}, []float64{0.6, 0}, []float64{1}, []float64{1, 0}},
		{"concave, lower bound", -1, 0, []float64{-0.95, 0.5, 0.6}, []float64{0, 1.3}, []float64{-1}, []float64{0, 1}},
		{"concave, off-centre", -2, 0.2, []float64{0.97, 0.25, 0.3}, []float64{1.5, 0}, []float64{1}, []float64{1.6, 0}},
		{"convex (H itself factors)", 1, 2, []float64{0.9, 0.2, 0.1}, []float64{0.5, 0}, []float64{1}, []float64{1, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			own := [][]float64{c.mu0, nil}
			oracle := func(_ context.Context, w []float64, mu [][]float64) ([]polishPart, [][]float64, error) {
				m0 := own[0]
				if mu != nil {
					m0 = mu[0]
				}
				p0 := polishPart{
					F:       c.s/2*(w[0]-c.a)*(w[0]-c.a) + (w[1]-b)*(w[1]-b)/2,
					LagGrad: []float64{c.s*(w[0]-c.a) + m0[0] - m0[1], w[1] - b, 0},
					C:       []float64{w[0] - 1, -w[0] - 1},
					Jac:     []float64{1, 0, 0, -1, 0, 0},
					Hess:    []float64{c.s, 0, 0, 0, 1, 0, 0, 0, 0},
				}
				p1 := polishPart{
					F:       (w[2]-e)*(w[2]-e)/2 + w[2]*w[2]/2,
					LagGrad: []float64{0, 0, 2*w[2] - e},
					Hess:    []float64{0, 0, 0, 0, 0, 0, 0, 0, 2},
				}
				var ret [][]float64
				if mu == nil {
					ret = [][]float64{append([]float64(nil), own[0]...), nil}
				}
				return []polishPart{p0, p1}, ret, nil
			}
			const eps = 1e-9
			pr, err := polishKKT(context.Background(), 3, c.w0, []Cone{NonNeg(2), nil}, 10, eps, eps, oracle)
			if err != nil {
				t.Fatal(err)
			}
			want := []float64{c.w1[0], b, e / 2}
			if !pr.OK {
				t.Fatalf("not polished: %+v after %d steps", pr.Residuals, pr.Iterations)
			}
			for j := range want {
				if math.Abs(pr.W[j]-want[j]) > 1e-8 {
					t.Errorf("w = %v, want %v", pr.W, want)
					break
				}
			}
			for j := range c.mu {
				if math.Abs(pr.Mu[0][j]-c.mu[j]) > 1e-8 {
					t.Errorf("μ_0 = %v, want %v", pr.Mu[0], c.mu)
					break
				}
			}
			if pr.Iterations > 5 {
				t.Errorf("%d Newton steps on a problem quadratic near its solution", pr.Iterations)
			}
		})
	}
}

// TestPolishStalled: the stall trigger of the polish on sequences of test
// (11)'s residual over its tolerance (window 10).
func TestPolishStalled(t *testing.T) {
	geom := func(t0, q float64, k int) []float64 { // t0·q^j, j < k
		out := make([]float64, k)
		for j := range out {
			out[j] = t0 * math.Pow(q, float64(j))
		}
		return out
	}
	for _, c := range []struct {
		name  string
		t     []float64
		since int
		want  bool
	}{
		{"too few steps", geom(5, 1, 10), 100, false},
		{"flat far from the test", geom(5, 1, 11), 100, true},
		{"flat, polished in this window", geom(5, 1, 30), 9, false},
		{"flat, polished a window ago", geom(5, 1, 30), 10, true},
		// q^10 = 0.35: halves per window.
		{"fast linear", geom(50, 0.9, 25), 100, false},
		// b_0 = 2.45, b_1 = 2.0: not halved, and 2.0² > 2.45.
		{"creeping", geom(3, 0.98, 21), 100, true},
		// b_0 = 1.14, b_1 = 0.94: 0.94² < 1.14, the next window passes.
		{"creeping, nearly there", geom(1.4, 0.98, 21), 100, false},
		// An oscillating residual: its best is what counts.
		{"oscillating", []float64{9, 4, 6, 3, 5, 3.5, 4, 3.2, 6, 3.1, 4, 3.3, 5, 2.9, 4, 3.6, 3.1, 5, 3, 4, 3.4}, 100, true},
	} {
		if got := polishStalled(c.t, c.since); got != c.want {
			t.Errorf("%s: polishStalled = %v, want %v", c.name, got, c.want)
		}
	}
}
