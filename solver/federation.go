package solver

import (
	"context"
	"errors"
	"fmt"
	"math"

	"golang.org/x/sync/errgroup"
	"gonum.org/v1/gonum/floats"
)

// MsgKind says which step of Algorithms 1-2 a broadcast asks clients to run.
type MsgKind int

const (
	// MsgStart sends w^0: clients set up Algorithm 2 at w̃^0 = w^0 and reply ũ_i^0.
	MsgStart MsgKind = iota + 1
	// MsgADMM sends w^{t+1} and ε_{t+1}: clients run (19)-(22) and reply (ũ_i^{t+1}, ε̃_{i,t+1}).
	MsgADMM
	// MsgOuter sends w^{k+1}: clients update μ_i and reply ||μ_i^{k+1} - μ_i^k||_∞; they also
	// set up the next Algorithm 2 call at w̃^0 = w^{k+1} (the relaxed centre with
	// OuterRelax) and send ũ_i^0 in the same reply.
	MsgOuter
	// MsgAudit sends the returned w: clients reply ∇f_i + ∇c_i μ_i and their
	// Definition 1 feasibility residual (a check, not part of the algorithm).
	// With Broadcast.Mu (a polished point) each client first adopts its μ_i.
	MsgAudit
	// MsgPolish sends (w, μ): clients reply their KKT data there (∇f_i +
	// ∇c_iμ_i, c_i, ∇c_i and ∇²f_i + Σ_j μ_ij∇²c_ij), changing no state.
	// Without Broadcast.Mu they use their own μ_i and send it.
	MsgPolish
)

// Broadcast is what the server sends to every client in one round.
type Broadcast struct {
	Kind MsgKind
	W    []float64 // read-only for clients
	Eps  float64   // ε_{t+1} for MsgADMM
	// NeedEpsTilde asks for ε̃_{i,t+1} (MsgADMM). The server clears it when
	// test (23) cannot pass whatever the ε̃ are (its own term already exceeds
	// τ): the iterates are unchanged and clients save the evaluation of
	// ∇P_i(w^{t+1}) — for the QP, one of their two matrix-vector products.
	NeedEpsTilde bool
	// RhoScale, if not 0 or 1, tells clients to multiply ρ_i by it right
	// after this step (residual balancing, ProxAL.RhoAdapt): ũ_i is then
	// formed with the new ρ_i, which the server uses in (18) next.
	RhoScale float64
	// Refresh asks clients with a matrix penalty (RhoHessian) to recompute
	// M_i at their new u_i after this step and send it with ũ_i.
	Refresh bool
	// Restart (MsgADMM) asks clients to skip the step and start Algorithm 2
	// afresh at w̃0 = W, the proximal centre unchanged: the server's
	// safeguard when the certificate diverged.
	Restart bool
	// OuterRelax (MsgOuter), if not 0 or 1, is λ ∈ (0, 2) of a relaxed
	// step: clients set μ_i to Proj_{K_i*}(μ_i^k + λ(μ_i^{k+1} - μ_i^k)) and
	// the proximal centre to w^k + λ(W - w^k), and start Algorithm 2 there.
	OuterRelax float64
	// Mu (MsgPolish, MsgAudit), if non-nil, are every party's multipliers,
	// index 0 the server's: client i reads Mu[i].
	Mu [][]float64
}

// floats is the number of algorithm floats in b.
func (b *Broadcast) floats() int64 {
	if b.Kind == MsgPolish || b.Kind == MsgAudit {
		n := int64(len(b.W))
		for _, m := range b.Mu {
			n += int64(len(m))
		}
		return n
	}
	if b.Kind == MsgOuter && b.OuterRelax != 0 {
		return int64(len(b.W)) + 1
	}
	if b.Kind == MsgADMM {
		if b.RhoScale != 0 {
			return int64(len(b.W)) + 2
		}
		return int64(len(b.W)) + 1
	}
	return int64(len(b.W))
}

// Reply is one client's answer; its slices belong to the client and are valid
// until the client's next step.
type Reply struct {
	UTilde []float64 // ũ_i (MsgStart, MsgADMM, MsgOuter; nil when MUTilde is sent)
	// MUTilde is M_i ũ_i in place of ũ_i under a matrix penalty
	// (RhoHessian): the server needs only b = Σ_i M_i ũ_i of (18), so it
	// keeps no client's M_i, only their sum.
	MUTilde  []float64
	EpsTilde float64 // ε̃_{i,t+1} of eq. (22) (MsgADMM); -1 when not asked for
	// Primal is ||u_i^{t+1} - w^{t+1}||_∞ (MsgADMM with residual balancing; -1 otherwise).
	Primal float64
	// Metric is M_i, row-major d×d, when the call's penalty is a matrix
	// (RhoHessian; MsgStart and MsgOuter only, nil otherwise).
	Metric []float64
	// MetricUpdate lists the rank-one changes this ADMM step made to M_i
	// (RhoHessian), in blocks of 1+d floats: a sign s = ±1, then v, for
	// M_i += s·vvᵀ. An orthant term of the AL whose activity at u_i is no
	// longer what M_i counts adds or removes its curvature β∇c_j∇c_jᵀ
	// (v = √β∇c_j at M_i's point), so the server's S = Σ_i M_i follows.
	MetricUpdate []float64
	// Rho is the ρ_i with which ũ_i was formed (MsgStart, MsgADMM, MsgOuter
	// under RhoAdaptive; 0 otherwise): the server uses it in (18).
	Rho float64

	StepMu float64 // ||μ_i^{k+1} - μ_i^k||_∞ (MsgOuter)
	Value  PartyValue
	// LagGrad, Feas and Mu answer MsgAudit; LagGrad, Value, Jac, Metric
	// (the Lagrangian's Hessian) and, when asked, Mu answer MsgPolish.
	LagGrad []float64
	Feas    float64
	Mu      []float64
	Jac     []float64
	// Local costs of this step.
	Iterations int
	Evals      int64
	// Missed reports that (19) stopped short of ε_{t+1} (MsgADMM).
	Missed bool
}

// floats returns the algorithm and diagnostic floats of r for kind k.
func (r *Reply) floats(k MsgKind) (alg, diag int64) {
	diag = 1 + int64(len(r.Value.C)) // f_i and c_i, for traces
	switch k {
	case MsgStart:
		return r.shareFloats() + r.rhoFloats() + r.metricFloats(), diag
	case MsgADMM:
		n := r.shareFloats() + r.rhoFloats() + r.metricFloats() + int64(len(r.MetricUpdate))
		if r.EpsTilde >= 0 {
			n++
		}
		if r.Primal >= 0 {
			n++
		}
		return n, 0
	case MsgOuter:
		return r.shareFloats() + 1 + r.rhoFloats() + r.metricFloats(), diag
	case MsgPolish:
		d := int64(len(r.LagGrad))
		return 1 + int64(len(r.Value.C)) + d + int64(len(r.Jac)) + d*(d+1)/2 + int64(len(r.Mu)), 0
	default: // MsgAudit
		return 0, diag + int64(len(r.LagGrad)+len(r.Mu)) + 1
	}
}

// shareFloats counts ũ_i or M_i ũ_i, whichever is sent.
func (r *Reply) shareFloats() int64 { return int64(len(r.UTilde) + len(r.MUTilde)) }

// metricFloats counts M_i's upper triangle: what crosses when it is sent.
func (r *Reply) metricFloats() int64 {
	if r.Metric == nil {
		return 0
	}
	d := r.shareFloats()
	return d * (d + 1) / 2
}

// rhoFloats is 1 when the reply carries ρ_i (RhoAdaptive).
func (r *Reply) rhoFloats() int64 {
	if r.Rho != 0 {
		return 1
	}
	return 0
}

// Transport carries one round: the broadcast to all clients, their local
// steps, and their replies in client order. It is the only way the server
// side of Algorithm 1 reaches client data.
type Transport interface {
	NumClients() int
	Exchange(ctx context.Context, b *Broadcast) ([]*Reply, error)
}

// ClientConfig is what a client needs to run its side of Algorithms 1-2.
type ClientConfig struct {
	// Party is the client's number, 1..n: its index in Broadcast.Mu.
	Party   int
	Dim     int
	Parties int       // n + 1: the proximal share is 1/((n+1)β), eq. (14)
	Beta    float64   // β
	Rho     float64   // ρ_i
	Mu0     []float64 // μ_i^0; nil means 0
	Smooth  SmoothSolver
	Cache   *QuadCache
	MaxIter int // cap of the local smooth solver per step
	// ADMMStart, if non-nil, is w̃0 of every Algorithm 2 call (see ProxAL.ADMMStart).
	ADMMStart []float64
	// Rule and Relax are ProxAL's fields of the same names, MetricShift
	// the client's share ProxAL.MetricShift/n, and RhoFromCurvature is
	// ProxAL.RhoStart == RhoStartCurvature.
	Rule             RhoRule
	RhoFromCurvature bool
	Relax            float64
	MetricShift      float64
}

// ClientNode is client i's side of Algorithms 1-2: it owns the party's data
// and the local state (μ_i, u_i, λ_i) and answers broadcasts.
type ClientNode struct {
	cfg    ClientConfig
	merit  *merit
	sub    *subproblem // φ_{i,t} of eq. (19)
	quad   *quadFactor // non-nil when (19) is solved exactly
	u      []float64
	lambda []float64
	g      []float64
	ut     []float64 // ũ_i
	mut    []float64 // M_i ũ_i (RhoHessian)
	reply  Reply
	// Adaptive ρ_i: w^t of the previous round (dual residual), whether it
	// is set, and ρ_i's first value (the rule's bounds are relative to it).
	wprev    []float64
	havePrev bool
	rho0     float64
	target   []float64 // over-relaxed ŵ_i = αw^{t+1} + (1-α)u_i^t
	// RhoHessian: M_i (row-major d×d) and its Cholesky factor; scr is scratch.
	useMetric bool
	metric    []float64
	mchol     denseChol
	// The orthant terms' activity that M_i counts, and their gradients
	// ∇c_j (m×d) at the point M_i was built (nil: M_i follows no activity).
	metricAct []bool
	metricJac []float64
	scrM      []float64 // M_i before an activity change
	scrAct    []bool
	scr       []float64
	pp        polishPart // MsgPolish's reply buffers
}

// NewClientNode returns client party p's node.
func NewClientNode(p Party, cfg ClientConfig) (*ClientNode, error) {
	d := cfg.Dim
	m := newMerit(p, d, cfg.Beta, 1/(float64(cfg.Parties)*cfg.Beta), cfg.Mu0)
	c := &ClientNode{
		cfg: cfg, merit: m, sub: newSubproblem(d, m),
		u: make([]float64, d), lambda: make([]float64, d), g: make([]float64, d),
		wprev: make([]float64, d), target: make([]float64, d),
	}
	if c.cfg.Relax == 0 {
		c.cfg.Relax = 1
	}
	c.scr = make([]float64, 2*d)
	c.sub.sigma = cfg.Rho
	c.cfg.Smooth = own(cfg.Smooth)
	if c.cfg.Smooth == nil {
		c.cfg.Smooth = LBFGS{}
	}
	c.ut, c.mut = make([]float64, d), make([]float64, d)
	if isQuadratic(c.sub.merits) {
		f, err := cfg.Cache.factor(c.sub.merits, d, cfg.Beta, subAlpha(c.sub))
		if err != nil {
			return nil, err
		}
		c.quad = f
	}
	c.useMetric = cfg.Rule == RhoHessian && c.quad == nil && hasHessian(c.sub.merits)
	return c, nil
}

// Handle runs the local step that b asks for.
func (c *ClientNode) Handle(b *Broadcast) (*Reply, error) {
	r := &c.reply
	r.Iterations, r.Evals, r.Missed = 0, 0, false
	r.Metric, r.Jac, r.UTilde, r.MUTilde = nil, nil, nil, nil
	r.MetricUpdate = r.MetricUpdate[:0]
	ev0 := c.merit.passes()
	var err error
	switch b.Kind {
	case MsgStart:
		copy(c.merit.center, b.W)
		start := b.W
		if c.cfg.ADMMStart != nil {
			start = c.cfg.ADMMStart
		}
		if err = c.startADMM(start); err == nil {
			err = c.merit.eval(b.W, false) // report f_i, c_i at w^0
			c.reply.Value = c.merit.value()
		}
	case MsgADMM:
		if b.Restart {
			c.reply.EpsTilde, c.reply.Primal = -1, -1
			err = c.startADMM(b.W)
			break
		}
		err = c.admmStep(b.W, b.Eps, b.NeedEpsTilde, b.RhoScale)
		if err == nil && b.Refresh && c.useMetric {
			if err = c.buildMetric(c.u); err == nil {
				c.reply.MetricUpdate = c.reply.MetricUpdate[:0] // M_i is sent whole
				c.formUTilde()
			}
		}
	case MsgOuter:
		lambda := b.OuterRelax
		if lambda == 0 {
			lambda = 1
		}
		if !(lambda > 0 && lambda < 2) {
			err = fmt.Errorf("solver: outer relaxation %v: must be in (0, 2)", b.OuterRelax)
			break
		}
		err = c.outer(b.W, lambda)
	case MsgAudit:
		if b.Mu != nil {
			err = c.adoptMu(b.Mu)
		}
		if err == nil {
			err = c.audit(b.W)
		}
	case MsgPolish:
		err = c.polish(b.W, b.Mu)
	default:
		err = fmt.Errorf("solver: unknown message kind %d", b.Kind)
	}
	switch b.Kind {
	case MsgStart, MsgADMM, MsgOuter:
		if c.useMetric && c.metric != nil {
			// The product the server formed when it kept M_i: the same
			// kernel on the same numbers, so b of (18) has the same bits.
			symv(c.metric, c.ut, c.mut)
			r.MUTilde = c.mut
		} else {
			r.UTilde = c.ut
		}
	}
	r.Rho = 0
	if (c.cfg.Rule == RhoAdaptive || c.cfg.RhoFromCurvature) && b.Kind != MsgAudit {
		r.Rho = c.cfg.Rho
	}
	r.Evals = c.merit.passes() - ev0
	return r, err
}

// startADMM sets (u_i, λ_i, ũ_i) = (w̃0, -∇P_i(w̃0), w̃0 - ∇P_i(w̃0)/ρ_i)
// (Algorithm 2, initialisation), evaluating the party at w̃0.
func (c *ClientNode) startADMM(w []float64) error {
	if c.cfg.RhoFromCurvature && c.rho0 == 0 {
		rho, ok, err := c.curvatureRho(w)
		if err != nil {
			return err
		}
		if ok && rho > 0 && rho != c.cfg.Rho {
			if err := c.setRho(rho); err != nil {
				return err
			}
		}
	}
	if c.rho0 == 0 {
		c.rho0 = c.cfg.Rho
	}
	if err := c.merit.eval(w, true); err != nil {
		return err
	}
	c.merit.alTerm()
	if c.useMetric {
		if err := c.buildMetric(w); err != nil {
			return err
		}
	}
	c.initFromEval(w)
	return nil
}

// initFromEval finishes the initialisation from an evaluation at w̃0 = w.
func (c *ClientNode) initFromEval(w []float64) {
	c.havePrev = false
	c.merit.gradFromEval(w, c.g)
	copy(c.u, w)
	for j := range c.lambda {
		c.lambda[j] = -c.g[j]
	}
	c.formUTilde()
}

// formUTilde sets ũ_i = u_i + ρ_i⁻¹λ_i, or u_i + M_i⁻¹λ_i (RhoHessian).
func (c *ClientNode) formUTilde() {
	if c.useMetric {
		c.minv(c.ut, c.lambda)
		for j := range c.u {
			c.ut[j] += c.u[j]
		}
		return
	}
	for j := range c.u {
		c.ut[j] = c.u[j] + c.lambda[j]/c.cfg.Rho
	}
}

// admmStep is the client update of Algorithm 2: eqs. (19)-(22), with
// over-relaxation (Boyd et al. 2011, §3.4.3) when Relax ≠ 1: (19) and (20)
// use ŵ_i = αw^{t+1} + (1-α)u_i^t in place of w^{t+1}. ε̃_i of (22) is
// computed before, from the pair (u_i^t, λ_i^t) that formed ũ_i^t.
func (c *ClientNode) admmStep(w []float64, eps float64, needEps bool, rhoScale float64) error {
	rho := c.cfg.Rho
	c.reply.EpsTilde = -1
	if needEps {
		// (22) with the OLD λ_i^t and u_i^t: ∇φ_{i,t}(w^{t+1}) = ∇P_i(w^{t+1}) + λ_i^t.
		if _, err := c.merit.funcGrad(w, c.g); err != nil {
			return err
		}
		var et float64
		if c.useMetric {
			mw := c.scr[:len(w)]
			floats.SubTo(c.scr[len(w):], w, c.u)
			symv(c.metric, c.scr[len(w):], mw)
			for j := range c.g {
				et = max(et, math.Abs(c.g[j]+c.lambda[j]-mw[j]))
			}
		} else {
			for j := range c.g {
				et = max(et, math.Abs(c.g[j]+c.lambda[j]-rho*(w[j]-c.u[j])))
			}
		}
		c.reply.EpsTilde = et
	}
	target := w
	if a := c.cfg.Relax; a != 1 {
		target = c.target
		for j := range target {
			target[j] = a*w[j] + (1-a)*c.u[j]
		}
	}
	// (19): φ_{i,t}(u) = P_i(u) + (ρ/2)||u - (ŵ - λ/ρ)||² + const, warm-started at u_i^t
	// (with M_i: ½||u - (ŵ - M_i⁻¹λ)||²_{M_i}).
	if c.useMetric {
		c.minv(c.sub.z, c.lambda)
		for j := range c.sub.z {
			c.sub.z[j] = target[j] - c.sub.z[j]
		}
		c.sub.metric = c.metric
	} else {
		for j := range c.sub.z {
			c.sub.z[j] = target[j] - c.lambda[j]/rho
		}
	}
	if c.quad != nil {
		c.quad.solveTol(c.u, c.g, c.sub, eps) // (19) asks for ||∇φ||∞ ≤ ε_{t+1} only
	} else {
		st := c.cfg.Smooth.Minimize(c.sub, c.u, eps, c.cfg.MaxIter)
		if c.sub.err != nil {
			return c.sub.err
		}
		c.reply.Iterations, c.reply.Missed = st.Iterations, !st.Converged
	}
	// (20); then ρ_i may change (residual balancing, adaptive) before (21).
	c.reply.Primal = -1
	if rhoScale != 0 {
		c.reply.Primal = distInf(c.u, w)
	}
	if c.useMetric {
		floats.SubTo(c.scr[len(w):], c.u, target)
		symv(c.metric, c.scr[len(w):], c.scr[:len(w)])
		floats.Add(c.lambda, c.scr[:len(w)])
		// λ_i = -∇P_i(u_i) now, whatever M_i: (21) may use an updated one.
		if err := c.followActivity(); err != nil {
			return err
		}
		c.formUTilde()
		return nil
	}
	for j := range c.lambda {
		c.lambda[j] += rho * (c.u[j] - target[j])
	}
	if c.cfg.Rule == RhoAdaptive {
		if c.havePrev {
			f := adaptRho(distInf(c.u, w), max(normInf(c.u), normInf(w)), rho*distInf(w, c.wprev), normInf(c.lambda))
			f = min(max(f, 1/adaptiveRhoStep), adaptiveRhoStep)
			rhoScale = min(max(f, c.rho0/adaptiveRhoRange/rho), c.rho0*adaptiveRhoRange/rho)
		}
		copy(c.wprev, w)
		c.havePrev = true
	}
	if rhoScale != 0 && rhoScale != 1 {
		if err := c.setRho(rho * rhoScale); err != nil {
			return err
		}
		rho = c.cfg.Rho
	}
	for j := range c.lambda {
		c.ut[j] = c.u[j] + c.lambda[j]/rho // (21)
	}
	return nil
}

// setRho changes ρ_i, refactoring an exact subproblem solver (cached by ρ).
func (c *ClientNode) setRho(rho float64) error {
	c.cfg.Rho = rho
	c.sub.sigma = rho
	if c.quad != nil {
		f, err := c.cfg.Cache.factor(c.sub.merits, c.cfg.Dim, c.cfg.Beta, subAlpha(c.sub))
		if err != nil {
			return err
		}
		c.quad = f
	}
	return nil
}

// outer is the client update of Algorithm 1 at w^{k+1}, followed by the
// initialisation of the next Algorithm 2 call at w̃0 = w^{k+1}: one
// evaluation serves both. With λ ≠ 1 the centre and μ_i are relaxed and
// the next call starts at the new centre.
func (c *ClientNode) outer(w []float64, lambda float64) error {
	if err := c.merit.eval(w, true); err != nil {
		return err
	}
	c.reply.StepMu = c.merit.relaxMultiplier(lambda)
	value := c.merit.value()
	relaxCenter(c.merit.center, w, lambda)
	if c.cfg.ADMMStart != nil || lambda != 1 {
		start := c.cfg.ADMMStart
		if start == nil {
			start = append([]float64(nil), c.merit.center...)
		}
		err := c.startADMM(start)
		c.reply.Value = value
		return err
	}
	c.reply.Value = value
	c.merit.alTerm() // y = Proj(μ^{k+1} + βc(w^{k+1})) for ∇P_{i,k+1}(w^{k+1})
	if c.useMetric {
		if err := c.buildMetric(w); err != nil {
			return err
		}
	}
	c.initFromEval(w)
	return nil
}

// audit answers the final KKT check at w.
func (c *ClientNode) audit(w []float64) error {
	if err := c.merit.eval(w, true); err != nil {
		return err
	}
	if c.reply.LagGrad == nil {
		c.reply.LagGrad = make([]float64, c.cfg.Dim)
	}
	c.reply.Feas = c.merit.lagrangianGrad(c.reply.LagGrad)
	c.reply.Value = c.merit.value()
	c.reply.Mu = c.Mu()
	return nil
}

// ownMu returns this client's entry of every party's multipliers mu.
func (c *ClientNode) ownMu(mu [][]float64) ([]float64, error) {
	p := c.cfg.Party
	if p < 1 || p >= len(mu) || len(mu[p]) != c.merit.m {
		return nil, fmt.Errorf("solver: client %d: multipliers for %d parties (or of the wrong length)", p, len(mu))
	}
	return mu[p], nil
}

// adoptMu sets μ_i from a polished point (the audit that commits it).
func (c *ClientNode) adoptMu(mu [][]float64) error {
	own, err := c.ownMu(mu)
	if err != nil {
		return err
	}
	copy(c.merit.mu, own)
	return nil
}

// polish answers MsgPolish: the KKT data at (w, μ_i), μ_i from mu or, when
// mu is nil, the client's own (then also sent).
func (c *ClientNode) polish(w []float64, mu [][]float64) error {
	own := c.merit.mu
	c.reply.Mu = nil
	if mu != nil {
		var err error
		if own, err = c.ownMu(mu); err != nil {
			return err
		}
	} else {
		c.reply.Mu = c.Mu()
	}
	if err := polishPartOf(c.merit, w, own, &c.pp); err != nil {
		if errors.Is(err, errNoHessian) {
			c.reply.LagGrad, c.reply.Jac, c.reply.Value = nil, nil, PartyValue{} // the server gives up the polish
			return nil
		}
		return err
	}
	c.reply.LagGrad, c.reply.Jac, c.reply.Metric = c.pp.LagGrad, c.pp.Jac, c.pp.Hess
	c.reply.Value = PartyValue{F: c.pp.F, C: c.pp.C}
	return nil
}

// Mu returns a copy of the client's multiplier μ_i.
func (c *ClientNode) Mu() []float64 { return append([]float64(nil), c.merit.mu...) }

// LocalTransport runs client nodes as goroutines in this process.
type LocalTransport struct {
	Nodes   []*ClientNode
	Workers int // concurrent client steps; zero means one per client
	out     []*Reply
}

// NumClients implements Transport.
func (t *LocalTransport) NumClients() int { return len(t.Nodes) }

// Exchange implements Transport: client steps run concurrently, replies are
// returned in client order. The returned slice is reused by the next call.
func (t *LocalTransport) Exchange(ctx context.Context, b *Broadcast) ([]*Reply, error) {
	return t.ExchangeSubset(ctx, b, nil)
}

// ExchangeSubset implements SubsetTransport: as Exchange, on the clients
// with active[i] only (nil: all); the others' replies are nil.
func (t *LocalTransport) ExchangeSubset(ctx context.Context, b *Broadcast, active []bool) ([]*Reply, error) {
	if len(t.out) != len(t.Nodes) {
		t.out = make([]*Reply, len(t.Nodes))
	}
	out := t.out
	if active != nil {
		clear(out)
	}
	if t.Workers == 1 || len(t.Nodes) == 1 {
		for i, n := range t.Nodes {
			if active != nil && !active[i] {
				continue
			}
			r, err := n.Handle(b)
			if err != nil {
				return nil, fmt.Errorf("client %d: %w", i+1, err)
			}
			out[i] = r
		}
		return out, nil
	}
	g, _ := errgroup.WithContext(ctx)
	if t.Workers > 0 {
		g.SetLimit(t.Workers)
	}
	for i, n := range t.Nodes {
		if active != nil && !active[i] {
			continue
		}
		g.Go(func() error {
			r, err := n.Handle(b)
			if err != nil {
				return fmt.Errorf("client %d: %w", i+1, err)
			}
			out[i] = r
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}
