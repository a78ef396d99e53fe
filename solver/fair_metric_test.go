package solver_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fedcon/fedcon/problems"
	"github.com/fedcon/fedcon/solver"
)

// fairInstance is a small eq. (28) problem: n clients and a server, each
// with its own rows, groups that differ in their features and labels, and
// the threshold r: with r small the disparity constraints bind with
// multipliers large enough to make ∇²P_i indefinite.
func fairInstance(seed uint64, n, rows, d int, r float64) *solver.Problem {
	rng := rand.New(rand.NewPCG(seed, seed))
	party := func(scale float64) *problems.FairParty {
		x := mat.NewDense(rows, d, nil)
		y := make([]float64, rows)
		var g0, g1 []int
		shift := 0.5 + rng.Float64() // each party's groups differ differently
		for i := 0; i < rows; i++ {
			g := i % 3
			var z float64
			for j := 0; j < d-1; j++ {
				v := rng.NormFloat64() + shift*float64(g%2)*float64(1+j%2)
				x.Set(i, j, v)
				z += v * float64(1+j) / float64(d)
			}
			x.Set(i, d-1, 1)
			// Labels follow the features, so the unconstrained model
			// separates the groups' losses.
			if rng.Float64() < 1/(1+math.Exp(-2*z+1)) {
				y[i] = 1
			}
			if g%2 == 0 {
				g0 = append(g0, i)
			} else {
				g1 = append(g1, i)
			}
		}
		return &problems.FairParty{G0: problems.NewLabeled(x, y, g0), G1: problems.NewLabeled(x, y, g1), Scale: scale, R: r}
	}
	p := &solver.Problem{Dim: d, Server: party(0)}
	for i := 0; i < n; i++ {
		p.Clients = append(p.Clients, party(1/float64(n)))
	}
	return p
}

// TestFairHessianRuleConverges: Algorithm 1 with the matrix penalty on
// binding, nonconvex disparity constraints (conic Table 3's setting: β = 10,
// s̄ = 1e-3, r = 0.01). Each Algorithm 2 call must end certified by (23)
// within 40 rounds (contracting by about ½ per round, a call needs 15-25),
// and the output must be a Definition 1 point whose objective matches
// cProx-AL's (the reference) within the band the KKT residuals allow. With
// the reflected metric |∇²P_i| + σI the ADMM has no contraction along
// negative curvature, blows up every few rounds and restarts (46 restarts,
// 395 rounds at n = 10): calls then hit the cap and this test fails.
func TestFairHessianRuleConverges(t *testing.T) {
	const eps = 1e-3
	for _, n := range []int{5, 10} {
		p := fairInstance(uint64(7+n), n, 100, 6, 0.01)
		w0 := make([]float64, p.Dim)
		s := &solver.Settings{Eps1: eps, Eps2: eps, MaxOuter: 200, MaxInner: 40, Workers: 1}
		a1 := &solver.ProxAL{Beta: 10, SBar: 1e-3, Rho: 1, Test: solver.InnerTestMeasured, Rule: solver.RhoHessian,
			MetricShift: 0.01, EpsRel: 0.1, Smooth: &solver.Newton{}}
		cp := &solver.CProxAL{Beta: 10, SBar: 1e-3, Smooth: &solver.Newton{}}
		var res [2]*solver.Result
		for k, m := range []solver.Method{a1, cp} {
			r, err := solver.Solve(context.Background(), p, w0, s, m)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != solver.Converged || r.Residuals.Stationarity > eps || r.Residuals.Feasibility > eps {
				t.Fatalf("n=%d %T: %v, residuals %+v", n, m, r.Status, r.Residuals)
			}
			res[k] = r
		}
		st := res[0].Stats
		if st.InnerCapHits != 0 {
			t.Errorf("n=%d: %d Algorithm 2 calls capped; want none", n, st.InnerCapHits)
		}
		// A binding constraint, else the test checks nothing nonconvex.
		var mu float64
		for _, m := range res[0].Mu {
			for _, v := range m {
				mu = max(mu, v)
			}
		}
		if !(mu > 0) {
			t.Fatalf("n=%d: no constraint binds", n)
		}
		// Both outputs are (ε1, ε2)-KKT points of the same problem: their
		// objectives differ by O(ε·(1 + ||μ||)) at most (same local solution).
		if d := math.Abs(res[0].Objective - res[1].Objective); d > 10*eps*(1+mu) {
			t.Errorf("n=%d: objective %v vs cProx-AL %v", n, res[0].Objective, res[1].Objective)
		}
		t.Logf("n=%d: outer %d, rounds %d, restarts %d, max μ %.3g, objective %.6f vs %.6f",
			n, st.OuterIterations, st.Rounds, st.Restarts, mu, res[0].Objective, res[1].Objective)
	}
}

// TestOuterRelax: the relaxed proximal point step (OuterRelax) on the same
// problem, for both methods. The plain method creeps towards a KKT point of
// the binding nonconvex constraints; relaxed, it must need fewer outer
// iterations, end Converged on a plain step with audited KKT residuals
// within (ε1, ε2), and agree with the plain run's objective within the KKT
// band.
func TestOuterRelax(t *testing.T) {
	const eps = 1e-4 // tight, so that the outer rate decides the count
	p := fairInstance(12, 10, 100, 6, 0.003)
	w0 := make([]float64, p.Dim)
	s := &solver.Settings{Eps1: eps, Eps2: eps, MaxOuter: 500, MaxInner: 300, Workers: 1}
	for _, tc := range []struct {
		name string
		m    func(relax float64) solver.Method
	}{
		{"ProxAL", func(relax float64) solver.Method {
			return &solver.ProxAL{Beta: 10, SBar: 1e-3, Rho: 1, Test: solver.InnerTestMeasured, Rule: solver.RhoHessian,
				MetricShift: 0.01, EpsRel: 0.1, Smooth: &solver.Newton{}, OuterRelax: relax}
		}},
		{"CProxAL", func(relax float64) solver.Method {
			return &solver.CProxAL{Beta: 10, SBar: 1e-3, Smooth: &solver.Newton{}, OuterRelax: relax}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var res [2]*solver.Result
			for k, relax := range []float64{0, 1.8} {
				r, err := solver.Solve(context.Background(), p, w0, s, tc.m(relax))
				if err != nil {
					t.Fatal(err)
				}
				if r.Status != solver.Converged || r.Residuals.Stationarity > eps || r.Residuals.Feasibility > eps {
					t.Fatalf("relax %v: %v, residuals %+v", relax, r.Status, r.Residuals)
				}
				relaxed := 0
				for _, rec := range r.Trace {
					if rec.Relax != 0 {
						relaxed++
					}
				}
				if last := r.Trace[len(r.Trace)-1]; last.Relax != 0 {
					t.Errorf("relax %v: the run ended on a relaxed step (λ = %v)", relax, last.Relax)
				}
				if (relax == 0) != (relaxed == 0) {
					t.Errorf("relax %v: %d relaxed steps", relax, relaxed)
				}
				res[k] = r
			}
			plain, fast := res[0].Stats.OuterIterations, res[1].Stats.OuterIterations
			if !(fast < plain) {
				t.Errorf("outer iterations: relaxed %d, plain %d", fast, plain)
			}
			var mu float64
			for _, m := range res[1].Mu {
				for _, v := range m {
					mu = max(mu, v)
				}
			}
			if d := math.Abs(res[0].Objective - res[1].Objective); d > 10*eps*(1+mu) {
				t.Errorf("objective %v relaxed vs %v plain", res[1].Objective, res[0].Objective)
			}
			t.Logf("outer iterations %d plain, %d relaxed; objective %.8f vs %.8f", plain, fast, res[0].Objective, res[1].Objective)
		})
	}
}
