package solver

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Defaults of the method parameters (zero fields of ProxAL and CProxAL).
const (
	DefaultBeta = 10  // β: Table 4's value
	DefaultSBar = 0.1 // s̄: Table 4's value
	DefaultRho  = 1   // ρ_i: Table 4's value
	DefaultQ    = 0.9 // q of ε_{t+1} = q^t: not given in the paper; the authors' code uses 0.9
)

// InnerTest selects the termination test of Algorithm 2.
type InnerTest int

const (
	// InnerTestPaper is eq. (23): ε_{t+1} + Σ_i ε̃_{i,t+1} <= τ.
	InnerTestPaper InnerTest = iota
	// InnerTestMeasured replaces ε_{t+1} by the server residual actually
	// reached, ||∇φ_{0,t}(w^{t+1})||_∞ <= ε_{t+1}. The proof of Theorem 7 holds
	// unchanged, so (10) is still certified. With an exact server step this is
	// the authors' QP practice (their code tests Σ_i ε̃_{i,t+1} <= τ alone).
	InnerTestMeasured
)

func (t InnerTest) String() string {
	if t == InnerTestMeasured {
		return "measured"
	}
	return "paper"
}

// MarshalText writes the test's name: paper or measured.
func (t InnerTest) MarshalText() ([]byte, error) {
	if t != InnerTestPaper && t != InnerTestMeasured {
		return nil, fmt.Errorf("solver: unknown inner test %d", int(t))
	}
	return []byte(t.String()), nil
}

// UnmarshalText reads paper or measured.
func (t *InnerTest) UnmarshalText(b []byte) error {
	switch string(b) {
	case "paper":
		*t = InnerTestPaper
	case "measured":
		*t = InnerTestMeasured
	default:
		return fmt.Errorf("%q: want paper or measured", string(b))
	}
	return nil
}

// ProxAL is Algorithm 1 (proximal AL federated learning) with Algorithm 2
// (inexact ADMM) as its inner solver. Zero fields take the documented defaults.
type ProxAL struct {
	// Beta is the AL penalty β > 0 (default DefaultBeta).
	Beta float64
	// SBar is s̄ > 0 in τ_k = s̄/(k+1)² (default DefaultSBar).
	SBar float64
	// Rho is ρ_i > 0 for every client (default DefaultRho); RhoClients, if
	// non-nil, gives one value per client instead.
	Rho        float64
	RhoClients []float64
	// Q is q ∈ (0, 1) of ε_{t+1} = q^t (default DefaultQ).
	Q float64
	// EpsFloor, if positive, bounds ε_{t+1} below (ε_{t+1} = max(q^t, EpsFloor)).
	// The paper has no floor (zero); the authors' code floors at 1e-10.
	EpsFloor float64
	// Test selects eq. (23) or its measured variant.
	Test InnerTest
	// Rule chooses how ρ_i evolves (default RhoFixed: the paper).
	Rule RhoRule
	// RhoStart chooses ρ_i's first value: RhoStartGiven (Rho/RhoClients) or
	// RhoStartCurvature (each client's sqrt(L_i μ_i), see curvatureRho;
	// clients whose party gives no Hessian keep the given value).
	RhoStart RhoStart
	// Relax is the over-relaxation α ∈ (0, 2) of the clients' steps
	// (default 1: none, the paper).
	Relax float64
	// MetricShift is σ ≥ 0 in M_i = ∇²P_i(w̃^0) + (σ/n)I (RhoHessian
	// only): the shift is split across the n clients as their objectives
	// split the loss, so it stays in proportion to each client's
	// curvature whatever n (docs/rho-rules.md, "The shift"). Zero means
	// none: P_i's proximal share already makes M_i positive definite.
	MetricShift float64
	// OuterRelax is λ ∈ (0, 2) of the relaxed proximal point step
	// (Eckstein and Bertsekas 1992): the next centre is (w^k, μ^k) +
	// λ((w^{k+1}, μ^{k+1}) - (w^k, μ^k)), μ projected onto K*. Proximal AL is
	// the proximal point method on the KKT operator of (5) (Rockafellar
	// 1976), so λ > 1 covers up to λ times the distance per outer iteration
	// where the plain method creeps; test (11) is still applied to the plain
	// step (docs/rho-rules.md). Relaxed steps are taken only while the
	// residual of (11) does not grow, and the run ends on a plain step.
	// Default 0 (= 1): none, the paper.
	OuterRelax float64
	// EpsRel, if positive, bounds ε_{t+1} above by EpsRel·(Σ_i ε̃_i)/n of
	// the last round that measured it: the local solves keep pace with the
	// certificate instead of the fixed schedule q^t, whose early rounds
	// (q^t ≫ τ_k) add more error to ε̃_i than the ADMM removes. Smaller than
	// q^t, so the inexactness the paper's analysis allows is respected
	// (default 0: the paper).
	EpsRel float64
	// Mu0 are the initial multipliers, index 0 the server's; nil means 0.
	Mu0 [][]float64
	// ADMMStart, if non-nil, is the w̃0 of every Algorithm 2 call instead of
	// w^k (the paper). The authors' NP code restarted at the trial's w0; the
	// proximal centre stays w^k either way.
	ADMMStart []float64
	// Smooth solves non-quadratic subproblems (default LBFGS{}).
	Smooth SmoothSolver
	// Cache, if non-nil, shares exact factorisations across Solve calls.
	Cache *QuadCache
	// Transport, if non-nil, reaches the clients (e.g. over a network); nil
	// means in-process goroutines built from Problem.Clients.
	Transport Transport
	// Participation, if non-nil, samples the clients of Algorithm 2's
	// rounds (docs/participation.md); nil: every client every round.
	Participation *Participation
	// Straggler, if non-nil, runs a simulated clock (Stats.SimWall) whose
	// deadline, if set, makes slow clients miss partial rounds.
	Straggler *Straggler
	// Polish, if true, finishes with the federated KKT polish (polish.go):
	// test (11) first stops at max(ε, PolishFrom), then Newton on the
	// identified active set; if its point is not certified within
	// (ε1, ε2), the proximal AL iteration goes on with three times smaller
	// tolerances and polishes again. It is also tried where test (11)'s
	// residual stalls (polishStalled). Default false: the paper. Needs
	// orthant or zero cones and Hessians (HessianParty or QuadraticParty).
	Polish bool
	// PolishFrom is the tolerance of test (11) at which the polish is
	// first tried (default DefaultPolishFrom); at most ε it is never tried
	// before the run's own end.
	PolishFrom float64
}

// DefaultPolishFrom is where the polish is first tried: the papers'
// tolerance, where the proximal AL iterate has identified the active set
// on every problem of their tables.
const DefaultPolishFrom = 1e-3

// RhoStart selects the first value of ρ_i.
type RhoStart int

const (
	// RhoStartGiven uses ProxAL.Rho or RhoClients.
	RhoStartGiven RhoStart = iota
	// RhoStartCurvature lets each client set sqrt(L_i μ_i) from its Hessian at w^0.
	RhoStartCurvature
)

func (m *ProxAL) params(n int) (beta, sbar, q float64, rho []float64, err error) {
	beta, sbar, q = orDefault(m.Beta, DefaultBeta), orDefault(m.SBar, DefaultSBar), orDefault(m.Q, DefaultQ)
	switch {
	case !(beta > 0) || math.IsInf(beta, 0):
		return 0, 0, 0, nil, fmt.Errorf("solver: ProxAL.Beta = %v: must be > 0", m.Beta)
	case !(sbar > 0) || math.IsInf(sbar, 0):
		return 0, 0, 0, nil, fmt.Errorf("solver: ProxAL.SBar = %v: must be > 0", m.SBar)
	case !(q > 0 && q < 1):
		return 0, 0, 0, nil, fmt.Errorf("solver: ProxAL.Q = %v: must be in (0, 1)", m.Q)
	case m.EpsFloor < 0:
		return 0, 0, 0, nil, fmt.Errorf("solver: ProxAL.EpsFloor = %v: must be >= 0", m.EpsFloor)
	case !(m.EpsRel >= 0) || math.IsInf(m.EpsRel, 0):
		return 0, 0, 0, nil, fmt.Errorf("solver: ProxAL.EpsRel = %v: must be a finite number >= 0", m.EpsRel)
	case !(m.MetricShift >= 0) || math.IsInf(m.MetricShift, 0):
		return 0, 0, 0, nil, fmt.Errorf("solver: ProxAL.MetricShift = %v: must be a finite number >= 0", m.MetricShift)
	case m.Rule < RhoFixed || m.Rule > RhoHessian:
		return 0, 0, 0, nil, fmt.Errorf("solver: ProxAL.Rule = %d: unknown rho rule", int(m.Rule))
	case m.RhoStart != RhoStartGiven && m.RhoStart != RhoStartCurvature:
		return 0, 0, 0, nil, fmt.Errorf("solver: ProxAL.RhoStart = %d: unknown", int(m.RhoStart))
	case m.Relax != 0 && !(m.Relax > 0 && m.Relax < 2):
		return 0, 0, 0, nil, fmt.Errorf("solver: ProxAL.Relax = %v: must be in (0, 2)", m.Relax)
	}
	if err := checkOuterRelax("ProxAL", m.OuterRelax); err != nil {
		return 0, 0, 0, nil, err
	}
	rho = make([]float64, n)
	for i := range rho {
		rho[i] = orDefault(m.Rho, DefaultRho)
		if m.RhoClients != nil {
			if len(m.RhoClients) != n {
				return 0, 0, 0, nil, fmt.Errorf("solver: len(ProxAL.RhoClients) = %d, want %d clients", len(m.RhoClients), n)
			}
			rho[i] = m.RhoClients[i]
		}
		if !(rho[i] > 0) || math.IsInf(rho[i], 0) {
			return 0, 0, 0, nil, fmt.Errorf("solver: rho of client %d = %v: must be > 0", i+1, rho[i])
		}
	}
	return beta, sbar, q, rho, nil
}

// checkOuterRelax reports a relaxation outside (0, 2) (0: the default, none).
func checkOuterRelax(method string, v float64) error {
	if v != 0 && !(v > 0 && v < 2) {
		return fmt.Errorf("solver: %s.OuterRelax = %v: must be in (0, 2)", method, v)
	}
	return nil
}

func orDefault(v, d float64) float64 {
	if v == 0 {
		return d
	}
	return v
}

func (m *ProxAL) smooth() SmoothSolver {
	if m.Smooth == nil {
		return LBFGS{}
	}
	return m.Smooth
}

// mu0 returns μ_i^0 for party i (nil = zeros), checking its length.
func mu0(all [][]float64, i int, p Party) ([]float64, error) {
	if all == nil || all[i] == nil {
		return nil, nil
	}
	if p == nil || len(all[i]) != coneDim(p.Cone()) {
		return nil, fmt.Errorf("solver: Mu0[%d] has length %d, want the constraint dimension", i, len(all[i]))
	}
	return all[i], nil
}

// proxALRun is the server side of Algorithm 1 for one run.
type proxALRun struct {
	m      *ProxAL
	p      *Problem
	s      *Settings
	tr     Transport
	d, n   int
	beta   float64
	q      float64
	rho    []float64
	rhoSum float64

	smooth    SmoothSolver // the server's own copy
	server    *merit       // P_0 of eq. (13)
	sub       *subproblem  // φ_{0,t} of eq. (18)
	quad      *quadFactor  // exact server step when quadratic with a constraint
	uTilde    [][]float64  // latest ũ_i, or M_i ũ_i where weighted[i] (copies; the server's own state)
	weighted  []bool       // uTilde[i] is M_i ũ_i (RhoHessian), not ũ_i
	wt, gs    []float64
	wprev     []float64 // w^t, for the dual residual of residual balancing
	bc        Broadcast // reused: the inner loop allocates nothing
	rhoScale  float64   // ρ_i / initial ρ_i (residual balancing)
	primal    float64   // max_i ||u_i - w||_∞ of the last ADMM round
	res       *Result
	localIter int
	misses    int // local solves short of ε_{t+1} (Stats.LocalMisses)
	evals     int64
	lastCert  float64 // Σ_i ε̃_i of the last round that measured it; -1 before
	restarts  int     // Algorithm 2 restarts (Stats.Restarts)
	clock     *clock  // ProxAL.Straggler's simulated clock; nil without
	// RhoHessian: S = Σ_i M_i (ρ_i I for a client without M_i), and the
	// Cholesky factor of S + aI (no global constraint) or of S.
	smat        []float64
	schol       mat.Cholesky
	useMetric   bool
	certs       []float64 // Σ_i ε̃_i per round of the current call
	lastRefresh int
	// The safeguard: the iterates with the smallest and the latest
	// certificate of the current call.
	best, last []float64
	bestCert   float64
	// polishedMu are every party's multipliers at a polished point.
	polishedMu [][]float64
	// part samples the clients of each round (nil: all, the paper).
	part *participation
}

// Matrix penalties are refreshed when the certificate fell by less than
// half over the last refreshWindow rounds: M_i from w̃^0 no longer
// matches P_i's curvature where the iterates are. If the certificate is
// then above four times the call's best, the call restarts: from its
// latest iterate if that is within restartNear times the best, else from
// the best (docs/rho-rules.md, "The safeguard"): always the best took 354
// ADMM rounds per trial at adult-a n = 500, 30 takes 244, always the latest
// 252; on monks-1 n = 100, where a call does diverge (a certificate 1.8e5
// times its best), always the latest took 115 rounds, 30 takes 73.
const (
	refreshWindow = 5
	restartNear   = 30
)

// stalled reports whether round t should refresh the clients' M_i.
func (r *proxALRun) stalled(t int) bool {
	n := len(r.certs)
	if t-r.lastRefresh < refreshWindow || n < refreshWindow+1 {
		return false
	}
	return r.certs[n-1] > 0.5*r.certs[n-1-refreshWindow]
}

func (m *ProxAL) run(ctx context.Context, p *Problem, w0 []float64, s *Settings) (*Result, error) {
	n, d := len(p.Clients), p.Dim
	beta, sbar, q, rho, err := m.params(n)
	if err != nil {
		return nil, err
	}
	if m.Mu0 != nil && len(m.Mu0) != n+1 {
		return nil, fmt.Errorf("solver: len(ProxAL.Mu0) = %d, want n+1 = %d", len(m.Mu0), n+1)
	}
	r := &proxALRun{m: m, p: p, s: s, d: d, n: n, beta: beta, q: q, rho: rho}
	for _, v := range rho {
		r.rhoSum += v
	}
	m00, err := mu0(m.Mu0, 0, p.Server)
	if err != nil {
		return nil, err
	}
	r.server = newMerit(p.Server, d, beta, 1/(float64(n+1)*beta), m00)
	r.sub = newSubproblem(d, r.server)
	r.sub.sigma = r.rhoSum
	r.smooth = own(m.smooth())
	if p.Server != nil && isQuadratic(r.sub.merits) {
		if r.quad, err = m.Cache.factor(r.sub.merits, d, beta, subAlpha(r.sub)); err != nil {
			return nil, err
		}
	}
	r.tr = m.Transport
	if r.tr == nil {
		lt := &LocalTransport{Workers: s.Workers}
		for i, c := range p.Clients {
			mi, err := mu0(m.Mu0, i+1, c)
			if err != nil {
				return nil, err
			}
			node, err := NewClientNode(c, ClientConfig{
				Party: i + 1, Dim: d, Parties: n + 1, Beta: beta, Rho: rho[i], Mu0: mi,
				Smooth: m.smooth(), Cache: m.Cache, MaxIter: s.MaxInner, ADMMStart: m.ADMMStart,
				Rule: m.Rule, RhoFromCurvature: m.RhoStart == RhoStartCurvature, Relax: m.Relax, MetricShift: m.MetricShift / float64(n),
			})
			if err != nil {
				return nil, fmt.Errorf("client %d: %w", i+1, err)
			}
			lt.Nodes = append(lt.Nodes, node)
		}
		r.tr = lt
	}
	if m.ADMMStart != nil && len(m.ADMMStart) != d {
		return nil, fmt.Errorf("solver: len(ProxAL.ADMMStart) = %d, want %d", len(m.ADMMStart), d)
	}
	if r.tr.NumClients() != n {
		return nil, fmt.Errorf("solver: transport reaches %d clients, problem has %d", r.tr.NumClients(), n)
	}
	r.uTilde, r.weighted = make([][]float64, n), make([]bool, n)
	for i := range r.uTilde {
		r.uTilde[i] = make([]float64, d)
	}
	r.wt, r.gs, r.wprev = make([]float64, d), make([]float64, d), make([]float64, d)
	r.rhoScale, r.primal, r.lastCert = 1, -1, -1
	r.res = &Result{}
	if err := r.initParticipation(); err != nil {
		return nil, err
	}

	w := append([]float64(nil), w0...)
	copy(r.server.center, w)
	reps, err := r.exchange(context.WithoutCancel(ctx), &Broadcast{Kind: MsgStart, W: w})
	if err != nil {
		return nil, err
	}
	if err := r.takeRho(reps); err != nil {
		return nil, err
	}
	if err := r.takeMetric(reps); err != nil {
		return nil, err
	}
	loop := &outerLoop{s: s, beta: beta, sbar: sbar, relax: m.OuterRelax, res: r.res}
	canPolish := m.Polish && polishable(append([]Party{p.Server}, p.Clients...), m.Transport == nil)
	if canPolish {
		loop.polishFrom = orDefault(m.PolishFrom, DefaultPolishFrom)
		loop.polish = func(ctx context.Context) (bool, error) { return r.polish(ctx, w) }
	}
	res, err := loop.run(ctx, r, w, func() (int, int64, int64) {
		return r.res.Stats.Rounds, r.res.Stats.FloatsDown, r.res.Stats.FloatsUp
	})
	res.W = w
	if err == nil && res.Status != Diverged {
		// One diagnostic round, also when the deadline has passed.
		err = r.audit(context.WithoutCancel(ctx), w)
		if err == nil && canPolish && !res.Polished && !withinEps(res.Residuals, s) {
			// The run ended uncertified (a cap, or test (11) without the
			// audit): polish, and audit again if that certified a point.
			var ok bool
			if ok, err = r.polish(context.WithoutCancel(ctx), w); ok && err == nil {
				err = r.audit(context.WithoutCancel(ctx), w)
			}
		}
	}
	res.Stats.LocalIterations, res.Stats.LocalMisses, res.Stats.Restarts = r.localIter, r.misses, r.restarts
	if err == nil {
		certify(res, s)
	}
	res.Stats.Evaluations = r.evals + r.server.passes()
	return res, err
}

// exchange runs one round and counts what crosses the boundary.
// Under partial participation it is a full round (participation.all).
func (r *proxALRun) exchange(ctx context.Context, b *Broadcast) ([]*Reply, error) {
	if r.part != nil {
		return r.part.all(ctx, r, b)
	}
	reps, err := r.tr.Exchange(ctx, b)
	if err != nil {
		return nil, err
	}
	if err := r.count(b, reps, r.n); err != nil {
		return nil, err
	}
	if r.clock != nil {
		r.res.Stats.SimWall += r.clock.tick(reps, false)
	}
	return reps, nil
}

// count adds one round to the stats: b sent to sent clients, reps (nil
// for a client that did not answer) back, and keeps the ũ_i received.
func (r *proxALRun) count(b *Broadcast, reps []*Reply, sent int) error {
	st := &r.res.Stats
	st.Rounds++
	refactor := false
	switch {
	case b.Kind != MsgAudit:
		st.FloatsDown += int64(sent) * b.floats()
	case b.Mu != nil: // the audit's w is already held; committed multipliers are not
		st.FloatsDown += int64(sent) * (b.floats() - int64(len(b.W)))
	}
	for i, rep := range reps {
		if rep == nil {
			continue
		}
		alg, diag := rep.floats(b.Kind)
		st.FloatsUp += alg
		st.DiagFloatsUp += diag
		r.localIter += rep.Iterations
		if rep.Missed {
			r.misses++
		}
		r.evals += rep.Evals
		if b.Kind != MsgAudit && (rep.UTilde != nil || rep.MUTilde != nil) {
			if rep.MUTilde != nil {
				copy(r.uTilde[i], rep.MUTilde)
			} else {
				copy(r.uTilde[i], rep.UTilde)
			}
			r.weighted[i] = rep.MUTilde != nil
		}
		if len(rep.MetricUpdate) > 0 {
			if err := r.updateS(i, b.Kind, rep.MetricUpdate); err != nil {
				return err
			}
			refactor = true
		}
	}
	if refactor {
		// S changed: (18) of the next round uses the clients' new M_i.
		return r.factorS()
	}
	return nil
}

// step runs Algorithm 2 from w̃0 = w^k to τ_k, then the multiplier updates of
// Algorithm 1 (server, broadcast, clients).
func (r *proxALRun) step(ctx context.Context, k int, tau, lambda float64, w []float64) (outerStep, error) {
	copy(r.wt, w)
	if r.m.ADMMStart != nil {
		copy(r.wt, r.m.ADMMStart)
	}
	eps := 1.0 // ε_1 = q^0
	r.certs, r.lastRefresh, r.bestCert = r.certs[:0], 0, math.Inf(1)
	if r.best == nil {
		r.best, r.last = make([]float64, r.d), make([]float64, r.d)
	}
	floor := r.m.EpsFloor
	var out outerStep
	out.capped = true
	out.cert = math.NaN()
	for t := 0; t < r.s.MaxInner; t++ {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		epsT := eps
		if r.m.EpsRel > 0 && r.lastCert >= 0 {
			epsT = min(epsT, r.m.EpsRel*r.lastCert/float64(r.n))
		}
		epsT = max(epsT, floor)
		// A stall well above the call's best: restart now, not after one
		// more step that the restart would discard.
		refresh := r.useMetric && r.stalled(t)
		if refresh && r.certs[len(r.certs)-1] > 4*r.bestCert {
			// Algorithm 2 starts afresh (a valid start: (23) holds for any
			// w̃0); the clients reply ũ_i^0. The start is the last measured
			// iterate where its certificate is within restartNear of the
			// call's best (the ADMM bounced: at n = 500 one client's AL
			// term switching between u_i and w, and the best iterate is
			// where that bounce begins), else the best (it diverged).
			if r.certs[len(r.certs)-1] > restartNear*r.bestCert {
				copy(r.wt, r.best)
			} else {
				copy(r.wt, r.last)
			}
			reps, err := r.exchange(ctx, &Broadcast{Kind: MsgADMM, W: r.wt, Restart: true})
			if err != nil {
				return out, err
			}
			if err := r.takeMetric(reps); err != nil {
				return out, err
			}
			r.restarts++
			// The new start's own best is what a later divergence is judged by.
			r.certs, r.lastRefresh, r.bestCert = r.certs[:0], t, math.Inf(1)
			out.inner = t + 1
			continue
		}
		// The measured test counts the server's residual reached: a server
		// with a global constraint solves (18) to τ_k/2 at least, or no
		// round could ever be certified (its own passes, no communication).
		srvTol := epsT
		if r.m.Test == InnerTestMeasured {
			srvTol = min(epsT, tau/2)
		}
		r0, err := r.serverStep(srvTol)
		if err != nil {
			return out, err
		}
		lhs := epsT
		if r.m.Test == InnerTestMeasured {
			lhs = r0
		}
		b := &r.bc
		*b = Broadcast{Kind: MsgADMM, W: r.wt, Eps: epsT, NeedEpsTilde: lhs <= tau}
		if r.m.Rule == RhoBalance {
			b.RhoScale = r.balance(t)
		}
		b.Refresh = refresh
		reps, full, err := r.admmExchange(ctx, b, tau, lhs)
		if err != nil {
			return out, err
		}
		if err := r.takeRho(reps); err != nil {
			return out, err
		}
		if b.Refresh {
			if err := r.takeMetric(reps); err != nil {
				return out, err
			}
			r.lastRefresh = t
		}
		if r.m.Rule == RhoBalance {
			r.primal = 0
			for _, rep := range reps {
				if rep != nil {
					r.primal = max(r.primal, rep.Primal)
				}
			}
			// The clients switched to the new ρ_i after their step: so does
			// the server, for (18) in the next iteration.
			r.setScale(r.rhoScale * b.RhoScale)
		}
		copy(r.wprev, r.wt)
		out.inner = t + 1
		if lhs <= tau && full {
			var sum float64
			for _, rep := range reps { // client order
				sum += rep.EpsTilde
			}
			out.cert = lhs + sum
			r.lastCert = sum
			r.certs = append(r.certs, sum)
			copy(r.last, r.wt)
			if sum < r.bestCert {
				r.bestCert = sum
				copy(r.best, r.wt)
			}
			if lhs+sum <= tau { // eq. (23)
				out.capped = false
				break
			}
		}
		if !finite(r.wt) {
			break
		}
		eps *= r.q
	}
	// Server update of μ_0 at w^{k+1}.
	if err := r.server.eval(r.wt, false); err != nil {
		return out, fmt.Errorf("server: %w", err)
	}
	out.stepMu = r.server.relaxMultiplier(lambda)
	out.parties = append(out.parties, r.server.value())
	relaxCenter(r.server.center, r.wt, lambda)
	// Broadcast w^{k+1} (and λ); clients update μ_i and reply ||Δμ_i||_∞.
	// Only ADMM rounds are interrupted: this one commits the step (μ_0 has
	// moved), so it completes even past a deadline or a cancel.
	ob := &Broadcast{Kind: MsgOuter, W: r.wt}
	if lambda != 1 {
		ob.OuterRelax = lambda
	}
	reps, err := r.exchange(context.WithoutCancel(ctx), ob)
	if err != nil {
		return out, err
	}
	if err := r.takeMetric(reps); err != nil {
		return out, err
	}
	for _, rep := range reps {
		out.stepMu = max(out.stepMu, rep.StepMu)
		out.parties = append(out.parties, PartyValue{F: rep.Value.F, C: append([]float64(nil), rep.Value.C...)})
	}
	out.wNext = r.wt
	return out, nil
}

// takeRho adopts the ρ_i the clients report (RhoAdaptive, or a curvature
// start): (18) must use the ρ_i with which each ũ_i was formed.
func (r *proxALRun) takeRho(reps []*Reply) error {
	changed := false
	for i, rep := range reps {
		if rep == nil || rep.Rho == 0 || rep.Rho == r.rho[i] {
			continue
		}
		if !(rep.Rho > 0) || math.IsInf(rep.Rho, 0) {
			return fmt.Errorf("client %d: reported rho = %v: must be finite and > 0", i+1, rep.Rho)
		}
		r.rho[i], changed = rep.Rho, true
	}
	if !changed {
		return nil
	}
	r.rhoSum = 0
	for _, v := range r.rho { // client order
		r.rhoSum += v
	}
	r.sub.sigma = r.rhoSum
	if r.quad != nil {
		q, err := r.m.Cache.factor(r.sub.merits, r.d, r.beta, subAlpha(r.sub))
		if err != nil {
			return fmt.Errorf("server: %w", err)
		}
		r.quad = q
	}
	return nil
}

// takeMetric adopts the M_i the clients sent for the next Algorithm 2 call
// (RhoHessian) and factors the server's matrix of (18).
func (r *proxALRun) takeMetric(reps []*Reply) error {
	any := false
	for _, rep := range reps {
		any = any || rep.Metric != nil
	}
	if !any {
		return nil
	}
	d := r.d
	if r.smat == nil {
		r.smat = make([]float64, d*d)
	}
	clear(r.smat)
	for i, rep := range reps { // client order
		if (rep.Metric != nil) != r.weighted[i] {
			return fmt.Errorf("client %d: sent M_i ũ_i: %v, M_i: %v; a matrix penalty needs both", i+1, r.weighted[i], rep.Metric != nil)
		}
		if rep.Metric == nil {
			for j := 0; j < d; j++ {
				r.smat[j*d+j] += r.rho[i]
			}
			continue
		}
		if len(rep.Metric) != d*d || !finite(rep.Metric) {
			return fmt.Errorf("client %d: metric of length %d (want %d) or not finite", i+1, len(rep.Metric), d*d)
		}
		floats.Add(r.smat, rep.Metric)
	}
	return r.factorS()
}

// updateS applies client i's rank-one changes of M_i to S (in the order
// the client made them, clients in order).
func (r *proxALRun) updateS(i int, k MsgKind, up []float64) error {
	d := r.d
	if k != MsgADMM || !r.weighted[i] || r.smat == nil || len(up)%(d+1) != 0 || !finite(up) {
		return fmt.Errorf("client %d: metric update of %d floats in a %v reply: want blocks of 1+%d after a matrix penalty's ADMM step", i+1, len(up), k, d)
	}
	for ; len(up) > 0; up = up[d+1:] {
		if s := up[0]; s != 1 && s != -1 {
			return fmt.Errorf("client %d: metric update sign %v: want ±1", i+1, s)
		}
		addRankOne(r.smat, d, up[0], up[1:d+1])
	}
	return nil
}

// factorS factors the server's matrix of (18): S + aI without a global
// constraint, else S.
func (r *proxALRun) factorS() error {
	d := r.d
	a := 0.0
	if r.p.Server == nil {
		a = r.server.prox
	}
	h := mat.NewSymDense(d, nil)
	for j := 0; j < d; j++ {
		for l := j; l < d; l++ {
			h.SetSym(j, l, r.smat[j*d+l])
		}
		h.SetSym(j, j, h.At(j, j)+a)
	}
	if !r.schol.Factorize(h) {
		return fmt.Errorf("server: Σ_i M_i is not positive definite")
	}
	r.useMetric = true
	if r.p.Server != nil {
		r.sub.metric = r.smat
	}
	return nil
}

// metricStep solves (18) with matrix penalties into r.wt: with b =
// Σ_i M_i ũ_i, w = (S + aI)⁻¹(b + a w^k) without a global constraint,
// else a smooth solve of P_0(w) + ½||w - S⁻¹b||²_S. Returns the residual.
func (r *proxALRun) metricStep(eps float64) (float64, error) {
	d := r.d
	b, tmp := r.sub.z, r.gs
	clear(b)
	for i, u := range r.uTilde { // client order
		if !r.weighted[i] {
			floats.AddScaled(b, r.rho[i], u)
			continue
		}
		floats.Add(b, u)
	}
	if r.p.Server == nil {
		a := r.server.prox
		floats.AddScaled(b, a, r.server.center)
		r.schol.SolveVecTo(mat.NewVecDense(d, r.wt), mat.NewVecDense(d, b)) //nolint:errcheck // factored
		symv(r.smat, r.wt, tmp)
		var res float64
		for j := range tmp {
			res = max(res, math.Abs(tmp[j]+a*r.wt[j]-b[j]))
		}
		return res, nil
	}
	// z = S⁻¹b into r.sub.z, solved from a copy (no allocation per round).
	copy(tmp, b)
	r.schol.SolveVecTo(mat.NewVecDense(d, b), mat.NewVecDense(d, tmp)) //nolint:errcheck // factored
	return r.smoothStep(eps)
}

// smoothStep solves the server's (18) by its smooth solver into r.wt and
// returns the residual reached.
func (r *proxALRun) smoothStep(eps float64) (float64, error) {
	st := r.smooth.Minimize(r.sub, r.wt, eps, r.s.MaxInner)
	r.localIter += st.Iterations
	if !st.Converged {
		r.misses++
	}
	if r.sub.err != nil {
		return 0, fmt.Errorf("server: %w", r.sub.err)
	}
	return st.GradNorm, nil
}

// balance returns the factor for ρ_i by residual balancing, from the last
// round's primal residual and the server's step w^{t+1} - w^t.
func (r *proxALRun) balance(t int) float64 {
	if t == 0 || r.primal < 0 {
		return 1
	}
	var maxRho float64
	for _, v := range r.rho {
		maxRho = max(maxRho, v)
	}
	dual := maxRho * distInf(r.wt, r.wprev)
	switch {
	case r.primal > 10*dual && r.rhoScale < 1e8:
		return 2
	case dual > 10*r.primal && r.rhoScale > 1e-6:
		return 0.5
	}
	return 1
}

// setScale sets every ρ_i to scale times its initial value.
func (r *proxALRun) setScale(scale float64) {
	if scale == r.rhoScale {
		return
	}
	f := scale / r.rhoScale
	r.rhoScale = scale
	r.rhoSum = 0
	for i := range r.rho {
		r.rho[i] *= f
		r.rhoSum += r.rho[i]
	}
	r.sub.sigma = r.rhoSum
	if r.quad != nil {
		if q, err := r.m.Cache.factor(r.sub.merits, r.d, r.beta, subAlpha(r.sub)); err == nil {
			r.quad = q
		}
	}
}

// serverStep solves eq. (18) into r.wt to ε and returns the residual reached.
func (r *proxALRun) serverStep(eps float64) (float64, error) {
	if r.useMetric {
		return r.metricStep(eps)
	}
	for i, w := range r.weighted {
		if w {
			return 0, fmt.Errorf("client %d sent M_i ũ_i without its M_i", i+1)
		}
	}
	// Σ_i (ρ_i/2)||ũ_i - w||² = (R/2)||w - ū||² + const, ū = Σ_i ρ_i ũ_i / R.
	z := r.sub.z
	clear(z)
	for i, u := range r.uTilde { // client order
		for j := range z {
			z[j] += r.rho[i] * u[j]
		}
	}
	for j := range z {
		z[j] /= r.rhoSum
	}
	switch {
	case r.p.Server == nil:
		// P_0 is the proximal share alone: closed form.
		a := r.server.prox
		for j := range r.wt {
			r.wt[j] = (r.rhoSum*z[j] + a*r.server.center[j]) / (r.rhoSum + a)
		}
		var res float64
		for j := range r.wt {
			res = max(res, math.Abs(a*(r.wt[j]-r.server.center[j])+r.rhoSum*(r.wt[j]-z[j])))
		}
		return res, nil
	case r.quad != nil:
		r.quad.solve(r.wt, r.gs, r.sub)
	default:
		return r.smoothStep(eps)
	}
	r.sub.FuncGrad(r.wt, r.gs)
	if r.sub.err != nil {
		return 0, fmt.Errorf("server: %w", r.sub.err)
	}
	return normInf(r.gs), nil
}

// audit recomputes the KKT residuals of Definition 1 at the returned w
// through one diagnostic round.
func (r *proxALRun) audit(ctx context.Context, w []float64) error {
	res := r.res
	b := &Broadcast{Kind: MsgAudit, W: w}
	if res.Polished {
		b.Mu = r.polishedMu // committed: every party adopts its μ_i
		copy(r.server.mu, r.polishedMu[0])
	}
	reps, err := r.exchange(ctx, b)
	if err != nil {
		return err
	}
	res.Objective, res.Parties, res.Mu = 0, nil, nil
	if err := r.server.eval(w, true); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	g := make([]float64, r.d)
	feas := r.server.lagrangianGrad(g)
	res.Parties = []PartyValue{r.server.value()}
	res.Mu = [][]float64{append([]float64(nil), r.server.mu...)}
	for _, rep := range reps {
		for j := range g {
			g[j] += rep.LagGrad[j]
		}
		feas = max(feas, rep.Feas)
		res.Objective += rep.Value.F
		res.Parties = append(res.Parties, PartyValue{F: rep.Value.F, C: append([]float64(nil), rep.Value.C...)})
		res.Mu = append(res.Mu, append([]float64(nil), rep.Mu...))
	}
	res.Residuals = Residuals{Stationarity: normInf(g), Feasibility: feas}
	return nil
}

// polish runs the KKT polish from w through the transport (one round per
// Newton iteration, counted like any other); on success it writes the
// polished point into w, keeps its multipliers for the committing audit
// and marks the result. The clients' algorithm state is untouched, so a
// failed polish lets the outer iteration go on where it was.
func (r *proxALRun) polish(ctx context.Context, w []float64) (bool, error) {
	cones := make([]Cone, r.n+1)
	cones[0] = r.server.cone
	for i, c := range r.p.Clients {
		cones[i+1] = c.Cone()
	}
	var srv polishPart
	oracle := func(ctx context.Context, x []float64, mu [][]float64) ([]polishPart, [][]float64, error) {
		b := &Broadcast{Kind: MsgPolish, W: x, Mu: mu}
		reps, err := r.exchange(ctx, b)
		if err != nil {
			return nil, nil, err
		}
		mu0 := r.server.mu
		if mu != nil {
			mu0 = mu[0]
		}
		if err := polishPartOf(r.server, x, mu0, &srv); err != nil {
			return nil, nil, fmt.Errorf("server: %w", err)
		}
		parts := make([]polishPart, 0, r.n+1)
		parts = append(parts, srv)
		var own [][]float64
		if mu == nil {
			own = append(own, r.server.mu)
		}
		for i, rep := range reps {
			m := coneDim(cones[i+1])
			if rep.Metric == nil && rep.LagGrad == nil {
				return nil, nil, fmt.Errorf("client %d: %w", i+1, errNoHessian)
			}
			if len(rep.LagGrad) != r.d || len(rep.Value.C) != m || len(rep.Jac) != m*r.d || len(rep.Metric) != r.d*r.d ||
				(mu == nil && len(rep.Mu) != m) {
				return nil, nil, fmt.Errorf("client %d: polish reply of the wrong shape", i+1)
			}
			parts = append(parts, polishPart{F: rep.Value.F, LagGrad: rep.LagGrad, C: rep.Value.C, Jac: rep.Jac, Hess: rep.Metric})
			if mu == nil {
				own = append(own, rep.Mu)
			}
		}
		return parts, own, nil
	}
	pr, err := polishKKT(ctx, r.d, w, cones, r.beta, r.s.Eps1, r.s.Eps2, oracle)
	r.res.Stats.PolishIterations += pr.Iterations
	if errors.Is(err, errNoHessian) {
		return false, nil
	}
	if err != nil || !pr.OK {
		return false, err
	}
	copy(w, pr.W)
	r.polishedMu = pr.Mu
	r.res.Polished = true
	return true, nil
}
