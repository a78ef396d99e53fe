package solver_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/fedcon/fedcon/internal/testutil"
	"github.com/fedcon/fedcon/problems"
	"github.com/fedcon/fedcon/solver"
)

// smoothOnly hides QuadraticParty so that the L-BFGS path solves the QP.
type smoothOnly struct{ solver.Party }

func lcqp(t testing.TB, seed uint64, d, n, m int) (*problems.LCQP, []float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	q, err := problems.NewLCQP(rng, d, n, m)
	if err != nil {
		t.Fatal(err)
	}
	return q, problems.UnitSphere(rng, d)
}

// kkt recomputes Definition 1 for the QP from the problem data alone:
// ||Σ(A_i w + b_i) + Σ C_iᵀμ_i||_∞ and max_i ||C_i w + d_i||_∞.
func kkt(q *problems.LCQP, w []float64, mu [][]float64) (stat, feas float64) {
	g := mat.NewVecDense(q.Dim, nil)
	parties := append([]*problems.QPParty{q.Server}, q.Clients...)
	for i, p := range parties {
		if p.A != nil {
			var aw mat.VecDense
			aw.MulVec(p.A, mat.NewVecDense(q.Dim, w))
			g.AddVec(g, &aw)
			g.AddVec(g, mat.NewVecDense(q.Dim, p.B))
		}
		if p.C != nil {
			var ctm mat.VecDense
			ctm.MulVec(p.C.T(), mat.NewVecDense(len(mu[i]), mu[i]))
			g.AddVec(g, &ctm)
		}
	}
	return mat.Norm(g, math.Inf(1)), q.Violation(w)
}

// TestLCQPAgainstKKTSolve checks both algorithms against the exact optimum
// of eq. (84) from its KKT system.
func TestLCQPAgainstKKTSolve(t *testing.T) {
	testutil.Slow(t)
	cases := []struct {
		name      string
		d, n, m   int
		eps       float64
		smooth    bool
		measured  bool
		skipShort bool
	}{
		{name: "n1-paper-tol", d: 30, n: 1, m: 2, eps: 1e-3},
		{name: "n4-paper-tol", d: 40, n: 4, m: 2, eps: 1e-3},
		{name: "n4-measured", d: 40, n: 4, m: 2, eps: 1e-3, measured: true},
		{name: "n3-tight", d: 25, n: 3, m: 1, eps: 1e-8},
		{name: "n3-smooth-lbfgs", d: 20, n: 3, m: 1, eps: 1e-6, smooth: true},
		{name: "n10-d300", d: 300, n: 10, m: 3, eps: 1e-3, skipShort: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.skipShort && testing.Short() {
				t.Skip("slow")
			}
			q, w0 := lcqp(t, 3, c.d, c.n, c.m)
			wstar, nu, fstar, err := q.ExactKKT()
			if err != nil {
				t.Fatal(err)
			}
			prob := q.Problem()
			if c.smooth {
				for i, p := range prob.Clients {
					prob.Clients[i] = smoothOnly{p}
				}
				prob.Server = smoothOnly{prob.Server}
			}
			test := solver.InnerTestPaper
			if c.measured {
				test = solver.InnerTestMeasured
			}
			s := &solver.Settings{Eps1: c.eps, Eps2: c.eps}
			for _, m := range []solver.Method{
				&solver.ProxAL{Beta: 10, SBar: 0.1, Rho: 1, Test: test},
				&solver.CProxAL{Beta: 10, SBar: 0.1},
			} {
				res, err := solver.Solve(context.Background(), prob, w0, s, m)
				if err != nil {
					t.Fatal(err)
				}
				if res.Status != solver.Converged {
					t.Fatalf("%T: status %v", m, res.Status)
				}
				// Theorem 2: the output is (ε1, ε2)-optimal; recompute
				// Definition 1 from the data, not from the solver's report.
				st, fe := kkt(q, res.W, res.Mu)
				if st > c.eps || fe > c.eps {
					t.Errorf("%T: KKT residuals (%.3g, %.3g) exceed ε = %g", m, st, fe, c.eps)
				}
				if math.Abs(st-res.Residuals.Stationarity) > 1e-9 || math.Abs(fe-res.Residuals.Feasibility) > 1e-12 {
					t.Errorf("%T: reported residuals %+v, recomputed (%g, %g)", m, res.Residuals, st, fe)
				}
				// Objective error bound from convexity with residuals r = ∇f + Cᵀμ
				// and e = Cw + d: -ν*ᵀe <= f(w) - f* <= -rᵀ(w* - w) - μᵀe, so
				// |f - f*| <= ||r||_2·||w - w*||_2 + max(||μ||_1, ||ν*||_1)·||e||_∞.
				var muAll []float64
				for _, mi := range res.Mu {
					muAll = append(muAll, mi...)
				}
				dist := floats.Distance(res.W, wstar, 2)
				bound := math.Sqrt(float64(c.d))*st*dist + math.Max(floats.Norm(muAll, 1), floats.Norm(nu, 1))*fe
				if gap := math.Abs(res.Objective - fstar); gap > bound*(1+1e-9)+1e-12 {
					t.Errorf("%T: |f - f*| = %.3g exceeds the KKT bound %.3g", m, gap, bound)
				}
				if math.Abs(res.Objective-q.Objective(res.W)) > 1e-12*math.Max(1, math.Abs(fstar)) {
					t.Errorf("%T: reported objective %v != recomputed %v", m, res.Objective, q.Objective(res.W))
				}
				if c.eps <= 1e-8 {
					// Tight tolerances: the solution itself (strongly convex f).
					if d := floats.Distance(res.W, wstar, math.Inf(1)); d > 1e-6 {
						t.Errorf("%T: ||w - w*||_inf = %.3g with ε = %g", m, d, c.eps)
					}
				}
			}
		})
	}
}

// TestInequalityBox: min Σ_i ½||w - a||²/n s.t. w ≤ u (server) and w ≥ l
// (client 1) has the optimum clip(a, l, u); both algorithms must find it
// through the NonNeg cone and the smooth solver.
func TestInequalityBox(t *testing.T) {
	const d, n = 6, 3
	a := []float64{2, -3, 0.5, 1.5, -0.2, 0}
	lo, hi := -1.0, 1.0
	want := make([]float64, d)
	for j := range a {
		want[j] = math.Min(hi, math.Max(lo, a[j]))
	}
	p := &solver.Problem{Dim: d, Server: &boxParty{sign: 1, bound: hi}}
	for i := 0; i < n; i++ {
		c := &meanSq{a: a, n: n}
		if i == 0 {
			c.box = &boxParty{sign: -1, bound: lo}
		}
		p.Clients = append(p.Clients, c)
	}
	s := &solver.Settings{Eps1: 1e-7, Eps2: 1e-7}
	for _, m := range []solver.Method{&solver.ProxAL{Beta: 10, SBar: 0.1, Rho: 1}, &solver.CProxAL{Beta: 10, SBar: 0.1}} {
		res, err := solver.Solve(context.Background(), p, make([]float64, d), s, m)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != solver.Converged {
			t.Fatalf("%T: %v", m, res.Status)
		}
		// ε = 1e-7 on a problem with unit curvature: w within ~1e-6 of the clip.
		if dist := floats.Distance(res.W, want, math.Inf(1)); dist > 1e-6 {
			t.Errorf("%T: w = %v, want %v", m, res.W, want)
		}
		if res.Residuals.Stationarity > 1e-7 || res.Residuals.Feasibility > 1e-7 {
			t.Errorf("%T: residuals %+v", m, res.Residuals)
		}
		// Active upper bounds have μ = a - 1 > 0 at the server (×(1/n)·n).
		if mu := res.Mu[0][0]; math.Abs(mu-(a[0]-hi)) > 1e-5 {
			t.Errorf("%T: server multiplier of w_0 <= 1 is %v, want %v", m, mu, a[0]-hi)
		}
	}
}

// meanSq is f(w) = ||w - a||²/(2n), optionally with a box constraint.
type meanSq struct {
	a   []float64
	n   int
	box *boxParty
}

func (p *meanSq) Cone() solver.Cone {
	if p.box == nil {
		return nil
	}
	return p.box.Cone()
}

func (p *meanSq) Eval(w, grad, c, jac []float64) float64 {
	var f float64
	for j := range w {
		r := w[j] - p.a[j]
		f += r * r / (2 * float64(p.n))
		if grad != nil {
			grad[j] = r / float64(p.n)
		}
	}
	if p.box != nil {
		p.box.Eval(w, nil, c, jac)
	}
	return f
}

// boxParty is the constraint sign·(w - bound) <= 0 componentwise.
type boxParty struct {
	sign, bound float64
}

func (b *boxParty) Cone() solver.Cone { return solver.NonNeg(6) }

func (b *boxParty) Eval(w, grad, c, jac []float64) float64 {
	if grad != nil {
		clear(grad)
	}
	for j := range w {
		c[j] = b.sign * (w[j] - b.bound)
		if jac != nil {
			for k := range w {
				jac[j*len(w)+k] = 0
			}
			jac[j*len(w)+j] = b.sign
		}
	}
	return 0
}

// TestDeterministicAcrossWorkers: clients run concurrently but reduce in
// client order, so the result is bit-identical for any worker count.
func TestDeterministicAcrossWorkers(t *testing.T) {
	q, w0 := lcqp(t, 5, 30, 6, 2)
	var ref *solver.Result
	for _, workers := range []int{1, 2, 3, 8} {
		res, err := solver.Solve(context.Background(), q.Problem(), w0, &solver.Settings{Workers: workers}, &solver.ProxAL{})
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = res
			continue
		}
		for j := range res.W {
			if math.Float64bits(res.W[j]) != math.Float64bits(ref.W[j]) {
				t.Fatalf("workers=%d: w[%d] = %v, workers=1 gave %v", workers, j, res.W[j], ref.W[j])
			}
		}
		if res.Stats.InnerIterations != ref.Stats.InnerIterations || res.Stats.FloatsUp != ref.Stats.FloatsUp {
			t.Fatalf("workers=%d: stats differ: %+v vs %+v", workers, res.Stats, ref.Stats)
		}
	}
}

// TestCapsAndStatuses: each cap gives its status and the run still returns
// its last iterate with residuals.
func TestCapsAndStatuses(t *testing.T) {
	q, w0 := lcqp(t, 9, 20, 3, 1)
	cases := []struct {
		name string
		s    *solver.Settings
		want solver.Status
		caps bool
	}{
		{"outer-cap", &solver.Settings{MaxOuter: 2}, solver.OuterIterationLimit, false},
		// Capped at 3 inner iterations the method blows up (Diverged at
		// k = 18 by the default MaxNorm).
		{"inner-cap", &solver.Settings{MaxInner: 3, MaxOuter: 50}, 0, true},
		{"default", nil, solver.Converged, false},
		// Every iterate of this QP is far outside ||w||_∞ <= 1e-6.
		{"max-norm", &solver.Settings{MaxNorm: 1e-6}, solver.Diverged, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := solver.Solve(context.Background(), q.Problem(), w0, c.s, &solver.ProxAL{})
			if err != nil {
				t.Fatal(err)
			}
			if c.want != 0 && res.Status != c.want {
				t.Errorf("status %v, want %v", res.Status, c.want)
			}
			if c.caps && res.Stats.InnerCapHits == 0 {
				t.Errorf("no inner cap hits with MaxInner = 3")
			}
			if c.caps && res.Status == solver.Converged {
				t.Errorf("status Converged although the inner solves were capped")
			}
			if c.name == "max-norm" && (res.Stats.OuterIterations != 0 || !floats.Equal(res.W, w0)) {
				t.Errorf("diverged at the first iterate: want w0 back after 0 outer iterations, got %d", res.Stats.OuterIterations)
			}
			if len(res.W) != 20 || !floats.Equal(res.W, res.W) {
				t.Errorf("bad W")
			}
			if res.Status.Early() != (res.Status != solver.Converged) {
				t.Errorf("Early() inconsistent for %v", res.Status)
			}
		})
	}
}

func TestCanceled(t *testing.T) {
	q, w0 := lcqp(t, 2, 20, 2, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := solver.Solve(ctx, q.Problem(), w0, nil, &solver.ProxAL{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res == nil || res.Status != solver.Canceled {
		t.Fatalf("result %+v, want status Canceled", res)
	}
}

// TestRuntimeInsideADMM: Settings.Runtime stops a run inside a long
// Algorithm 2 call (it used to be checked between outer iterations only)
// with status RuntimeLimit and no error, returning w0 audited. ρ_i = 1e-6
// makes the first call need far more than MaxInner ADMM rounds, so without
// the deadline the run would go through all 10^7 of them.
func TestRuntimeInsideADMM(t *testing.T) {
	q, w0 := lcqp(t, 4, 20, 3, 1)
	const maxInner = 10_000_000
	s := &solver.Settings{MaxInner: maxInner, Runtime: 50 * time.Millisecond}
	res, err := solver.Solve(context.Background(), q.Problem(), w0, s, &solver.ProxAL{Rho: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.RuntimeLimit {
		t.Fatalf("status %v, want RuntimeLimit", res.Status)
	}
	if res.Stats.OuterIterations != 0 || res.Stats.Rounds >= maxInner || !floats.Equal(res.W, w0) {
		t.Errorf("outer %d, rounds %d, W = w0: %v; want the interrupted first call dropped", res.Stats.OuterIterations, res.Stats.Rounds, floats.Equal(res.W, w0))
	}
	stat, feas := kkt(q, res.W, res.Mu)
	if stat == 0 || math.Abs(res.Residuals.Stationarity-stat) > 1e-9 || math.Abs(res.Residuals.Feasibility-feas) > 1e-12 {
		t.Errorf("audit %+v, recomputed (%g, %g)", res.Residuals, stat, feas)
	}
}

// TestRuntimeCProxAL: Algorithm 3 stops at Settings.Runtime between
// subproblems, with status RuntimeLimit, no error and its last iterate
// audited. At ε = 1e-15 test (11) cannot hold, so only the deadline ends it.
func TestRuntimeCProxAL(t *testing.T) {
	q, w0 := lcqp(t, 8, 20, 3, 1)
	const maxOuter = 100_000_000
	s := &solver.Settings{Eps1: 1e-15, Eps2: 1e-15, MaxOuter: maxOuter, Runtime: 30 * time.Millisecond}
	res, err := solver.Solve(context.Background(), q.Problem(), w0, s, &solver.CProxAL{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.RuntimeLimit || res.Stats.OuterIterations == 0 || res.Stats.OuterIterations >= maxOuter {
		t.Fatalf("status %v after %d outer iterations, want RuntimeLimit in between", res.Status, res.Stats.OuterIterations)
	}
	stat, feas := kkt(q, res.W, res.Mu)
	if math.Abs(res.Residuals.Stationarity-stat) > 1e-9 || math.Abs(res.Residuals.Feasibility-feas) > 1e-12 {
		t.Errorf("audit %+v, recomputed (%g, %g)", res.Residuals, stat, feas)
	}
}

// slowOuterTransport honours its context, and delays the second MsgOuter
// round until the context is done (then fails, like a network transport)
// or 300 ms have passed.
type slowOuterTransport struct {
	*solver.LocalTransport
	outers int
}

func (s *slowOuterTransport) Exchange(ctx context.Context, b *solver.Broadcast) ([]*solver.Reply, error) {
	if b.Kind == solver.MsgOuter {
		if s.outers++; s.outers == 2 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(300 * time.Millisecond):
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.LocalTransport.Exchange(ctx, b)
}

// TestRuntimeCommitsOuterRound: a deadline that passes during the round
// that commits an outer step (μ_0 has already moved) must not split it:
// the run returns the committed iterate with consistent multipliers, equal
// to a run capped after that many outer iterations.
func TestRuntimeCommitsOuterRound(t *testing.T) {
	q, w0 := lcqp(t, 6, 12, 3, 2)
	p := q.Problem()
	method := func(tr solver.Transport) *solver.ProxAL {
		return &solver.ProxAL{Beta: 10, Rho: 1, Transport: tr}
	}
	tr := &slowOuterTransport{LocalTransport: &solver.LocalTransport{}}
	for _, c := range p.Clients {
		node, err := solver.NewClientNode(c, solver.ClientConfig{Dim: p.Dim, Parties: len(p.Clients) + 1, Beta: 10, Rho: 1, MaxIter: solver.DefaultMaxInner})
		if err != nil {
			t.Fatal(err)
		}
		tr.Nodes = append(tr.Nodes, node)
	}
	res, err := solver.Solve(context.Background(), p, w0, &solver.Settings{Runtime: 100 * time.Millisecond}, method(tr))
	if err != nil {
		t.Fatal(err)
	}
	want, err := solver.Solve(context.Background(), p, w0, &solver.Settings{MaxOuter: 2}, method(nil))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.RuntimeLimit || res.Stats.OuterIterations != 2 {
		t.Fatalf("status %v after %d outer iterations, want RuntimeLimit after 2", res.Status, res.Stats.OuterIterations)
	}
	if !floats.Equal(res.W, want.W) || res.Residuals != want.Residuals {
		t.Errorf("W %v, residuals %+v; want %v, %+v", res.W, res.Residuals, want.W, want.Residuals)
	}
	for i := range want.Mu {
		if !floats.Equal(res.Mu[i], want.Mu[i]) {
			t.Errorf("μ_%d = %v, want %v", i, res.Mu[i], want.Mu[i])
		}
	}
}

func TestBadInput(t *testing.T) {
	q, w0 := lcqp(t, 2, 10, 2, 1)
	cases := []struct {
		name string
		p    *solver.Problem
		w0   []float64
		s    *solver.Settings
		m    solver.Method
	}{
		{"negative beta", q.Problem(), w0, nil, &solver.ProxAL{Beta: -1}},
		{"q out of range", q.Problem(), w0, nil, &solver.ProxAL{Q: 1.5}},
		{"bad rho list", q.Problem(), w0, nil, &solver.ProxAL{RhoClients: []float64{1}}},
		{"zero rho in list", q.Problem(), w0, nil, &solver.ProxAL{RhoClients: []float64{1, 0}}},
		{"cprox negative sbar", q.Problem(), w0, nil, &solver.CProxAL{SBar: -1}},
		{"outer relax 2", q.Problem(), w0, nil, &solver.ProxAL{OuterRelax: 2}},
		{"outer relax negative", q.Problem(), w0, nil, &solver.ProxAL{OuterRelax: -0.5}},
		{"outer relax NaN", q.Problem(), w0, nil, &solver.ProxAL{OuterRelax: math.NaN()}},
		{"cprox outer relax 2.5", q.Problem(), w0, nil, &solver.CProxAL{OuterRelax: 2.5}},
		{"w0 length", q.Problem(), w0[:3], nil, nil},
		{"no clients", &solver.Problem{Dim: 10}, w0, nil, nil},
		{"eps1 >= 1", q.Problem(), w0, &solver.Settings{Eps1: 2}, nil},
		{"negative workers", q.Problem(), w0, &solver.Settings{Workers: -1}, nil},
		{"negative max norm", q.Problem(), w0, &solver.Settings{MaxNorm: -1}, nil},
		{"NaN max norm", q.Problem(), w0, &solver.Settings{MaxNorm: math.NaN()}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := solver.Solve(context.Background(), c.p, c.w0, c.s, c.m); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

// nanParty returns NaN: the run must end with an error naming the problem,
// never a NaN in a table.
type nanParty struct{}

func (nanParty) Cone() solver.Cone { return nil }
func (nanParty) Eval(w, grad, c, jac []float64) float64 {
	if grad != nil {
		for j := range grad {
			grad[j] = math.NaN()
		}
	}
	return math.NaN()
}

func TestNonFiniteParty(t *testing.T) {
	p := &solver.Problem{Dim: 3, Clients: []solver.Party{nanParty{}}}
	for _, m := range []solver.Method{&solver.ProxAL{}, &solver.CProxAL{}} {
		_, err := solver.Solve(context.Background(), p, []float64{1, 0, 0}, nil, m)
		if !errors.Is(err, solver.ErrNonFinite) {
			t.Errorf("%T: err = %v, want ErrNonFinite", m, err)
		}
	}
}

// TestCommunicationCounts checks the float accounting against the message
// sizes: per ADMM round n·(d+1) down and n·d up, plus n more when ε̃ is sent.
func TestCommunicationCounts(t *testing.T) {
	const d, n = 12, 3
	q, w0 := lcqp(t, 4, d, n, 1)
	res, err := solver.Solve(context.Background(), q.Problem(), w0, &solver.Settings{Workers: 1}, &solver.ProxAL{})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	admm := int64(st.InnerIterations)
	outer := int64(st.OuterIterations)
	// Rounds: start + ADMM + one per outer iteration + the audit.
	if int64(st.Rounds) != 1+admm+outer+1 {
		t.Errorf("rounds %d, want %d", st.Rounds, 1+admm+outer+1)
	}
	// Down: w^0, then (w, ε) per ADMM round, then w^{k+1} per outer iteration.
	if want := n * (d + admm*(d+1) + outer*d); st.FloatsDown != want {
		t.Errorf("floats down %d, want %d", st.FloatsDown, want)
	}
	// Up: ũ^0, then ũ (+ε̃ when asked, at least once per outer iteration),
	// then (ũ^0, Δμ) per outer iteration.
	base := n * (d + admm*d + outer*(d+1))
	if st.FloatsUp < base+n*outer || st.FloatsUp > base+n*admm {
		t.Errorf("floats up %d outside [%d, %d]", st.FloatsUp, base+n*outer, base+n*admm)
	}
	if st.BytesUp() != 8*st.FloatsUp {
		t.Errorf("bytes")
	}
}

// TestRhoAdaptKeepsCertificate: residual balancing changes ρ_i during
// Algorithm 2, yet the output must still satisfy Definition 1 (Theorem 7's
// argument needs only that server and clients use the same ρ_i per
// iteration) and match the exact optimum; the exact path refactors.
func TestRhoAdaptKeepsCertificate(t *testing.T) {
	q, w0 := lcqp(t, 11, 30, 4, 2)
	_, fstar, err := q.Exact()
	if err != nil {
		t.Fatal(err)
	}
	for _, rho := range []float64{1e-3, 1, 1e4} {
		cache := solver.NewQuadCache()
		res, err := solver.Solve(context.Background(), q.Problem(), w0, &solver.Settings{Eps1: 1e-6, Eps2: 1e-6},
			&solver.ProxAL{Beta: 10, SBar: 0.1, Rho: rho, Rule: solver.RhoBalance, Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != solver.Converged {
			t.Fatalf("rho0 = %g: %v", rho, res.Status)
		}
		st, fe := kkt(q, res.W, res.Mu)
		if st > 1e-6 || fe > 1e-6 {
			t.Errorf("rho0 = %g: KKT (%g, %g)", rho, st, fe)
		}
		if math.Abs(res.Objective-fstar) > 1e-4*math.Max(1, math.Abs(fstar)) {
			t.Errorf("rho0 = %g: f = %v, f* = %v", rho, res.Objective, fstar)
		}
		if rho != 1 && cache.Len() <= 5 {
			t.Errorf("rho0 = %g: ρ never changed (%d factorisations)", rho, cache.Len())
		}
	}
}

// TestClientStepAllocatesNothing: an exact ADMM client step (19)-(22)
// allocates nothing, so the inner loop puts no load on the GC.
func TestClientStepAllocatesNothing(t *testing.T) {
	q, w0 := lcqp(t, 1, 40, 2, 2)
	node, err := solver.NewClientNode(q.Clients[0], solver.ClientConfig{Dim: 40, Parties: 3, Beta: 10, Rho: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := node.Handle(&solver.Broadcast{Kind: solver.MsgStart, W: w0}); err != nil {
		t.Fatal(err)
	}
	b := &solver.Broadcast{Kind: solver.MsgADMM, W: w0, Eps: 1e-3, NeedEpsTilde: true}
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := node.Handle(b); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("client ADMM step allocates %v times", allocs)
	}
}
