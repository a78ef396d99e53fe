package wdro

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedcon/fedcon/solver/qp"
)

// regClient returns N rows of n features in [−1, 1] with real labels from a
// random hyperplane plus noise, some of them far off (Huber's linear part).
func regClient(rng *rand.Rand, N, n int, rho float64) Client {
	w := make([]float64, n)
	for j := range w {
		w[j] = 2 * rng.NormFloat64()
	}
	c := Client{Rho: rho}
	for i := range N {
		x := make([]float64, n)
		y := 1.0
		for j := range x {
			x[j] = 2*rng.Float64() - 1
			y += w[j] * x[j]
		}
		y += 0.5 * rng.NormFloat64()
		if i%4 == 1 {
			y += 4 * rng.NormFloat64() // outliers
		}
		c.X, c.Y = append(c.X, x), append(c.Y, y)
	}
	return c
}

// TestHuberWorstCasePrimal checks the closed form of the worst-case Huber
// loss against primal distributions in the Wasserstein ball: random
// transports of every sample within the budget never exceed it, and moving
// one sample in the linear region by ρN along the cheapest direction
// (the largest |w_j|, or the label at cost κ) attains it.
func TestHuberWorstCasePrimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for trial := range 20 {
		n, N := 3, 8
		cl := regClient(rng, N, n, []float64{0.01, 0.1, 0.5}[trial%3])
		m := Model{Loss: LossHuber, Kappa: []float64{0.2, 1, 5}[trial%3], Epsilon: 1.35}
		v := make([]float64, n+1)
		for j := range v {
			v[j] = rng.NormFloat64()
		}
		f, _ := WorstCaseLoss(cl, m, v)
		eps := m.Epsilon
		budget := cl.Rho * float64(N) // Σ_i cost_i ≤ ρN
		// Random transports: split the budget among samples and directions.
		for range 200 {
			share := make([]float64, N)
			var tot float64
			for i := range share {
				share[i] = rng.ExpFloat64()
				tot += share[i]
			}
			var val float64
			for i, x := range cl.X {
				c := budget * share[i] / tot
				dx := make([]float64, n)
				var cost float64
				for j := range dx {
					dx[j] = rng.NormFloat64()
					cost += math.Abs(dx[j])
				}
				dy := rng.NormFloat64()
				cost += m.Kappa * math.Abs(dy)
				s := c / cost
				xs := make([]float64, n)
				for j := range xs {
					xs[j] = x[j] + s*dx[j]
				}
				val += Huber(Margin(v, xs)-(cl.Y[i]+s*dy), eps)
			}
			val /= float64(N)
			if val > f+1e-12 {
				t.Fatalf("trial %d: a transport within the budget reaches %v > worst case %v", trial, val, f)
			}
		}
		// The attaining transport, from a sample with |t_i| ≥ ε.
		best := -1
		for i, x := range cl.X {
			if math.Abs(Margin(v, x)-cl.Y[i]) >= eps {
				best = i
			}
		}
		if best < 0 {
			continue
		}
		L := huberLipschitz(v, m.Kappa)
		ti := Margin(v, cl.X[best]) - cl.Y[best]
		val := HuberLoss(cl, v, eps) + (Huber(math.Abs(ti)+budget*L, eps)-Huber(ti, eps))/float64(N)
		if math.Abs(val-f) > 1e-9*(1+f) {
			t.Fatalf("trial %d: attaining transport %v, closed form %v", trial, val, f)
		}
	}
}

// TestHuberStepOptimal: HuberLocal.Step returns r = max(f_s(v̂), z − ζ/c)
// and no perturbation of v̂ lowers C_s's reduced objective, in both the
// slack (ν = 0) and the active case, for DRFL and the epigraph models.
func TestHuberStepOptimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	models := map[string]Model{
		"drfl":     {Loss: LossHuber, Kappa: 0.5},
		"epigraph": {Loss: LossHuber, Epigraph: true},
	}
	for name, m := range models {
		t.Run(name, func(t *testing.T) {
			for trial := range 12 {
				n, N := 2+trial%3, 10+trial
				cl := regClient(rng, N, n, []float64{0, 0.05, 0.3}[trial%3])
				c := []float64{0.1, 1, 10}[trial%3]
				h, err := NewHuberLocal(cl, m, c, 1e-10)
				if err != nil {
					t.Fatal(err)
				}
				v, psi := make([]float64, n+1), make([]float64, n+1)
				for j := range v {
					v[j], psi[j] = rng.NormFloat64(), 0.3*rng.NormFloat64()
				}
				// z large makes the constraint slack (ν = 0).
				z, zeta := []float64{0.1, 50}[trial%2]*rng.Float64(), 0.5*rng.Float64()
				vh := make([]float64, n+1)
				var r float64
				for range 2 { // the second call starts from the first's ν and v̂
					r, _, err = h.Step(context.Background(), v, z, psi, zeta, vh)
					if err != nil {
						t.Fatal(err)
					}
				}
				f, _ := WorstCaseLoss(cl, m, vh)
				// 1e-8: the accuracy 1e-10 of |φ| times the slope of F.
				if want := math.Max(f, z-zeta/c); math.Abs(r-want) > 1e-8 {
					t.Fatalf("trial %d: r = %v, max(f_s(v̂), z − ζ/c) = %v", trial, r, want)
				}
				o := subObjective(cl, m, c, v, z, psi, zeta, vh)
				for _, step := range []float64{1e-1, 1e-3, 1e-5} {
					for range 100 {
						p := make([]float64, n+1)
						for j := range p {
							p[j] = vh[j] + step*rng.NormFloat64()
						}
						// 1e-9: the solve's accuracy on an objective of order 1.
						if op := subObjective(cl, m, c, v, z, psi, zeta, p); op < o-1e-9 {
							t.Fatalf("trial %d: perturbed v̂ %v gives %v < %v at Step's %v", trial, p, op, o, vh)
						}
					}
				}
			}
		})
	}
}

// centralHuber returns min over (w, b) of Σ_s q_s f_s(w, b) for fixed
// weights q, as one QP in solver/qp with Cor. B.1's variables kept: μ_si
// (quadratic), v_si ≥ |t_si − μ_si|, λ_s ≥ ε|w_j|, λ_s ≥ ε/κ — an
// independent formulation of the Huber clients.
func centralHuber(t *testing.T, clients []Client, m Model, q []float64) ([]float64, float64) {
	t.Helper()
	n := len(clients[0].X[0])
	eps := m.huberEps()
	var pr, pc, ar, ac []int
	var pv, av, cost, lo, hi []float64
	nv := n + 1
	newVar := func(c float64) int { cost = append(cost, c); nv++; return nv - 1 }
	cost = make([]float64, n+1)
	row := 0
	add := func(col int, v float64) { ar, ac, av = append(ar, row), append(ac, col), append(av, v) }
	end := func(l, u float64) { lo, hi = append(lo, l), append(hi, u); row++ }
	inf := math.Inf(1)
	for s, cl := range clients {
		N := float64(len(cl.X))
		lam := newVar(q[s] * cl.Rho)
		if m.Epigraph {
			add(lam, 1)
			end(0, 0)
		} else {
			add(lam, 1)
			end(eps/m.Kappa, inf)
			for j := range n {
				for _, sg := range []float64{1, -1} {
					add(lam, 1)
					add(j, -sg*eps)
					end(0, inf)
				}
			}
		}
		for i, x := range cl.X {
			mu := newVar(0)
			pr, pc, pv = append(pr, mu), append(pc, mu), append(pv, q[s]/N)
			vv := newVar(q[s] * eps / N)
			for _, sg := range []float64{1, -1} {
				// v − sg(⟨w, x⟩ + b − μ) ≥ −sg·y
				add(vv, 1)
				for j := range n {
					add(j, -sg*x[j])
				}
				add(n, -sg)
				add(mu, sg)
				end(-sg*cl.Y[i], inf)
			}
		}
	}
	P, err := qp.NewCSC(nv, nv, pr, pc, pv)
	if err != nil {
		t.Fatal(err)
	}
	A, err := qp.NewCSC(row, nv, ar, ac, av)
	if err != nil {
		t.Fatal(err)
	}
	set := qp.DefaultSettings()
	res, err := qp.Solve(context.Background(), &qp.Problem{P: P, Q: cost, A: A, L: lo, U: hi}, set, nil)
	if err != nil || res.Status != qp.Solved {
		t.Fatalf("central QP: %v %v", err, res.Status)
	}
	return res.X[:n+1], res.Objective
}

// TestHuberAlgorithm1MatchesCentral: Algorithm 1 with Huber clients (tol
// 1e-6) against max over q ∈ Q of the central QP, by golden section over
// q_1 for S = 2 (the inner minimum is concave in q).
func TestHuberAlgorithm1MatchesCentral(t *testing.T) {
	cases := []struct {
		name  string
		m     Model
		rho   float64
		theta float64
		p     float64
	}{
		{"drfl p=1", Model{Loss: LossHuber, Kappa: 0.5}, 0.05, 0.2, 1},
		{"drfl p=inf", Model{Loss: LossHuber, Kappa: 2}, 0.1, 0.1, math.Inf(1)},
		{"afl p=1", Model{Loss: LossHuber, Epigraph: true}, 0, 0.3, 1},
	}
	for k, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(40+k), 41))
			clients := []Client{regClient(rng, 9, 2, tc.rho), regClient(rng, 13, 2, 2*tc.rho)}
			res := algorithm1(t, clients, tc.m, tc.theta, tc.p)
			opt := maxOverQ(t, SampleShares(clients), tc.theta, tc.p, huberOracle(t, clients, tc.m))
			t.Logf("rounds %d, objective %.8f, worst case %.8f, central %.8f, prox-gradient iterations %d", res.Rounds, res.Objective, res.WorstCase, opt, res.QPIterations)
			// 1e-4: the agreement target at tolerance 1e-6.
			if math.Abs(res.Objective-opt) > 1e-4 || math.Abs(res.WorstCase-opt) > 1e-4 {
				t.Errorf("objective %v / worst case %v, central optimum %v", res.Objective, res.WorstCase, opt)
			}
		})
	}
}

// TestHuberValidate: Huber takes real labels but not NaN, and the QP
// client refuses the Huber model.
func TestHuberValidate(t *testing.T) {
	cl := Client{X: [][]float64{{0.1, 0.2}, {0.3, -0.1}}, Y: []float64{3.5, -2}, Rho: 0.1}
	m := Model{Loss: LossHuber, Kappa: 1}
	if err := Validate([]Client{cl}, m); err != nil {
		t.Errorf("real labels: %v", err)
	}
	if err := Validate([]Client{cl}, Model{Kappa: 1}); err == nil {
		t.Error("hinge with real labels: no error")
	}
	bad := Client{X: cl.X, Y: []float64{1, math.NaN()}}
	if err := Validate([]Client{bad}, m); err == nil {
		t.Error("NaN label: no error")
	}
	if err := Validate([]Client{cl}, Model{Loss: LossHuber, Kappa: 1, Epsilon: -1}); err == nil {
		t.Error("epsilon < 0: no error")
	}
	if _, err := NewClientQP(cl, m, 1, nil); err == nil {
		t.Error("NewClientQP accepted the Huber model")
	}
}

// TestHuberCapHits: a solve stopped by the prox's or the secant's
// iteration cap (lowered here: at the real caps of 100,000 and 200 no
// test case reaches them) is counted; one that converges counts nothing.
func TestHuberCapHits(t *testing.T) {
	rng := rand.New(rand.NewPCG(90, 91))
	cl := regClient(rng, 12, 2, 0.05)
	m := Model{Loss: LossHuber, Kappa: 0.5}
	v, psi, vh := []float64{0.5, -0.3, 0.2}, make([]float64, 3), make([]float64, 3)
	for _, tc := range []struct {
		prox, secant int
		caps         int // -1: at least one
	}{{huberProxCap, huberSecantCap, 0}, {3, huberSecantCap, -1}, {huberProxCap, 1, 1}} {
		h, err := NewHuberLocal(cl, m, 1, 1e-10)
		if err != nil {
			t.Fatal(err)
		}
		h.proxCap, h.secantCap = tc.prox, tc.secant
		// z below f_s: the constraint binds, so the secant and prox run.
		if _, _, err := h.Step(context.Background(), v, -1, psi, 0, vh); err != nil {
			t.Fatal(err)
		}
		if got := h.CapHits(); got != tc.caps && (tc.caps >= 0 || got == 0) {
			t.Errorf("caps %d / %d: %d cap hits", tc.prox, tc.secant, got)
		}
	}
}
