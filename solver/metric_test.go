package solver

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// diagParty is f(w) = ½Σ_j h_j w_j², no constraint: a party whose Hessian
// has the chosen signs, handled by the smooth (not the exact) solver.
type diagParty struct{ h []float64 }

func (p diagParty) Cone() Cone { return nil }
func (p diagParty) Eval(w, grad, _, _ []float64) float64 {
	var f float64
	for j, v := range w {
		f += p.h[j] * v * v / 2
		if grad != nil {
			grad[j] = p.h[j] * v
		}
	}
	return f
}
func (p diagParty) Hessian(dst *mat.SymDense, _, _ []float64) {
	for j, v := range p.h {
		dst.SetSym(j, j, dst.At(j, j)+v)
	}
}

// TestMetricEigenvalues: the matrix penalty has eigenvalue h + σ where P_i
// has curvature h > 0 and 3|h| + σ where h < 0, so that (19)'s Hessian
// ∇²P_i + M_i is positive definite and the ADMM contracts by about ½ along
// every eigenvector (docs/rho-rules.md).
func TestMetricEigenvalues(t *testing.T) {
	const (
		beta, sigma = 10.0, 0.01
		parties     = 2 // proximal share 1/(2β) = 0.05
	)
	prox := 1 / (parties * beta)
	for _, tc := range []struct {
		name string
		h    []float64
	}{
		{"convex", []float64{2, 0.5, 1e-3}},
		{"indefinite", []float64{2, -1, 0.5}},
		{"negative", []float64{-0.3, -4, -0.2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewClientNode(diagParty{tc.h}, ClientConfig{Dim: len(tc.h), Parties: parties, Beta: beta, Rho: 1,
				Rule: RhoHessian, MetricShift: sigma, Smooth: &Newton{}})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := c.Handle(&Broadcast{Kind: MsgStart, W: make([]float64, len(tc.h))})
			if err != nil {
				t.Fatal(err)
			}
			d := len(tc.h)
			if len(rep.Metric) != d*d {
				t.Fatalf("metric of %d entries, want %d", len(rep.Metric), d*d)
			}
			for a := 0; a < d; a++ {
				for b := 0; b < d; b++ {
					got := rep.Metric[a*d+b]
					want := 0.0
					if a == b {
						// Curvature of P_i along e_a: h_a plus the proximal share.
						h := tc.h[a] + prox
						want = h + sigma
						if h < 0 {
							want = 3*-h + sigma
						}
						want = max(want, prox+sigma)
						if lh := h + got; !(lh > 0) {
							t.Errorf("e_%d: (19) has curvature %v, want > 0", a, lh)
						}
						if f := math.Abs(h / (got + h)); f > 0.5+1e-12 {
							t.Errorf("e_%d: contraction |h/(m+h)| = %v > ½", a, f)
						}
					}
					if math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
						t.Errorf("M[%d][%d] = %v, want %v", a, b, got, want)
					}
				}
			}
		})
	}
}
