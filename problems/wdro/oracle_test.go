package wdro

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// innerMin is g(q) = min over v of Σ_s q_s f_s(v) for fixed weights q: it
// returns g(q) and the clients' worst-case losses f_s at the minimiser, a
// supergradient of the concave g (g(q') ≤ Σ_s q'_s f_s for every q').
type innerMin func(q []float64) (g float64, f []float64)

// hingeOracle solves g(q) as problem (4) with θ = 0 and q̂ = q (one LP).
func hingeOracle(t *testing.T, clients []Client, m Model) innerMin {
	return func(q []float64) (float64, []float64) {
		t.Helper()
		v, obj, err := Central(context.Background(), clients, m, 0, 1, q)
		if err != nil {
			t.Fatalf("q = %v: %v", q, err)
		}
		return obj, clientLosses(clients, m, v)
	}
}

// huberOracle solves g(q) as centralHuber's QP.
func huberOracle(t *testing.T, clients []Client, m Model) innerMin {
	return func(q []float64) (float64, []float64) {
		t.Helper()
		v, obj := centralHuber(t, clients, m, q)
		return obj, clientLosses(clients, m, v)
	}
}

func clientLosses(clients []Client, m Model, v []float64) []float64 {
	f := make([]float64, len(clients))
	for s, c := range clients {
		f[s], _ = WorstCaseLoss(c, m, v)
	}
	return f
}

// maxOverQ returns max over q ∈ Q = {q ∈ Δ_S : ‖q − q̂‖_p ≤ θ} of g, the
// value of (4) written as a max-min (g is concave in q). S = 2: golden
// section on q_1 (any p). S ≥ 3, p ∈ {1, ∞} (Q a polytope): Kelley's
// cutting planes, each master problem an LP in lp.Simplex, until its
// bound is within 1e-8 of the best g found.
func maxOverQ(t *testing.T, qhat []float64, theta, p float64, g innerMin) float64 {
	t.Helper()
	S := len(qhat)
	if S == 2 {
		half := theta / math.Pow(2, 1/p) // ‖(d, −d)‖_p = 2^{1/p}|d|
		a, b := math.Max(0, qhat[0]-half), math.Min(1, qhat[0]+half)
		phi := func(q1 float64) float64 { v, _ := g([]float64{q1, 1 - q1}); return v }
		const gr = 0.6180339887498949
		x1, x2 := b-gr*(b-a), a+gr*(b-a)
		f1, f2 := phi(x1), phi(x2)
		for b-a > 1e-7 {
			if f1 >= f2 {
				b, x2, f2 = x2, x1, f1
				x1 = b - gr*(b-a)
				f1 = phi(x1)
			} else {
				a, x1, f1 = x1, x2, f2
				x2 = a + gr*(b-a)
				f2 = phi(x2)
			}
		}
		return math.Max(f1, f2)
	}
	if p != 1 && !math.IsInf(p, 1) {
		t.Fatalf("cutting planes need a polytope Q (p = 1 or inf), got p = %v", p)
	}
	// Master variables x = (q, τ, d): maximise τ subject to the cuts
	// τ ≤ Σ q_s f_s^j, q ≥ 0, Σ q = 1 and the ball (p = 1: d_s ≥ |q_s − q̂_s|,
	// Σ d ≤ θ; p = ∞: |q_s − q̂_s| ≤ θ).
	nd := 0
	if p == 1 {
		nd = S
	}
	nx := S + 1 + nd
	var G [][]float64
	var h []float64
	le := func(row []float64, rhs float64) { G, h = append(G, row), append(h, rhs) }
	for s := range S {
		row := make([]float64, nx)
		row[s] = -1
		le(row, 0)
		up, down := make([]float64, nx), make([]float64, nx)
		up[s], down[s] = 1, -1
		if p == 1 {
			up[S+1+s], down[S+1+s] = -1, -1
			le(up, qhat[s])
			le(down, -qhat[s])
		} else {
			le(up, qhat[s]+theta)
			le(down, theta-qhat[s])
		}
	}
	if p == 1 {
		row := make([]float64, nx)
		for s := range S {
			row[S+1+s] = 1
		}
		le(row, theta)
	}
	eq := make([]float64, nx)
	for s := range S {
		eq[s] = 1
	}
	c := make([]float64, nx)
	c[S] = -1
	q := append([]float64(nil), qhat...)
	best := math.Inf(-1)
	for iter := range 500 {
		val, f := g(q)
		best = math.Max(best, val)
		cut := make([]float64, nx)
		for s := range S {
			cut[s] = -f[s]
		}
		cut[S] = 1
		le(cut, 0)
		Gm := mat.NewDense(len(G), nx, nil)
		for i, row := range G {
			Gm.SetRow(i, row)
		}
		cs, as, bs := lp.Convert(c, Gm, h, mat.NewDense(1, nx, eq), []float64{1})
		opt, x, err := lp.Simplex(cs, as, bs, 1e-12, nil)
		if err != nil {
			t.Fatalf("master LP, iteration %d: %v", iter, err)
		}
		if bound := -opt; bound-best <= 1e-8 {
			t.Logf("cutting planes: %d evaluations, bound %.10f, best %.10f", iter+1, bound, best)
			return best
		}
		for s := range S {
			q[s] = math.Max(0, x[s]-x[nx+s]) // x = x⁺ − x⁻ (lp.Convert)
		}
	}
	t.Fatal("cutting planes: no convergence in 500 evaluations")
	return 0
}

// TestAlgorithm1MatchesMaxMin: Algorithm 1 (tol 1e-6) against (4) written
// as max over q ∈ Q of min over v of Σ q_s f_s(v), the inner minimum one
// LP (hinge: Central at θ = 0, q̂ = q) or QP (Huber: centralHuber) in v,
// the outer maximum by golden section (S = 2, also p = 2) or cutting
// planes (S = 3, p ∈ {1, ∞}); 20 rows in all. Objectives within 1e-4 (the
// issue's target).
func TestAlgorithm1MatchesMaxMin(t *testing.T) {
	cases := []struct {
		name  string
		m     Model
		rows  []int
		rho   float64
		theta float64
		p     float64
	}{
		{"hinge S2 p=2", Model{Support: Box, Kappa: 0.5}, []int{8, 12}, 0.05, 0.2, 2},
		{"hinge S2 p=inf", Model{Support: Box, Kappa: 0.5}, []int{9, 11}, 0.08, 0.02, math.Inf(1)},
		{"hinge S3 p=1", Model{Support: Box, Kappa: 0.5}, []int{6, 6, 8}, 0.03, 0.2, 1},
		{"hinge S3 p=inf", Model{Support: Free, Kappa: 0.3}, []int{5, 7, 8}, 0.002, 0.1, math.Inf(1)},
		{"afl S3 p=1", Model{Epigraph: true}, []int{6, 7, 7}, 0, 0.3, 1},
		{"huber S2 p=2", Model{Loss: LossHuber, Kappa: 1}, []int{9, 11}, 0.05, 0.2, 2},
		{"huber S3 p=1", Model{Loss: LossHuber, Kappa: 0.5}, []int{6, 6, 8}, 0.05, 0.2, 1},
		{"huber S3 p=inf", Model{Loss: LossHuber, Kappa: 2}, []int{5, 7, 8}, 0.1, 0.05, math.Inf(1)},
	}
	for k, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(80+k), 81))
			var clients []Client
			for s, N := range tc.rows {
				rho := tc.rho * float64(s+1)
				if tc.m.Loss == LossHuber {
					clients = append(clients, regClient(rng, N, 2, rho))
				} else {
					clients = append(clients, randClient(rng, N, 2, rho))
				}
			}
			g := hingeOracle(t, clients, tc.m)
			if tc.m.Loss == LossHuber {
				g = huberOracle(t, clients, tc.m)
			}
			opt := maxOverQ(t, SampleShares(clients), tc.theta, tc.p, g)
			res := algorithm1(t, clients, tc.m, tc.theta, tc.p)
			t.Logf("max-min %.8f, Algorithm 1 %.8f (worst case at its v %.8f) in %d rounds", opt, res.Objective, res.WorstCase, res.Rounds)
			if math.Abs(res.Objective-opt) > 1e-4 || math.Abs(res.WorstCase-opt) > 1e-4 {
				t.Errorf("Algorithm 1 objective %v, worst case %v; max-min optimum %v", res.Objective, res.WorstCase, opt)
			}
		})
	}
}
