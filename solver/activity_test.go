package solver

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// fewRows is a client with a handful of logistic rows and one linear
// constraint aᵀw <= r: with so few rows its AL term switches on and off
// as u_i moves, which is what M_i has to follow.
type fewRows struct {
	x    [][]float64
	y    []float64
	a    []float64
	r    float64
	scal float64
}

func (p *fewRows) Cone() Cone { return NonNeg(1) }

func (p *fewRows) Eval(w, grad, c, jac []float64) float64 {
	if grad != nil {
		clear(grad)
	}
	var f float64
	for k, x := range p.x {
		var z float64
		for j := range w {
			z += x[j] * w[j]
		}
		m := -p.y[k] * z
		f += p.scal * (max(m, 0) + math.Log1p(math.Exp(-math.Abs(m))))
		if grad != nil {
			s := p.scal * -p.y[k] / (1 + math.Exp(-m))
			for j := range grad {
				grad[j] += s * x[j]
			}
		}
	}
	var aw float64
	for j := range w {
		aw += p.a[j] * w[j]
	}
	c[0] = aw - p.r
	if jac != nil {
		copy(jac, p.a)
	}
	return f
}

func (p *fewRows) Hessian(dst *mat.SymDense, w, _ []float64) {
	for _, x := range p.x {
		var z float64
		for j := range w {
			z += x[j] * w[j]
		}
		s := 1 / (1 + math.Exp(-z))
		h := p.scal * s * (1 - s)
		for a := range w {
			for b := a; b < len(w); b++ {
				dst.SetSym(a, b, dst.At(a, b)+h*x[a]*x[b])
			}
		}
	}
}

func fewRowsProblem(seed uint64, n, rows, d int) *Problem {
	rng := rand.New(rand.NewPCG(seed, 1))
	p := &Problem{Dim: d}
	for i := 0; i < n; i++ {
		c := &fewRows{a: make([]float64, d), r: 0.2 * rng.Float64(), scal: 1 / float64(n)}
		for k := 0; k < rows; k++ {
			x := make([]float64, d)
			for j := range x {
				x[j] = rng.NormFloat64()
			}
			c.x = append(c.x, x)
			c.y = append(c.y, float64(2*(k%2)-1))
		}
		for j := range c.a {
			c.a[j] = rng.NormFloat64() / math.Sqrt(float64(d))
		}
		p.Clients = append(p.Clients, c)
	}
	return p
}

// sumS mirrors what the server does with the clients' messages: S is the
// sum of the M_i sent whole, changed by each rank-one update.
type sumS struct {
	lt   *LocalTransport
	d    int
	s    []float64
	ups  int
	maxd float64 // largest |S - Σ_i M_i| (relative to max |S|) seen
	t    *testing.T
}

func (w *sumS) NumClients() int { return w.lt.NumClients() }

func (w *sumS) Exchange(ctx context.Context, b *Broadcast) ([]*Reply, error) {
	reps, err := w.lt.Exchange(ctx, b)
	if err != nil {
		return nil, err
	}
	d := w.d
	whole := false
	for _, r := range reps {
		whole = whole || r.Metric != nil
	}
	for _, r := range reps {
		for u := r.MetricUpdate; len(u) > 0; u = u[d+1:] {
			w.ups++
			for a := 0; a < d; a++ {
				for c := 0; c < d; c++ {
					w.s[a*d+c] += u[0] * u[1+a] * u[1+c]
				}
			}
		}
	}
	if whole {
		clear(w.s)
		for _, r := range reps {
			for k, v := range r.Metric {
				w.s[k] += v
			}
		}
	}
	// What the clients hold now.
	var diff, scale float64
	sum := make([]float64, d*d)
	for _, n := range w.lt.Nodes {
		for k, v := range n.metric {
			sum[k] += v
		}
	}
	for k := range sum {
		diff = max(diff, math.Abs(sum[k]-w.s[k]))
		scale = max(scale, math.Abs(sum[k]))
	}
	if scale > 0 {
		w.maxd = max(w.maxd, diff/scale)
	}
	return reps, nil
}

// TestMetricFollowsActivity: under the matrix penalty each client's M_i
// gains β∇c∇cᵀ when its AL term becomes active at u_i and loses it when
// the term switches off, and the rank-one updates the clients send keep
// the server's S equal to Σ_i M_i (what the clients actually hold) after
// every round. The run still ends with a Definition 1 certificate.
func TestMetricFollowsActivity(t *testing.T) {
	const d, beta = 4, 50.0
	p := fewRowsProblem(3, 30, 3, d)
	rho := 0.01
	lt := &LocalTransport{Workers: 1}
	for i, c := range p.Clients {
		node, err := NewClientNode(c, ClientConfig{Party: i + 1, Dim: d, Parties: len(p.Clients) + 1, Beta: beta, Rho: rho,
			Smooth: &Newton{}, MaxIter: 100, Rule: RhoHessian, MetricShift: 1e-3})
		if err != nil {
			t.Fatal(err)
		}
		lt.Nodes = append(lt.Nodes, node)
	}
	spy := &sumS{lt: lt, d: d, s: make([]float64, d*d), t: t}
	m := &ProxAL{Beta: beta, SBar: 1e-3, Rho: rho, Q: 0.9, Test: InnerTestMeasured, Rule: RhoHessian, MetricShift: 1e-3 * float64(len(p.Clients)),
		EpsRel: 0.1, Smooth: &Newton{}, Transport: spy}
	s := &Settings{Eps1: 1e-6, Eps2: 1e-6, MaxOuter: 100, MaxInner: 300, Workers: 1}
	res, err := Solve(context.Background(), p, make([]float64, d), s, m)
	if err != nil {
		t.Fatal(err)
	}
	if spy.ups == 0 {
		t.Fatal("no activity change: the instance does not exercise the updates")
	}
	if spy.maxd > 1e-12 {
		t.Errorf("server S differs from Σ_i M_i by %.3g (relative)", spy.maxd)
	}
	if res.Status != Converged || !withinEps(res.Residuals, s) {
		t.Errorf("status %v, residuals %+v", res.Status, res.Residuals)
	}
	t.Logf("%d rank-one updates, %d rounds, %d restarts; max |S - ΣM_i| %.2g", spy.ups, res.Stats.Rounds, res.Stats.Restarts, spy.maxd)
}

// TestMetricActivityRankOne: one client's M_i after its term switched on is
// the M_i built at w̃0 plus β aaᵀ (the constraint's gradient), and after it
// switched off again it is the first M_i.
func TestMetricActivityRankOne(t *testing.T) {
	const d, beta = 3, 20.0
	c := &fewRows{x: [][]float64{{1, 0.5, -0.2}, {-0.3, 1, 0.4}}, y: []float64{1, -1}, a: []float64{1, 0, 0}, r: 0, scal: 1}
	node, err := NewClientNode(c, ClientConfig{Party: 1, Dim: d, Parties: 2, Beta: beta, Rho: 1, Smooth: &Newton{}, MaxIter: 100,
		Rule: RhoHessian, MetricShift: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	inactive := []float64{-1, 0, 0} // aᵀw - r = -1: μ + βc < 0
	if _, err := node.Handle(&Broadcast{Kind: MsgStart, W: inactive}); err != nil {
		t.Fatal(err)
	}
	m0 := append([]float64(nil), node.metric...)
	// A server point deep in the active side pulls u_i across.
	var up []float64
	for t := 0; t < 20 && len(up) == 0; t++ {
		rep, err := node.Handle(&Broadcast{Kind: MsgADMM, W: []float64{3, 0, 0}, Eps: 1e-10})
		if err != nil {
			panic(err)
		}
		up = append(up, rep.MetricUpdate...)
	}
	if len(up) != d+1 || up[0] != 1 {
		t.Fatalf("update %v: want one block with sign +1", up)
	}
	for a := range d {
		if want := math.Sqrt(beta) * c.a[a]; math.Abs(up[1+a]-want) > 1e-15 {
			t.Errorf("v[%d] = %v, want √β a = %v", a, up[1+a], want)
		}
		for b := range d {
			if want := m0[a*d+b] + beta*c.a[a]*c.a[b]; math.Abs(node.metric[a*d+b]-want) > 1e-12 {
				t.Errorf("M[%d,%d] = %v, want %v", a, b, node.metric[a*d+b], want)
			}
		}
	}
	up = up[:0]
	for t := 0; t < 50 && len(up) == 0; t++ {
		rep, err := node.Handle(&Broadcast{Kind: MsgADMM, W: []float64{-3, 0, 0}, Eps: 1e-10})
		if err != nil {
			panic(err)
		}
		up = append(up, rep.MetricUpdate...)
	}
	if len(up) != d+1 || up[0] != -1 {
		t.Fatalf("update %v: want one block with sign -1", up)
	}
	for k := range m0 {
		if math.Abs(node.metric[k]-m0[k]) > 1e-12 {
			t.Errorf("M_i[%d] = %v after switching off, want %v", k, node.metric[k], m0[k])
		}
	}
}

// fixedReplies is a transport whose clients answer with prepared replies.
type fixedReplies struct{ reps []*Reply }

func (f *fixedReplies) NumClients() int { return len(f.reps) }
func (f *fixedReplies) Exchange(context.Context, *Broadcast) ([]*Reply, error) {
	return f.reps, nil
}

// TestServerAppliesMetricUpdates: the server adds each client's signed
// rank-one updates to S in an ADMM round and refactors it, and refuses an
// update outside an ADMM round, of the wrong size or with a sign other
// than ±1.
func TestServerAppliesMetricUpdates(t *testing.T) {
	const d = 2
	newRun := func(reps []*Reply) *proxALRun {
		r := &proxALRun{d: d, n: len(reps), p: &Problem{Dim: d}, server: &merit{prox: 0.5},
			tr: &fixedReplies{reps}, res: &Result{}, weighted: []bool{true, true},
			uTilde: [][]float64{make([]float64, d), make([]float64, d)}, smat: []float64{2, 0, 0, 3}}
		if err := r.factorS(); err != nil {
			t.Fatal(err)
		}
		return r
	}
	reps := []*Reply{
		{MUTilde: []float64{1, 1}, MetricUpdate: []float64{1, 1, 2}},
		{MUTilde: []float64{1, 1}, MetricUpdate: []float64{-1, 0.5, 0, 1, 0, 1}},
	}
	r := newRun(reps)
	if _, err := r.exchange(context.Background(), &Broadcast{Kind: MsgADMM, W: make([]float64, d)}); err != nil {
		t.Fatal(err)
	}
	// S = [2 0; 0 3] + [1 2; 2 4] - [0.25 0; 0 0] + [0 0; 0 1].
	want := []float64{2.75, 2, 2, 8}
	for k := range want {
		if math.Abs(r.smat[k]-want[k]) > 1e-15 {
			t.Fatalf("S = %v, want %v", r.smat, want)
		}
	}
	// The factor is of S + aI (no server constraint, a = 0.5).
	var x mat.VecDense
	if err := r.schol.SolveVecTo(&x, mat.NewVecDense(d, []float64{5.25, 10.5})); err != nil {
		t.Fatal(err)
	}
	if math.Abs(x.AtVec(0)-1) > 1e-12 || math.Abs(x.AtVec(1)-1) > 1e-12 {
		t.Errorf("(S + aI)⁻¹(S + aI)1 = %v: S was not refactored", x.RawVector().Data)
	}
	for _, tc := range []struct {
		name string
		kind MsgKind
		up   []float64
	}{
		{"outer round", MsgOuter, []float64{1, 1, 2}},
		{"short block", MsgADMM, []float64{1, 1}},
		{"sign 2", MsgADMM, []float64{2, 1, 2}},
		{"NaN", MsgADMM, []float64{1, math.NaN(), 2}},
	} {
		r := newRun([]*Reply{{MUTilde: []float64{1, 1}, MetricUpdate: tc.up}, {MUTilde: []float64{1, 1}}})
		if _, err := r.exchange(context.Background(), &Broadcast{Kind: tc.kind, W: make([]float64, d)}); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}

// TestMetricActivityRestore: a node restored from a checkpoint taken after
// an activity change answers the next rounds bit for bit as the original
// (the same M_i, the same later updates); a state whose activity does not
// fit the node is refused.
func TestMetricActivityRestore(t *testing.T) {
	const d, beta = 3, 20.0
	c := &fewRows{x: [][]float64{{1, 0.5, -0.2}, {-0.3, 1, 0.4}}, y: []float64{1, -1}, a: []float64{1, 0, 0}, r: 0, scal: 1}
	newNode := func() *ClientNode { return oneClient(t, c, beta) }
	a := newNode()
	if _, err := a.Handle(&Broadcast{Kind: MsgStart, W: []float64{-1, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	changed := false
	for k := 0; k < 20 && !changed; k++ {
		rep, err := a.Handle(&Broadcast{Kind: MsgADMM, W: []float64{3, 0, 0}, Eps: 1e-10})
		if err != nil {
			t.Fatal(err)
		}
		changed = len(rep.MetricUpdate) > 0
	}
	if !changed {
		t.Fatal("no activity change")
	}
	b := newNode()
	if err := b.Restore(a.State()); err != nil {
		t.Fatal(err)
	}
	answer := func(r *Reply) string {
		return fmt.Sprintf("%v %v %v", r.MUTilde, r.MetricUpdate, r.EpsTilde)
	}
	for k := 0; k < 10; k++ {
		next := &Broadcast{Kind: MsgADMM, W: []float64{-3, 0.1 * float64(k), 0}, Eps: 1e-10, NeedEpsTilde: true}
		ra, err := a.Handle(next)
		if err != nil {
			t.Fatal(err)
		}
		want := answer(ra)
		rb, err := b.Handle(next)
		if err != nil {
			t.Fatal(err)
		}
		if got := answer(rb); got != want {
			t.Fatalf("round %d: restored node answers %s, the original %s", k, got, want)
		}
	}
	st := a.State()
	st.MetricActive = append(st.MetricActive, true)
	if err := b.Restore(st); err == nil {
		t.Error("a state with two activities for one constraint was accepted")
	}
}

// TestRestoreOwnEarlierState: a node set back to a state of its own from
// before a step (a partial round's reply dropped at the deadline) answers
// the next round exactly as a node that never took the step, its counted
// passes included: what the step left behind (Newton's factor, cached
// evaluations) must not survive the restore.
func TestRestoreOwnEarlierState(t *testing.T) {
	const d, beta = 3, 20.0
	c := &fewRows{x: [][]float64{{1, 0.5, -0.2}, {-0.3, 1, 0.4}}, y: []float64{1, -1}, a: []float64{1, 0, 0}, r: 0, scal: 1}
	newNode := func() *ClientNode { return oneClient(t, c, beta) }
	a, b := newNode(), newNode()
	start := &Broadcast{Kind: MsgStart, W: []float64{-1, 0, 0}}
	for _, n := range []*ClientNode{a, b} {
		if _, err := n.Handle(start); err != nil {
			t.Fatal(err)
		}
	}
	before := a.State()
	if _, err := a.Handle(&Broadcast{Kind: MsgADMM, W: []float64{3, 1, 0}, Eps: 1e-10}); err != nil { // dropped
		t.Fatal(err)
	}
	if err := a.Restore(before); err != nil {
		t.Fatal(err)
	}
	answer := func(r *Reply) string {
		return fmt.Sprintf("%v %v %v evals %d iterations %d", r.MUTilde, r.MetricUpdate, r.EpsTilde, r.Evals, r.Iterations)
	}
	next := &Broadcast{Kind: MsgADMM, W: []float64{0.5, -0.2, 0.1}, Eps: 1e-10, NeedEpsTilde: true}
	ra, err := a.Handle(next)
	if err != nil {
		t.Fatal(err)
	}
	got := answer(ra)
	rb, err := b.Handle(next)
	if err != nil {
		t.Fatal(err)
	}
	if want := answer(rb); got != want {
		t.Errorf("restored node answers %s, a node that never took the step %s", got, want)
	}
}

// oneClient is a single client of the matrix-penalty rule over c, with
// its own Newton solver.
func oneClient(t *testing.T, c *fewRows, beta float64) *ClientNode {
	t.Helper()
	n, err := NewClientNode(c, ClientConfig{Party: 1, Dim: len(c.a), Parties: 2, Beta: beta, Rho: 1, MaxIter: 100,
		Rule: RhoHessian, MetricShift: 0.01, Smooth: &Newton{}})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
