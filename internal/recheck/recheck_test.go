package recheck

import (
	"math"
	"strings"
	"testing"
)

// TestSoftplusSigmoid: the stable forms against closed forms where those
// are exact in float64, and at the extremes where the naive ones overflow.
func TestSoftplusSigmoid(t *testing.T) {
	for _, c := range []struct {
		z, softplus, sigmoid float64
	}{
		{0, math.Ln2, 0.5},
		{1, math.Log(1 + math.E), 1 / (1 + math.Exp(-1))},
		{-1, math.Log(1 + math.Exp(-1)), math.Exp(-1) / (1 + math.Exp(-1))},
		{800, 800, 1},                       // e^800 overflows: softplus(z) = z to float64 precision
		{-800, 0, 0},                        // e^-800 underflows to 0
		{40, 40 + 4.248354255291589e-18, 1}, // z + e^-z
	} {
		if got := Softplus(c.z); math.Abs(got-c.softplus) > 1e-15*math.Max(1, c.softplus) {
			t.Errorf("Softplus(%g) = %.17g, want %.17g", c.z, got, c.softplus)
		}
		if got := Sigmoid(c.z); math.Abs(got-c.sigmoid) > 1e-15 {
			t.Errorf("Sigmoid(%g) = %.17g, want %.17g", c.z, got, c.sigmoid)
		}
	}
}

// TestLogistic: a two-row example by hand, and its gradient against
// central differences.
func TestLogistic(t *testing.T) {
	x := [][]float64{{1, 2}, {-1, 0.5}}
	y := []float64{0, 1}
	w := []float64{0.3, -0.2}
	// z = (-0.1, -0.4): (softplus(-0.1) + softplus(-0.4) + 0.4)/2.
	want := (math.Log1p(math.Exp(-0.1)) + math.Log1p(math.Exp(-0.4)) + 0.4) / 2
	f, g := Logistic(x, y, w)
	if math.Abs(f-want) > 1e-15 {
		t.Errorf("loss %.17g, want %.17g", f, want)
	}
	const h = 1e-6
	for j := range w {
		wp, wm := append([]float64(nil), w...), append([]float64(nil), w...)
		wp[j] += h
		wm[j] -= h
		fp, _ := Logistic(x, y, wp)
		fm, _ := Logistic(x, y, wm)
		// Central differences: error O(h²·f''') + O(u/h), about 1e-10 here.
		if d := (fp - fm) / (2 * h); math.Abs(d-g[j]) > 1e-8 {
			t.Errorf("∂/∂w%d = %.12g, differences %.12g", j, g[j], d)
		}
	}
	if f, g := Logistic(nil, nil, w); f != 0 || g[0] != 0 || g[1] != 0 {
		t.Errorf("no rows: %g, %v", f, g)
	}
}

// TestKKT: Definition 1's residuals of a hand example, and the refusals.
func TestKKT(t *testing.T) {
	parties := []Party{
		{Grad: []float64{0, 0}},
		{F: 1, Grad: []float64{1, -2}, C: []float64{-0.5, 0.25}, Jac: [][]float64{{1, 0}, {0, 4}}},
	}
	for _, c := range []struct {
		name       string
		mu         [][]float64
		stat, feas float64
		err        string
	}{
		// g = (1, -2) + 0·(1, 0) + 0.5·(0, 4) = (1, 0); c_2 = 0.25 > 0 with μ_2 > 0: |c_2|.
		{"active", [][]float64{{}, {0, 0.5}}, 1, 0.25, ""},
		// μ = 0: feasibility is max(c, 0) = 0.25; μ_1 = 2 > 0 makes c_1 count: |-0.5|.
		{"inactive", [][]float64{{}, {2, 0}}, 3, 0.5, ""},
		{"negative μ", [][]float64{{}, {-1, 0}}, 0, 0, "outside the dual cone"},
		{"short μ", [][]float64{{}, {1}}, 0, 0, "1 multipliers for 2 constraints"},
		{"missing block", [][]float64{{0, 0}}, 0, 0, "1 multiplier blocks for 2 parties"},
	} {
		t.Run(c.name, func(t *testing.T) {
			stat, feas, _, _, err := KKT(parties, c.mu)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || stat != c.stat || feas != c.feas {
				t.Fatalf("(%g, %g, %v), want (%g, %g)", stat, feas, err, c.stat, c.feas)
			}
		})
	}
}

// TestFair: the disparity constraints of eq. (32) on a hand example.
func TestFair(t *testing.T) {
	x := [][]float64{{1}, {2}, {-1}}
	y := []float64{1, 0, 1}
	g := []int{0, 0, 1}
	w := []float64{0.5}
	l0, _ := Logistic(x[:2], y[:2], w)
	l1, _ := Logistic(x[2:], y[2:], w)
	all, _ := Logistic(x, y, w)
	p, loss, disp := Fair(x, y, g, 0.5, 0.1, w)
	if loss != all || p.F != 0.5*all || disp != math.Abs(l0-l1) || p.C[0] != l0-l1-0.1 || p.C[1] != l1-l0-0.1 {
		t.Fatalf("party %+v, loss %g, disparity %g; L0 %g, L1 %g", p, loss, disp, l0, l1)
	}
	if p.Jac[0][0] != -p.Jac[1][0] {
		t.Fatalf("the two constraints' gradients are not opposite: %v", p.Jac)
	}
}

// TestEqQP: min ½(w1² + w2²) + w1 subject to w1 + w2 = 1, by hand:
// w* = (0, 1), ν* = -1 (∇f + Cᵀν = (1, 1) + ν(1, 1) = 0), f* = ½; a
// singular H is refused.
func TestEqQP(t *testing.T) {
	p := []QPData{{A: [][]float64{{1, 0}, {0, 1}}, B: []float64{1, 0}, C: [][]float64{{1, 1}}, D: []float64{-1}}}
	w, nu, f, err := EqQP(p, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Exact in float64 up to a few roundings of numbers near 1.
	const tol = 1e-15
	if math.Abs(w[0]) > tol || math.Abs(w[1]-1) > tol || math.Abs(nu[0]+1) > tol || math.Abs(f-0.5) > tol {
		t.Errorf("w* %v, ν* %v, f* %v; want (0, 1), -1, 0.5", w, nu, f)
	}
	if _, _, _, err := EqQP([]QPData{{A: [][]float64{{1, 0}, {0, 0}}, C: [][]float64{{1, 0}}, D: []float64{0}}}, 2); err == nil {
		t.Error("singular H accepted")
	}
}
