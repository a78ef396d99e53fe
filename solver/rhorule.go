package solver

import (
	"fmt"
	"math"

	"github.com/fedcon/fedcon/internal/kernels"
	"gonum.org/v1/gonum/mat"
)

// RhoRule selects how Algorithm 2 sets the ADMM penalties ρ_i. Every rule
// keeps Theorem 7's certificate: (18) and ε̃_i of (22) use the ρ_i with which
// client i formed ũ_i (docs/rho-rules.md).
type RhoRule int

const (
	// RhoFixed keeps ρ_i as given: the paper.
	RhoFixed RhoRule = iota
	// RhoBalance doubles or halves every ρ_i together by residual balancing
	// (Boyd et al. 2011, §3.4.1) on the ∞-norms of the primal and dual
	// residuals.
	RhoBalance
	// RhoAdaptive lets each client rescale its own ρ_i from its normalised
	// residuals, as OSQP does (Stellato et al. 2020, §5.2):
	//
	//	ρ_i ← ρ_i·sqrt((||u_i - w||/max(||u_i||, ||w||)) / (||ρ_i(w^{t+1} - w^t)||/||λ_i||)),
	//
	// applied only when the factor is beyond [1/5, 5], so that a client's
	// factorisation survives most rounds. The client reports ρ_i with ũ_i.
	RhoAdaptive
	// RhoHessian makes the penalty of client i a matrix: M_i = ∇²P_i(v) + σI
	// (σ = ProxAL.MetricShift), computed by the client at the call's start
	// (v = w̃^0) and again at v = u_i when the server asks (the certificate
	// fell by less than half in the last rounds), sent with ũ_i. (18) becomes min P_0(w) + Σ_i ½||ũ_i - w||²_{M_i},
	// (19) uses ||·||²_{M_i}, (20) λ_i += M_i(u_i - w) and (22)
	// ε̃_i = ||∇P_i(w^{t+1}) + λ_i^t - M_i(w^{t+1} - u_i^t)||_∞, so the
	// identity behind Theorem 7 holds unchanged. With M_i equal to P_i's
	// curvature, ADMM contracts by about ½ per round in every direction
	// instead of 1 - ρ_i/||∇²P_i|| (docs/rho-rules.md). Clients whose party
	// is quadratic (solved exactly) or has no Hessian keep ρ_i I.
	RhoHessian
)

// rhoRuleNames are the names of the rules, in order (CLI and config values).
var rhoRuleNames = [...]string{"fixed", "balance", "adaptive", "hessian"}

func (r RhoRule) String() string {
	if r < 0 || int(r) >= len(rhoRuleNames) {
		return fmt.Sprintf("RhoRule(%d)", int(r))
	}
	return rhoRuleNames[r]
}

// MarshalText writes the rule's name: fixed, balance, adaptive or hessian.
func (r RhoRule) MarshalText() ([]byte, error) {
	if r < 0 || int(r) >= len(rhoRuleNames) {
		return nil, fmt.Errorf("solver: unknown rho rule %d", int(r))
	}
	return []byte(rhoRuleNames[r]), nil
}

// UnmarshalText reads a rule's name: fixed (the paper), balance, adaptive
// or hessian. It is the one place a name becomes a rule.
func (r *RhoRule) UnmarshalText(b []byte) error {
	for i, n := range rhoRuleNames {
		if string(b) == n {
			*r = RhoRule(i)
			return nil
		}
	}
	return fmt.Errorf("unknown rho rule %q: want fixed (the paper), balance, adaptive or hessian", string(b))
}

// Bounds of the adaptive rule, relative to ρ_i's first value, and the factor
// below which ρ_i is left alone.
const (
	adaptiveRhoRange     = 1e6
	adaptiveRhoThreshold = 5
	// adaptiveRhoStep caps one change: a client whose λ_i is nearly zero
	// would otherwise read a huge factor from one noisy round.
	adaptiveRhoStep = 10
)

// adaptRho returns the OSQP factor for ρ_i from ∞-norms, or 1 when a norm is
// zero (no information yet) or the factor is within the threshold.
func adaptRho(primal, scaleP, dual, scaleD float64) float64 {
	if !(primal > 0 && scaleP > 0 && dual > 0 && scaleD > 0) {
		return 1
	}
	f := math.Sqrt((primal / scaleP) / (dual / scaleD))
	if math.IsNaN(f) || math.IsInf(f, 0) || (f <= adaptiveRhoThreshold && f >= 1/adaptiveRhoThreshold) {
		return 1
	}
	return f
}

// curvatureRho returns sqrt(L·μ) for the client's (19): L the largest
// eigenvalue of ∇²P_i(w) (power iteration on the dense Hessian), μ = the
// proximal share 1/((n+1)β), the strong-convexity floor of P_i. For a
// quadratic model with curvatures in [μ, L] this is the ρ that balances
// ADMM's slowest modes (Ghadimi et al. 2015; Nishihara et al. 2015). ok is
// false when the party gives no Hessian.
func (c *ClientNode) curvatureRho(w []float64) (rho float64, ok bool, err error) {
	if !hasHessian(c.sub.merits) {
		return 0, false, nil
	}
	d := c.cfg.Dim
	h := borrowSym(d)
	defer returnSym(h)
	if err := c.merit.hessian(h, w); err != nil {
		return 0, false, err
	}
	l := powerMax(h, 50)
	mu := c.merit.prox
	if !(l > mu) {
		l = mu
	}
	return math.Sqrt(l * mu), true, nil
}

// powerMax estimates the largest eigenvalue of the positive semidefinite h.
func powerMax(h *mat.SymDense, iters int) float64 {
	d := h.SymmetricDim()
	x := mat.NewVecDense(d, nil)
	for j := 0; j < d; j++ {
		x.SetVec(j, 1/math.Sqrt(float64(d))+1e-3*float64(j%7)) // deterministic, not orthogonal to a top eigenvector in practice
	}
	y := mat.NewVecDense(d, nil)
	var lam float64
	for it := 0; it < iters; it++ {
		y.MulVec(h, x)
		nrm := mat.Norm(y, 2)
		if !(nrm > 0) {
			return 0
		}
		lam = mat.Dot(x, y) / mat.Dot(x, x)
		x.ScaleVec(1/nrm, y)
	}
	return lam
}

// buildMetric sets M_i = ∇²P_i(w) + σI (σ = MetricShift) and factors it (RhoHessian).
func (c *ClientNode) buildMetric(w []float64) error {
	d := c.cfg.Dim
	h := borrowSym(d)
	defer returnSym(h)
	if err := c.merit.hessian(h, w); err != nil {
		return err
	}
	c.noteActivity()
	// A nonconvex constraint (the fairness disparity) can make ∇²P_i
	// indefinite: M_i then takes |h|·negCurvatureMetric where ∇²P_i has
	// curvature h < 0, so that (19)'s Hessian ∇²P_i + M_i is positive
	// definite and the ADMM contracts along those directions too. The
	// reflection |∇²P_i| would leave (19) with curvature σ there, and
	// ∇²P_i + σI alone is not enough either: a negative eigenvalue in
	// (-σ, -σ/2) leaves ∇²P_i + M_i = 2∇²P_i + σI indefinite.
	psd := c.mchol.Factorize(h)
	for j := 0; j < d; j++ {
		h.SetSym(j, j, h.At(j, j)+c.cfg.MetricShift)
	}
	if !psd || !c.mchol.Factorize(h) {
		for j := 0; j < d; j++ {
			h.SetSym(j, j, h.At(j, j)-c.cfg.MetricShift)
		}
		var eig mat.EigenSym
		if !eig.Factorize(h, true) {
			return fmt.Errorf("solver: metric: eigendecomposition of ∇²P_i failed")
		}
		vals := eig.Values(nil)
		var vecs mat.Dense
		eig.VectorsTo(&vecs)
		floor := c.merit.prox + c.cfg.MetricShift
		for k := range vals {
			if vals[k] < 0 {
				vals[k] *= -negCurvatureMetric
			}
			vals[k] = max(vals[k]+c.cfg.MetricShift, floor)
		}
		for a := 0; a < d; a++ {
			for b := a; b < d; b++ {
				var v float64
				for k := range vals {
					v += vecs.At(a, k) * vals[k] * vecs.At(b, k)
				}
				h.SetSym(a, b, v)
			}
		}
		if !c.mchol.Factorize(h) {
			return fmt.Errorf("solver: metric of an indefinite ∇²P_i is not positive definite")
		}
	}
	if c.metric == nil {
		c.metric = make([]float64, d*d)
	}
	for a := 0; a < d; a++ {
		for b := 0; b < d; b++ {
			c.metric[a*d+b] = h.At(a, b)
		}
	}
	c.reply.Metric = c.metric
	return nil
}

// minv sets dst = M_i⁻¹ x.
func (c *ClientNode) minv(dst, x []float64) { c.mchol.solve(dst, x) }

// denseChol is a Cholesky factor for many solves: U and its mirror Uᵀ in
// one row-major array, as kernels.Cholesky leaves them for
// kernels.CholSolve (gonum's solve for one right-hand side goes through
// the general Dtrsm, and its factorisation estimates a condition number
// that nothing here reads).
type denseChol struct {
	d int
	u []float64
}

// Factorize factors the symmetric h (its upper triangle); it reports
// false if h is not numerically positive definite.
func (f *denseChol) Factorize(h *mat.SymDense) bool {
	raw := h.RawSymmetric()
	d := raw.N
	if len(f.u) != d*d {
		f.u = make([]float64, d*d)
	}
	f.d = d
	for i := 0; i < d; i++ {
		copy(f.u[i*d+i:(i+1)*d], raw.Data[i*raw.Stride+i:i*raw.Stride+d])
	}
	return kernels.Cholesky(f.u, d)
}

// solve sets dst = H⁻¹x for the factored H.
func (f *denseChol) solve(dst, x []float64) {
	copy(dst, x)
	kernels.CholSolve(f.u, f.d, dst)
}

// negCurvatureMetric is M_i's eigenvalue per unit of negative curvature of
// ∇²P_i. Along an eigenvector with curvature h the ADMM contracts by about
// |h/(m + h)| for metric eigenvalue m: m = h gives ½ where h > 0, and
// m = 3|h| gives ½ where h < 0, while m = |h| (the reflection) gives no
// contraction at all and the iteration blows up (docs/rho-rules.md).
const negCurvatureMetric = 3

// noteActivity records, right after buildMetric evaluated the party at
// M_i's point, which orthant terms of the AL M_i counts, and their ∇c_j.
func (c *ClientNode) noteActivity() {
	p := c.merit
	c.metricAct, c.metricJac = c.metricAct[:0], c.metricJac[:0]
	if _, ok := p.cone.(NonNeg); !ok {
		return
	}
	c.metricJac = append(c.metricJac, p.jac[:p.m*p.d]...)
	for j := 0; j < p.m; j++ {
		c.metricAct = append(c.metricAct, p.active(j))
	}
}

// followActivity keeps M_i's AL curvature in step with u_i: a term
// (μ_j + βc_j)_+ that became active at u_i adds β∇c_j∇c_jᵀ to M_i, one
// that became inactive removes it (∇c_j from M_i's point, so the removal
// is exact). With a handful of rows per client one such flip leaves M_i
// far from ∇²P_i along ∇c_j: under-penalised (a new active term, β = 300
// against a curvature near σ/n) the ADMM's dual λ_i crawls and ε̃_i stays
// high for the whole call. The certificate (23) holds for any M_i ≻ 0.
// Each change is listed in the reply for the server's S.
func (c *ClientNode) followActivity() error {
	if len(c.metricAct) == 0 {
		return nil
	}
	p := c.merit
	if err := p.eval(c.u, false); err != nil {
		return err
	}
	d := c.cfg.Dim
	sb := math.Sqrt(p.beta)
	var before []float64 // M_i as it was, kept if the change fails
	for j, was := range c.metricAct {
		now := p.active(j)
		if now == was {
			continue
		}
		if before == nil {
			before = append(c.scrM[:0], c.metric...)
			c.scrM = before
			c.scrAct = append(c.scrAct[:0], c.metricAct...)
		}
		s := 1.0
		if !now {
			s = -1
		}
		g := c.metricJac[j*d : (j+1)*d]
		addRankOne(c.metric, d, s*p.beta, g)
		c.reply.MetricUpdate = append(c.reply.MetricUpdate, s)
		for _, v := range g {
			c.reply.MetricUpdate = append(c.reply.MetricUpdate, sb*v)
		}
		c.metricAct[j] = now
	}
	if before == nil {
		return nil
	}
	h := borrowSym(d)
	defer returnSym(h)
	for a := range d {
		for b := a; b < d; b++ {
			h.SetSym(a, b, c.metric[a*d+b])
		}
	}
	if !c.mchol.Factorize(h) {
		// Rounding in a removal: keep M_i (an over-penalised direction
		// slows the ADMM, it does not break it).
		copy(c.metric, before)
		for a := range d {
			for b := a; b < d; b++ {
				h.SetSym(a, b, c.metric[a*d+b])
			}
		}
		if !c.mchol.Factorize(h) {
			return fmt.Errorf("solver: M_i is not positive definite")
		}
		copy(c.metricAct, c.scrAct)
		c.reply.MetricUpdate = c.reply.MetricUpdate[:0]
	}
	return nil
}

// addRankOne adds s·ggᵀ to the symmetric row-major d×d matrix m, computing
// each entry once and mirroring it, so that m stays exactly symmetric.
func addRankOne(m []float64, d int, s float64, g []float64) {
	for a := range d {
		sa := s * g[a]
		for b := a; b < d; b++ {
			v := sa * g[b]
			m[a*d+b] += v
			if b != a {
				m[b*d+a] += v
			}
		}
	}
}
