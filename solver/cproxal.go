package solver

import (
	"context"
	"fmt"
)

// CProxAL is Algorithm 3 (Appendix D): the centralized proximal AL method,
// which sees all parties' data. It shares Algorithm 1's outer loop: τ_k =
// s̄/(k+1)², the multiplier update and test (11). Its subproblem
//
//	ℓ_k(w) = f(w) + (1/2β)Σ_i(||Proj_{K_i*}(μ_i + βc_i(w))||² - ||μ_i||²) + (1/2β)||w - w^k||²
//
// is solved exactly when quadratic, else by Smooth to ||∇ℓ_k||_∞ <= τ_k.
type CProxAL struct {
	// Beta is β > 0 (default DefaultBeta); SBar is s̄ > 0 (default DefaultSBar).
	Beta, SBar float64
	// OuterRelax is λ ∈ (0, 2) of the relaxed proximal point step (see
	// ProxAL.OuterRelax); 0 or 1: none, the paper.
	OuterRelax float64
	// Mu0 are the initial multipliers, index 0 the server's; nil means 0.
	Mu0 [][]float64
	// Smooth solves non-quadratic subproblems (default LBFGS{}).
	Smooth SmoothSolver
	// Cache, if non-nil, shares the exact factorisation across Solve calls.
	Cache *QuadCache
	// Polish and PolishFrom are ProxAL's: the KKT polish, here with all
	// parties' data at hand.
	Polish     bool
	PolishFrom float64
}

type cproxRun struct {
	s        *Settings
	sub      *subproblem
	merits   []*merit // index 0 = server
	quad     *quadFactor
	smooth   SmoothSolver
	g        []float64
	iters    int
	beta     float64
	polishes int // polish Newton iterations
}

func (m *CProxAL) run(ctx context.Context, p *Problem, w0 []float64, s *Settings) (*Result, error) {
	beta, sbar := orDefault(m.Beta, DefaultBeta), orDefault(m.SBar, DefaultSBar)
	if !(beta > 0) {
		return nil, fmt.Errorf("solver: CProxAL.Beta = %v: must be > 0", m.Beta)
	}
	if !(sbar > 0) {
		return nil, fmt.Errorf("solver: CProxAL.SBar = %v: must be > 0", m.SBar)
	}
	if err := checkOuterRelax("CProxAL", m.OuterRelax); err != nil {
		return nil, err
	}
	n, d := len(p.Clients), p.Dim
	if m.Mu0 != nil && len(m.Mu0) != n+1 {
		return nil, fmt.Errorf("solver: len(CProxAL.Mu0) = %d, want n+1 = %d", len(m.Mu0), n+1)
	}
	r := &cproxRun{s: s, smooth: own(m.Smooth), g: make([]float64, d)}
	if r.smooth == nil {
		r.smooth = LBFGS{}
	}
	for i := 0; i <= n; i++ {
		mi, err := mu0(m.Mu0, i, p.party(i))
		if err != nil {
			return nil, err
		}
		r.merits = append(r.merits, newMerit(p.party(i), d, beta, 0, mi))
	}
	r.sub = newSubproblem(d, r.merits...)
	r.sub.sigma = 1 / beta
	if isQuadratic(r.merits) {
		var err error
		if r.quad, err = m.Cache.factor(r.merits, d, beta, subAlpha(r.sub)); err != nil {
			return nil, err
		}
	}
	res := &Result{}
	w := append([]float64(nil), w0...)
	r.beta = beta
	loop := &outerLoop{s: s, beta: beta, sbar: sbar, relax: m.OuterRelax, res: res}
	canPolish := m.Polish && polishable(append([]Party{p.Server}, p.Clients...), true)
	if canPolish {
		loop.polishFrom = orDefault(m.PolishFrom, DefaultPolishFrom)
		loop.polish = func(ctx context.Context) (bool, error) { return r.polish(ctx, res, w) }
	}
	res, err := loop.run(ctx, r, w, func() (int, int64, int64) { return 0, 0, 0 })
	res.W = w
	res.Stats.LocalIterations = r.iters
	if err == nil && res.Status != Diverged {
		err = r.audit(res, w)
		if err == nil && canPolish && !res.Polished && !withinEps(res.Residuals, s) {
			var ok bool
			if ok, err = r.polish(context.WithoutCancel(ctx), res, w); ok && err == nil {
				err = r.audit(res, w)
			}
		}
	}
	res.Stats.PolishIterations = r.polishes
	if err == nil {
		certify(res, s)
	}
	res.Stats.Evaluations = r.sub.evals()
	return res, err
}

func (r *cproxRun) step(ctx context.Context, k int, tau, lambda float64, w []float64) (outerStep, error) {
	var out outerStep
	copy(r.sub.z, w) // the proximal centre w^k
	wn := append([]float64(nil), w...)
	if r.quad != nil {
		r.quad.solve(wn, r.g, r.sub)
		r.sub.FuncGrad(wn, r.g)
		out.cert = normInf(r.g)
	} else {
		st := r.smooth.Minimize(r.sub, wn, tau, r.s.MaxInner)
		if r.sub.err != nil {
			return out, r.sub.err
		}
		out.cert = st.GradNorm
		out.inner = st.Iterations
		out.capped = !st.Converged
		r.iters += st.Iterations
	}
	for i, m := range r.merits {
		if err := m.eval(wn, false); err != nil {
			return out, fmt.Errorf("party %d: %w", i, err)
		}
		out.stepMu = max(out.stepMu, m.relaxMultiplier(lambda))
		out.parties = append(out.parties, m.value())
	}
	out.wNext = wn
	return out, nil
}

// audit computes the Definition 1 residuals and the final values at w.
func (r *cproxRun) audit(res *Result, w []float64) error {
	res.Objective, res.Parties, res.Mu = 0, nil, nil
	g := make([]float64, len(w))
	var feas float64
	for i, m := range r.merits {
		if err := m.eval(w, true); err != nil {
			return fmt.Errorf("party %d: %w", i, err)
		}
		feas = max(feas, m.lagrangianGrad(r.g))
		for j := range g {
			g[j] += r.g[j]
		}
		if i > 0 {
			res.Objective += m.f
		}
		res.Parties = append(res.Parties, m.value())
		res.Mu = append(res.Mu, append([]float64(nil), m.mu...))
	}
	res.Residuals = Residuals{Stationarity: normInf(g), Feasibility: feas}
	return nil
}

// polish runs the KKT polish from w on the parties' data directly; on
// success it writes the polished point into w and the parties' μ_i.
func (r *cproxRun) polish(ctx context.Context, res *Result, w []float64) (bool, error) {
	cones := make([]Cone, len(r.merits))
	parts := make([]polishPart, len(r.merits))
	for i, m := range r.merits {
		cones[i] = m.cone
	}
	oracle := func(_ context.Context, x []float64, mu [][]float64) ([]polishPart, [][]float64, error) {
		var own [][]float64
		for i, m := range r.merits {
			mi := m.mu
			if mu != nil {
				mi = mu[i]
			} else {
				own = append(own, m.mu)
			}
			if err := polishPartOf(m, x, mi, &parts[i]); err != nil {
				return nil, nil, fmt.Errorf("party %d: %w", i, err)
			}
		}
		return parts, own, nil
	}
	pr, err := polishKKT(ctx, len(w), w, cones, r.beta, r.s.Eps1, r.s.Eps2, oracle)
	r.polishes += pr.Iterations
	if err != nil || !pr.OK {
		return false, err
	}
	copy(w, pr.W)
	for i, m := range r.merits {
		copy(m.mu, pr.Mu[i])
	}
	res.Polished = true
	return true, nil
}
