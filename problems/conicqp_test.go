package problems

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/fedcon/fedcon/solver"
)

// TestBallQPPartyDerivatives checks ∇f and the constraint Jacobian of a
// ball party against central finite differences.
func TestBallQPPartyDerivatives(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	cq, err := NewConicQP(rng, 6, 2, 2, BallSpec{Rows: 3, Clients: true, Server: true, Ratio: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= cq.N; i++ {
		p := cq.party(i)
		m, d := p.Cone().Dim(), cq.Dim
		if m != 2+1+3 {
			t.Fatalf("party %d: cone %v, want dimension 6", i, p.Cone())
		}
		w := []float64{0.3, -1, 0.5, 2, 0, -0.7}
		g, c, jac := make([]float64, d), make([]float64, m), make([]float64, m*d)
		p.Eval(w, g, c, jac)
		const h = 1e-6
		for j := 0; j < d; j++ {
			wp, wm := append([]float64(nil), w...), append([]float64(nil), w...)
			wp[j] += h
			wm[j] -= h
			cp, cm := make([]float64, m), make([]float64, m)
			fp := p.Eval(wp, nil, cp, nil)
			fm := p.Eval(wm, nil, cm, nil)
			// Quadratic f and affine c: central differences are exact up to
			// rounding of values of size ~10 (A's eigenvalues are 5-10).
			if fd := (fp - fm) / (2 * h); math.Abs(fd-g[j]) > 1e-6 {
				t.Errorf("party %d: ∂f/∂w%d = %v, finite difference %v", i, j, g[j], fd)
			}
			for a := 0; a < m; a++ {
				if fd := (cp[a] - cm[a]) / (2 * h); math.Abs(fd-jac[a*d+j]) > 1e-6 {
					t.Errorf("party %d: ∂c%d/∂w%d = %v, finite difference %v", i, a, j, jac[a*d+j], fd)
				}
			}
		}
	}
}

// TestConicQPSingleBall solves eq. (25) with a norm ball at the server by
// Algorithm 1 and cProx-AL and compares both with the independent solution
// of ExactSingleBall (bisection on the ball's multiplier over linear KKT
// solves, no solver code involved).
func TestConicQPSingleBall(t *testing.T) {
	cases := []struct {
		name    string
		d, n, m int
		ball    BallSpec
	}{
		{"server ball, n=1", 10, 1, 1, BallSpec{Rows: 3, Server: true, Ratio: 0.5}},
		{"server ball, n=3", 12, 3, 2, BallSpec{Rows: 4, Server: true, Ratio: 0.3}},
		{"client ball, n=1, no server rows", 8, 1, 0, BallSpec{Rows: 2, Clients: true, Ratio: 0.5}},
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cq, err := NewConicQP(rand.New(rand.NewPCG(uint64(ci), 9)), c.d, c.n, c.m, c.ball)
			if err != nil {
				t.Fatal(err)
			}
			wstar, lambda, fstar, err := cq.ExactSingleBall()
			if err != nil {
				t.Fatal(err)
			}
			// The oracle's own KKT: the ball is active (λ* > 0, so the test
			// exercises the SOC) and ||Gw* - h|| = T to rounding.
			var b *Ball
			for _, x := range cq.Balls {
				if x != nil {
					b = x
				}
			}
			if !(lambda > 0) || math.Abs(ballGap(b, wstar)) > 1e-10 {
				t.Fatalf("oracle: λ* = %v, ||Gw*-h|| - T = %v", lambda, ballGap(b, wstar))
			}
			w0 := make([]float64, c.d)
			for j := range w0 {
				w0[j] = 1 // Section 5.1's w0
			}
			// Test (8) needs τ_k = s̄/(k+1)² <= ε1: s̄ = 1e-4 reaches ε = 1e-8
			// after 100 outer iterations (s̄ = 0.01 would need 1000). β = 100:
			// the multiplier moves by up to β·||c|| per iteration, and the
			// ball's is large (β = 1 takes thousands of iterations here);
			// Algorithm 2's ρ_i must match β's curvature (ρ = 1 against
			// β = 100 takes minutes of ADMM iterations).
			const eps, sbar = 1e-8, 1e-4
			s := &solver.Settings{Eps1: eps, Eps2: eps, MaxOuter: 2000, MaxInner: 20000}
			for _, m := range []struct {
				name string
				m    solver.Method
			}{
				{"cProx-AL", &solver.CProxAL{Beta: 100, SBar: sbar, Smooth: &solver.Newton{}}},
				{"Algorithm 1", &solver.ProxAL{Beta: 100, SBar: sbar, Rho: 100, Smooth: &solver.Newton{}}},
			} {
				res, err := solver.Solve(context.Background(), cq.Problem(), w0, s, m.m)
				if err != nil {
					t.Fatalf("%s: %v", m.name, err)
				}
				if res.Status != solver.Converged {
					t.Fatalf("%s: status %v after %d outer iterations", m.name, res.Status, res.Stats.OuterIterations)
				}
				if res.Residuals.Stationarity > eps || res.Residuals.Feasibility > eps {
					t.Errorf("%s: KKT residuals %+v above %g (Theorem 3.1)", m.name, res.Residuals, eps)
				}
				// f is 5-strongly convex (A_i ⪰ 5I), so an (ε, ε)-KKT point is
				// within O(√ε) of w*; at ε = 1e-8 ||w - w*||_∞ <= 1e-5 is loose.
				if dist := floats.Distance(res.W, wstar, math.Inf(1)); dist > 1e-5 {
					t.Errorf("%s: ||w - w*||_∞ = %g", m.name, dist)
				}
				if math.Abs(res.Objective-fstar) > 1e-5*math.Max(1, math.Abs(fstar)) {
					t.Errorf("%s: objective %v, oracle %v", m.name, res.Objective, fstar)
				}
				// The oracle's λ* belongs to ½(||Gw-h||² - T²) <= 0, whose
				// gradient is λ*Gᵀ(Gw-h); the SOC multiplier (μ_s, μ_x) gives
				// μ_s·Gᵀ(Gw-h)/||Gw-h|| with ||Gw-h|| = T, so μ_s = λ*·T.
				mu := res.Mu[0]
				if c.ball.Clients {
					mu = res.Mu[1]
				}
				ms := mu[c.m] // soc block starts after the m equalities
				if math.Abs(ms/b.T-lambda) > 1e-4*math.Max(1, lambda) {
					t.Errorf("%s: μ_s/T = %v, oracle λ* = %v", m.name, ms/b.T, lambda)
				}
			}
		})
	}
}

// TestConicQPBallsEverywhere gives every party a ball and checks Algorithm 1
// against a tight cProx-AL solve and both against the KKT conditions of
// eq. (5) recomputed here from the problem data (not from solver.Cone):
// stationarity Σ(A_iw + b_i) + Σ C_iᵀν_i - Σ G_iᵀx_i = 0, multipliers
// (s_i, x_i) in the second-order cone, the ball feasible and complementary.
func TestConicQPBallsEverywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: two tight solves")
	}
	cq, err := NewConicQP(rand.New(rand.NewPCG(4, 2)), 15, 4, 1, BallSpec{Rows: 3, Server: true, Clients: true, Ratio: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	w0 := make([]float64, cq.Dim)
	floats.AddConst(1, w0)
	const eps, sbar = 1e-8, 1e-4 // see TestConicQPSingleBall
	s := &solver.Settings{Eps1: eps, Eps2: eps, MaxOuter: 2000, MaxInner: 20000}
	var ws [][]float64
	for _, m := range []solver.Method{
		&solver.CProxAL{Beta: 100, SBar: sbar, Smooth: &solver.Newton{}},
		&solver.ProxAL{Beta: 100, SBar: sbar, Rho: 100, Smooth: &solver.Newton{}},
	} {
		res, err := solver.Solve(context.Background(), cq.Problem(), w0, s, m)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != solver.Converged {
			t.Fatalf("status %v", res.Status)
		}
		kktCheck(t, cq, res.W, res.Mu, 1e-6)
		ws = append(ws, res.W)
	}
	if d := floats.Distance(ws[0], ws[1], math.Inf(1)); d > 1e-5 {
		t.Errorf("Algorithm 1 and cProx-AL differ by %g", d)
	}
}

// kktCheck recomputes the KKT residuals of eq. (5) from the problem data.
func kktCheck(t *testing.T, cq *ConicQP, w []float64, mu [][]float64, tol float64) {
	t.Helper()
	d := cq.Dim
	g := make([]float64, d)
	wv := mat.NewVecDense(d, w)
	for _, c := range cq.Clients {
		var aw mat.VecDense
		aw.MulVec(c.A, wv)
		floats.Add(g, aw.RawVector().Data)
		floats.Add(g, c.B)
	}
	gv := mat.NewVecDense(d, g)
	active := 0
	for i := 0; i <= cq.N; i++ {
		qp := cq.Server
		if i > 0 {
			qp = cq.Clients[i-1]
		}
		m := 0
		if qp.C != nil {
			m = cq.M
			var ct mat.VecDense
			ct.MulVec(qp.C.T(), mat.NewVecDense(m, mu[i][:m]))
			gv.AddVec(gv, &ct)
			var cw mat.VecDense
			cw.MulVec(qp.C, wv)
			for a := 0; a < m; a++ {
				if r := math.Abs(cw.AtVec(a) + qp.D[a]); r > tol {
					t.Errorf("party %d: equality residual %g", i, r)
				}
			}
		}
		b := cq.Balls[i]
		ms, mx := mu[i][m], mu[i][m+1:]
		if floats.Norm(mx, 2) > ms*(1+1e-12)+1e-14 {
			t.Errorf("party %d: multiplier (%v, %v) not in the SOC", i, ms, mx)
		}
		var gtx mat.VecDense
		gtx.MulVec(b.G.T(), mat.NewVecDense(len(mx), mx))
		gv.SubVec(gv, &gtx)
		gap := ballGap(b, w)
		if gap > tol {
			t.Errorf("party %d: ball violated by %g", i, gap)
		}
		// Complementarity <μ, c(w)> = -T·s + xᵀ(h - Gw) = 0.
		var gw mat.VecDense
		gw.MulVec(b.G, wv)
		comp := -b.T * ms
		for a := range mx {
			comp += mx[a] * (b.H[a] - gw.AtVec(a))
		}
		if math.Abs(comp) > tol*math.Max(1, ms) {
			t.Errorf("party %d: complementarity %g", i, comp)
		}
		if ms > tol {
			active++
		}
	}
	if r := floats.Norm(gv.RawVector().Data, math.Inf(1)); r > tol {
		t.Errorf("stationarity residual %g", r)
	}
	if active == 0 {
		t.Errorf("no ball is active: the test does not exercise the SOC")
	}
}
