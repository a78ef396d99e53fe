package wdro

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedcon/fedcon/solver/qp"
)

// randClient returns N rows of n features in [−1.2, 1.2] (some outside the
// box, as noisy rows) with labels from a random hyperplane plus noise.
func randClient(rng *rand.Rand, N, n int, rho float64) Client {
	w := make([]float64, n)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	c := Client{Rho: rho}
	for range N {
		x := make([]float64, n)
		var m float64
		for j := range x {
			x[j] = 2.4*rng.Float64() - 1.2
			m += w[j] * x[j]
		}
		y := 1.0
		if m+0.5*rng.NormFloat64() < 0 {
			y = -1
		}
		c.X, c.Y = append(c.X, x), append(c.Y, y)
	}
	return c
}

// subObjective is C_s's objective with r at its best value given v̂:
// r = max(f_s(v̂), z − ζ/c).
func subObjective(cl Client, m Model, c float64, v []float64, z float64, psi []float64, zeta float64, vh []float64) float64 {
	f, _ := WorstCaseLoss(cl, m, vh)
	r := math.Max(f, z-zeta/c)
	o := zeta*r + c/2*(r-z)*(r-z)
	for j := range vh {
		o += -psi[j]*vh[j] + c/2*(v[j]-vh[j])*(v[j]-vh[j])
	}
	return o
}

// TestClientQPAgainstClosedForm: the QP's (v̂, r) satisfy r ≥ f_s(v̂)
// (f_s from the closed-form suprema, no LP) and no perturbation of v̂
// lowers the reduced objective — the QP solves C_s over Ω_s.
func TestClientQPAgainstClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	models := []struct {
		name string
		m    Model
	}{
		{"box", Model{Support: Box, Kappa: 0.5}},
		{"free", Model{Support: Free, Kappa: 0.3}},
		{"epigraph", Model{Epigraph: true}},
	}
	for _, tc := range models {
		t.Run(tc.name, func(t *testing.T) {
			for trial := range 4 {
				n, N := 2+trial%2, 6+trial
				cl := randClient(rng, N, n, []float64{0.01, 0.1, 0.3, 0}[trial])
				const c = 1.0
				cq, err := NewClientQP(cl, tc.m, c, nil)
				if err != nil {
					t.Fatal(err)
				}
				v, psi := make([]float64, n+1), make([]float64, n+1)
				for j := range v {
					v[j], psi[j] = rng.NormFloat64(), 0.3*rng.NormFloat64()
				}
				z, zeta := 0.2*rng.NormFloat64(), 0.5*rng.Float64()
				vh := make([]float64, n+1)
				r, qlam, err := cq.Step(context.Background(), v, z, psi, zeta, vh)
				if err != nil {
					t.Fatalf("trial %d (rho %v): %v (%+v)", trial, cl.Rho, err, cq.Last)
				}
				f, flam := WorstCaseLoss(cl, tc.m, vh)
				// 1e-6: the QP's tolerance 1e-7 times the row scale.
				if r < f-1e-6 {
					t.Fatalf("trial %d: r = %v (λ = %v) below f_s(v̂) = %v (λ = %v, loss there %v)", trial, r, qlam, f, flam, lossAt(cl, tc.m, vh, qlam))
				}
				o := subObjective(cl, tc.m, c, v, z, psi, zeta, vh)
				for _, step := range []float64{1e-1, 1e-3} {
					for range 100 {
						p := make([]float64, n+1)
						for j := range p {
							p[j] = vh[j] + step*rng.NormFloat64()
						}
						if op := subObjective(cl, tc.m, c, v, z, psi, zeta, p); op < o-1e-6 {
							t.Fatalf("trial %d: perturbed v̂ %v gives %v < %v at the QP's %v", trial, p, op, o, vh)
						}
					}
				}
			}
		})
	}
}

// TestWorstCaseRhoZero: with ρ = 0 and rows inside the box the worst case
// is the empirical hinge loss (λ → ∞ removes all transport).
func TestWorstCaseRhoZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	cl := randClient(rng, 10, 3, 0)
	for i := range cl.X {
		for j := range cl.X[i] {
			cl.X[i][j] = math.Max(-1, math.Min(1, cl.X[i][j]))
		}
	}
	v := []float64{0.5, -1, 2, 0.1}
	for _, sup := range []Support{Box, Free} {
		f, _ := WorstCaseLoss(cl, Model{Support: sup, Kappa: 0.7}, v)
		h := HingeLoss(cl, v)
		if math.Abs(f-h) > 1e-9 {
			t.Errorf("%v: f_s = %v, hinge = %v", sup, f, h)
		}
	}
}

// TestBoxBelowFree: a smaller support gives a smaller worst case.
func TestBoxBelowFree(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 20 {
		cl := randClient(rng, 8, 3, 0.1)
		v := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		fb, _ := WorstCaseLoss(cl, Model{Support: Box, Kappa: 0.5}, v)
		ff, _ := WorstCaseLoss(cl, Model{Support: Free, Kappa: 0.5}, v)
		if fb > ff+1e-9 {
			t.Fatalf("box %v > free %v", fb, ff)
		}
	}
}

func TestValidate(t *testing.T) {
	good := Client{X: [][]float64{{0.1, 0.2}}, Y: []float64{1}, Rho: 0.1}
	cases := []struct {
		name    string
		clients []Client
		m       Model
	}{
		{"no clients", nil, Model{Kappa: 1}},
		{"kappa 0", []Client{good}, Model{Kappa: 0}},
		{"negative rho", []Client{{X: good.X, Y: good.Y, Rho: -1}}, Model{Kappa: 1}},
		{"label 0", []Client{{X: good.X, Y: []float64{0}}}, Model{Kappa: 1}},
		{"ragged", []Client{good, {X: [][]float64{{1}}, Y: []float64{1}}}, Model{Kappa: 1}},
		{"NaN", []Client{{X: [][]float64{{math.NaN(), 0}}, Y: []float64{1}}}, Model{Kappa: 1}},
		{"empty client", []Client{good, {}}, Model{Kappa: 1}},
	}
	for _, c := range cases {
		if err := Validate(c.clients, c.m); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	if err := Validate([]Client{good}, Model{Kappa: 1}); err != nil {
		t.Errorf("good: %v", err)
	}
}

// TestClientQPBadWarmStart: a warm start that leaves the QP's ADMM at its
// iteration cap is solved again by the interior-point method.
func TestClientQPBadWarmStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	cl := randClient(rng, 8, 2, 0.1)
	m := Model{Support: Box, Kappa: 0.5}
	v, psi := []float64{0.3, -0.2, 0.1}, []float64{0.1, 0, -0.1}
	vh := make([]float64, 3)
	cold, err := NewClientQP(cl, m, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := cold.Step(context.Background(), v, 0.2, psi, 0.3, vh); err != nil {
		t.Fatal(err)
	}
	set := DefaultQPSettings()
	set.MaxIterations = cold.Iterations() + 25
	cq, err := NewClientQP(cl, m, 1, set)
	if err != nil {
		t.Fatal(err)
	}
	nv, nr := cq.Size()
	bad := &qp.Start{X: make([]float64, nv), Y: make([]float64, nr)}
	for i := range bad.X {
		bad.X[i] = 1e6 * rng.NormFloat64()
	}
	for i := range bad.Y {
		bad.Y[i] = 1e6 * rng.NormFloat64()
	}
	cq.start = bad
	r, _, err := cq.Step(context.Background(), v, 0.2, psi, 0.3, vh)
	if err != nil || cq.Retries != 1 {
		t.Fatalf("error %v, retries %d", err, cq.Retries)
	}
	f, _ := WorstCaseLoss(cl, m, vh)
	if r < f-1e-6 {
		t.Fatalf("r = %v below f_s(v̂) = %v", r, f)
	}
}

// TestClientQPStallFallback: under settings that make the QP's ADMM stall
// (a fixed ρ = 1e-6, no polishing, a cap of 5 iterations) the warm-started solve of the second
// round falls back to the interior-point method, with the reference
// solution.
func TestClientQPStallFallback(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	cl := randClient(rng, 8, 2, 0.1)
	m := Model{Support: Box, Kappa: 0.5}
	v, psi := []float64{0.3, -0.2, 0.1}, []float64{0.1, 0, -0.1}
	ref, err := NewClientQP(cl, m, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	set := DefaultQPSettings()
	set.Rho, set.AdaptiveRhoInterval, set.MaxIterations, set.Polish = 1e-6, 0, 5, false
	cq, err := NewClientQP(cl, m, 1, set)
	if err != nil {
		t.Fatal(err)
	}
	for round, z := range []float64{0.2, 0.5} {
		want, vh := make([]float64, 3), make([]float64, 3)
		rRef, _, err := ref.Step(context.Background(), v, z, psi, 0.3, want)
		if err != nil {
			t.Fatal(err)
		}
		r, _, err := cq.Step(context.Background(), v, z, psi, 0.3, vh)
		if err != nil {
			t.Fatalf("round %d: %v", round+1, err)
		}
		// 1e-6: both QPs solved to 1e-7.
		if math.Abs(r-rRef) > 1e-6 || math.Abs(vh[0]-want[0]) > 1e-6 {
			t.Fatalf("round %d: r %v v̂ %v, reference %v %v", round+1, r, vh, rRef, want)
		}
		v[0] += 0.3
	}
	if cq.Retries != 1 {
		t.Fatalf("retries %d, want 1 (round 1 is cold: interior point)", cq.Retries)
	}
}

// TestAccuracyTies: margins within MarginTol·(1 + ‖x‖₁) of zero are no
// decision (+1), so the near-zero models of a degenerate optimal face (w =
// 0, b free) score as the constant classifier whichever solver found them.
func TestAccuracyTies(t *testing.T) {
	X := [][]float64{{1, -1}, {-1, 1}, {0.5, -0.5}, {-0.5, 0.5}}
	Y := []float64{1, -1, 1, -1}
	cases := []struct {
		name string
		v    []float64
		want float64
	}{
		{"separating", []float64{1, -1, 0}, 1},
		{"interior-point zero (w ~ 1e-9)", []float64{1e-9, -1e-9, 1e-10}, 0.5},
		{"Algorithm 1 zero (w ~ 1e-19)", []float64{-1e-19, 1e-19, -1e-16}, 0.5},
		{"just beyond the tolerance", []float64{3e-6, -3e-6, 0}, 1},
		{"constant −1", []float64{0, 0, -1}, 0.5},
	}
	for _, tc := range cases {
		if got := Accuracy(X, Y, tc.v); got != tc.want {
			t.Errorf("%s: accuracy %v, want %v", tc.name, got, tc.want)
		}
	}
}
