package solver

import (
	"math"
	"testing"
)

func TestConeProjections(t *testing.T) {
	cases := []struct {
		name string
		k    Cone
		v    []float64
		want []float64
	}{
		{"nonneg mixed", NonNeg(4), []float64{-1, 0, 2.5, -1e-300}, []float64{0, 0, 2.5, 0}},
		{"nonneg all positive", NonNeg(2), []float64{1, 3}, []float64{1, 3}},
		{"zero cone: dual is R^m", Zero(3), []float64{-1, 0, 2}, []float64{-1, 0, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := make([]float64, len(c.v))
			c.k.ProjectDual(got, c.v)
			for j := range got {
				if got[j] != c.want[j] {
					t.Fatalf("Proj = %v, want %v", got, c.want)
				}
			}
			// Projection is idempotent, and aliasing dst = v is allowed.
			c.k.ProjectDual(got, got)
			for j := range got {
				if got[j] != c.want[j] {
					t.Fatalf("not idempotent: %v", got)
				}
			}
		})
	}
}

func TestNormalDist(t *testing.T) {
	cases := []struct {
		name  string
		k     Cone
		c, mu []float64
		want  float64
	}{
		// μ_j > 0 needs c_j = 0 (complementarity); μ_j = 0 needs c_j <= 0.
		{"nonneg active", NonNeg(2), []float64{-0.1, 0.2}, []float64{1, 0}, 0.2},
		{"nonneg slack ok", NonNeg(2), []float64{-5, -1}, []float64{0, 0}, 0},
		{"nonneg complementarity", NonNeg(1), []float64{-0.3}, []float64{2}, 0.3},
		{"zero cone", Zero(2), []float64{0.1, -0.4}, []float64{3, -2}, 0.4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.k.NormalDist(c.c, c.mu); math.Abs(got-c.want) > 1e-15 {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestMultiplierAndALTerm checks μ ← Proj_{K*}(μ + βc) and the AL term
// (1/2β)(||Proj(μ+βc)||² - ||μ||²) on hand-computed values, and the AL
// gradient against central finite differences.
func TestMultiplierAndALTerm(t *testing.T) {
	// c(w) = (w0 - 1, w0 + w1) on R², f = 0.
	p := &linParty{}
	m := newMerit(p, 2, 2, 0.5, []float64{0.5, 0})
	copy(m.center, []float64{0, 0})
	w := []float64{0.5, -1}
	v, err := m.funcGrad(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	// μ + βc = (0.5 + 2(-0.5), 0 + 2(-0.5)) = (-0.5, -1) → y = (0, 0):
	// AL = (0 - 0.25)/4 = -0.0625; prox = 0.25·(0.25 + 1) = 0.3125.
	if want := -0.0625 + 0.3125; math.Abs(v-want) > 1e-15 {
		t.Fatalf("P(w) = %v, want %v", v, want)
	}
	w = []float64{2, 1}
	m.eval(w, false)
	if step := m.updateMultiplier(); math.Abs(step-6) > 1e-15 || m.mu[0] != 2.5 || m.mu[1] != 6 {
		t.Fatalf("μ = %v step %v, want (2.5, 6) step 6", m.mu, step)
	}
	// Finite differences of P at a point where both components are active.
	g := make([]float64, 2)
	w = []float64{0.3, 0.9}
	if _, err := m.funcGrad(w, g); err != nil {
		t.Fatal(err)
	}
	const h = 1e-6
	for j := range w {
		wp, wm := append([]float64(nil), w...), append([]float64(nil), w...)
		wp[j] += h
		wm[j] -= h
		fp, _ := m.funcGrad(wp, nil)
		fm, _ := m.funcGrad(wm, nil)
		// Central differences of a piecewise quadratic: error O(h²)·curvature.
		if fd := (fp - fm) / (2 * h); math.Abs(fd-g[j]) > 1e-6 {
			t.Errorf("∂P/∂w%d = %v, finite difference %v", j, g[j], fd)
		}
	}
}

type linParty struct{}

func (linParty) Cone() Cone { return NonNeg(2) }
func (linParty) Eval(w, grad, c, jac []float64) float64 {
	if grad != nil {
		clear(grad)
	}
	c[0], c[1] = w[0]-1, w[0]+w[1]
	if jac != nil {
		copy(jac, []float64{1, 0, 1, 1})
	}
	return 0
}

func TestStatusTable(t *testing.T) {
	for s := NotTerminated; s <= Canceled; s++ {
		if s.String() == "" {
			t.Errorf("status %d has no name", s)
		}
		var back Status
		b, _ := s.MarshalText()
		if err := back.UnmarshalText(b); err != nil || back != s {
			t.Errorf("%v does not round-trip", s)
		}
		if (s.Err() == nil) != (s == Converged) {
			t.Errorf("%v: Err() = %v", s, s.Err())
		}
	}
}
