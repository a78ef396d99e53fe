package recheck

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/solver"
)

// TestSOCNormalDist: Definition 1's second-order-cone residual on hand
// examples, one per case of the normal cone (μ = 0, interior, boundary).
func TestSOCNormalDist(t *testing.T) {
	for _, c := range []struct {
		name  string
		c, mu []float64
		want  float64
	}{
		// c = (-2, 1, 0) lies in -K (||(1, 0)|| <= 2): distance 0.
		{"μ = 0, c in -K", []float64{-2, 1, 0}, []float64{0, 0, 0}, 0},
		// c = (0, 2): φ(t) = -t + (2 - t) = 0 at t = 1, the box point (-1, 1) ∈ -K.
		{"μ = 0, c outside -K", []float64{0, 2}, []float64{0, 0}, 1},
		// μ = (2, 1) interior: N = {0}, ||c||_∞.
		{"interior", []float64{0.5, -0.75}, []float64{2, 1}, 0.75},
		// μ = (1, 1) on the boundary: N = {λ(-1, 1)}; c = (-3, 3) is on the ray (λ = 3).
		{"boundary, c on the ray", []float64{-3, 3}, []float64{1, 1}, 0},
		// c = (-1, 3): min_λ max(|-1 + λ|, |3 - λ|) = 1 at λ = 2.
		{"boundary, c off the ray", []float64{-1, 3}, []float64{1, 1}, 1},
		// c = (2, -1): both coordinates grow with λ >= 0 away from 0: λ = 0, ||c||_∞ = 2.
		{"boundary, λ = 0", []float64{2, -1}, []float64{1, 1}, 2},
	} {
		if got := SOCNormalDist(c.c, c.mu); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("%s: %.17g, want %g", c.name, got, c.want)
		}
	}
}

// TestSOCAgreesWithSolver: on random points of every case, the plain
// residual and violation agree with the solver's (solver.SOC: bisection
// and ternary search, not the exact enumeration of rayDist) within the
// gate's rounding bound Gamma·(1 + max|c|); they differ by at most
// 2.1e-16·(1 + max|c|) here.
func TestSOCAgreesWithSolver(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	for it := range 3000 {
		m := 2 + it%4
		c := make([]float64, m)
		for j := range c {
			c[j] = rng.NormFloat64() * math.Pow(10, float64(it%3-1))
		}
		x := make([]float64, m-1)
		for j := range x {
			x[j] = rng.NormFloat64()
		}
		mu := make([]float64, m)
		copy(mu[1:], x)
		switch it % 3 {
		case 0: // zero
			clear(mu)
		case 1: // interior
			mu[0] = norm2(x) * (1.5 + rng.Float64())
		case 2: // boundary, as a projection leaves it
			solver.SOC(m).ProjectDual(mu, append([]float64{-0.3 * norm2(x)}, x...))
		}
		scale := 1 + normInf(c)
		if got, want := SOCNormalDist(c, mu), solver.SOC(m).NormalDist(c, mu); math.Abs(got-want) > Gamma*scale {
			t.Fatalf("c %v, μ %v: residual %.17g, solver %.17g", c, mu, got, want)
		}
		p := Party{C: c, Blocks: []Block{{SecondOrder, m}}}
		if got, want := p.Violation(), solver.Violation(solver.SOC(m), c); math.Abs(got-want) > Gamma*scale {
			t.Fatalf("c %v: violation %.17g, solver %.17g", c, got, want)
		}
	}
}

// TestKKTBlocks: a party with a zero-cone and a second-order-cone block:
// stationarity sums every multiplier's gradient, feasibility takes each
// block's residual, and a multiplier outside the second-order cone or
// blocks that do not cover the constraints are refused.
func TestKKTBlocks(t *testing.T) {
	p := Party{Grad: []float64{1, 0}, C: []float64{0.5, -2, 1, 0}, Jac: [][]float64{{1, 0}, {0, 0}, {-1, 0}, {0, -1}},
		Blocks: []Block{{ZeroCone, 1}, {SecondOrder, 3}}}
	for _, c := range []struct {
		name       string
		mu         []float64
		blocks     []Block
		stat, feas float64
		err        string
	}{
		// g = (1, 0) + 1·(1, 0) + 0 + 0 = (2, 0); feasibility: |0.5| and (-2, 1, 0) ∈ -K at μ = 0.
		{"soc multiplier zero", []float64{1, 0, 0, 0}, nil, 2, 0.5, ""},
		// g = (1, 0) - 2·(1, 0) + 3·(-1, 0) + 0 = (-4, 0); μ_soc = (3, 3, 0) on the boundary:
		// min_λ ||(-2, 1, 0) - λ(-3, 3, 0)||_∞ = max(|-2+3λ|, |1-3λ|) is 0.5 at λ = 1/2.
		{"soc multiplier on the boundary", []float64{-2, 3, 3, 0}, nil, 4, 0.5, ""},
		{"outside the second-order cone", []float64{0, 1, 2, 0}, nil, 0, 0, "outside the dual cone (second-order)"},
		{"blocks short", []float64{0, 0, 0, 0}, []Block{{ZeroCone, 1}, {SecondOrder, 2}}, 0, 0, "cover 3 of its 4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := p
			if c.blocks != nil {
				q.Blocks = c.blocks
			}
			stat, feas, _, _, err := KKT([]Party{q}, [][]float64{c.mu})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || math.Abs(stat-c.stat) > 1e-15 || math.Abs(feas-c.feas) > 1e-15 {
				t.Fatalf("(%g, %g, %v), want (%g, %g)", stat, feas, err, c.stat, c.feas)
			}
		})
	}
}
