package qp

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Interior-point constants (not Settings: the method is a fallback with
// behaviour fixed by its tests).
const (
	ipmMaxIterations = 200
	ipmReg           = 1e-9  // x-block regularisation of the factorised KKT
	ipmMaxReg        = 1e-3  // its largest value, raised ×100 while a factorisation fails
	ipmEqReg         = 1e-10 // dual regularisation of equality rows
	ipmRefineFar     = 1     // iterative refinement steps per solve far from convergence: rough directions cost no iterations there
	ipmRefineNear    = 2     // the same, at most, once near convergence (they stop at rounding)
	ipmRefine        = 10    // the same after an inexact direction has set the merit back
	ipmRaise         = 2     // merit above ipmRaise times the best so far counts as set back
	ipmNear          = 1e4   // merit below which an iterate counts as near convergence
	ipmFreeRho       = 1e-12 // "ρ" of rows without finite bounds (y = 0)
	ipmMinRho        = 1e-20 // clamp of z/s on bounded rows
	ipmMaxRho        = 1e20
	ipmStepFraction  = 0.99 // fraction to the boundary
	ipmStall         = 15   // iterations without 10% progress of the merit before giving up
	ipmBlowUp        = 1e3  // merit above ipmBlowUp times the best iterate's, itself SolvedInaccurate: stop
)

// InteriorPoint solves prob by a primal-dual interior-point method
// (Mehrotra's predictor-corrector, Nocedal & Wright §16.6 for QPs) on the
// quasi-definite KKT matrix [P + εI, Aᵀ; A, −D] that the sparse ADMM path
// factors, D_i = 1/(z_i/s_i) per row, so each iteration is one numeric
// LDLᵀ refactorisation and two solves with iterative refinement.
//
// Its iteration count (typically 15-40) does not depend on the
// degeneracy that makes ADMM slow on LP-like problems, so it is the
// fallback for QPs on which Solve stalls; it is cold-started, does not
// polish, and reports infeasible or unbounded problems only as
// IterationLimit (no certificates). It stops when the residuals meet
// settings' EpsAbs/EpsRel test and the total complementarity (the duality
// gap) is below EpsAbs·max(1, |objective|); SolvedInaccurate if rounding
// stops it short but an iterate met ten times those tolerances (the best
// such one). settings may be nil; of it only EpsAbs, EpsRel and Ordering
// are used.
func InteriorPoint(ctx context.Context, prob *Problem, settings *Settings) (*Result, error) {
	start := time.Now()
	set := DefaultSettings()
	if settings != nil {
		set = settings
	}
	d, err := newData(prob)
	if err != nil {
		return nil, err
	}
	n, m := d.n, d.m
	perm := set.Ordering
	if perm == nil {
		perm = autoOrdering(d.P, d.A)
	} else if err := checkPermutation(perm, n+m); err != nil {
		return nil, err
	}
	w := newIPM(d)
	kkt := newSparseKKT(d.P, d.A, ipmReg, w.rho, perm)
	res := &Result{}
	finish := func(st Status) (*Result, error) {
		res.Status = st
		res.Stats.Runtime = time.Since(start)
		res.Stats.IterationTime = res.Stats.Runtime
		if !st.HasSolution() {
			res.X, res.Y = nanVec(n), nanVec(m)
			res.Objective = math.NaN()
			return res, nil
		}
		res.X = append([]float64(nil), w.x...)
		res.Y = append([]float64(nil), w.y...)
		res.Objective = w.objective()
		return res, nil
	}
	// merit is the largest residual relative to its tolerance; stalled
	// counts iterations since it last fell by 10%, which ends the solve
	// only near convergence (far from it, long phases without progress in
	// the largest residual are normal).
	bestMerit, stalled := math.Inf(1), 0
	bestPr, bestDr := math.Inf(1), math.Inf(1) // primal and dual parts of the merit
	best := ipmBest{merit: math.Inf(1)}
	refineNear := ipmRefineNear
	for it := 0; it <= ipmMaxIterations; it++ {
		if err := ctx.Err(); err != nil {
			r, _ := finish(Canceled)
			return r, fmt.Errorf("qp: interior point: %w", err)
		}
		prim, dual, mu := w.residuals()
		res.Stats.Iterations = it
		res.Stats.PrimalResidual, res.Stats.DualResidual = prim, dual
		if w.converged(prim, dual, mu, set.EpsAbs, set.EpsRel) {
			return finish(Solved)
		}
		if !w.finite() {
			break
		}
		pr, dr := w.residualRatios(prim, dual, set.EpsAbs, set.EpsRel)
		merit := w.merit(pr, dr, mu, set.EpsAbs)
		// Degenerate LPs (a saturated θ-ball in the DRFL CV, no strictly
		// complementary solution) can meet ten times the tolerances and
		// then lose the dual residual to rounding as μ → 0. Keep the best
		// such iterate (SolvedInaccurate), and stop once the current one
		// is far worse.
		if merit < best.merit && merit < 1e3 && w.converged(prim, dual, mu, 10*set.EpsAbs, 10*set.EpsRel) {
			best.save(w, merit, prim, dual)
		} else if best.x != nil && refineNear == ipmRefine && merit > ipmBlowUp*best.merit {
			break // lost even with full refinement
		}
		// Far from a solution an inexact direction does as well as a
		// refined one (same iteration count, half the solve time on the
		// DRFL LPs). The last digits need refined ones, but two steps
		// nearly always suffice (36 iterations on 24 DRFL LPs with 2 or
		// 10, 4.7 instead of 7.7 KKT solves per iteration); once a
		// direction has visibly set the iterate back, all later ones get
		// up to ipmRefine steps. Near convergence is sticky: a set-back
		// iterate must not lose its refinement.
		// A rising primal or dual residual sets the iterate back too, even
		// while the falling gap keeps the merit down (degenerate DRFL LPs
		// at a large θ lost their dual residual that way with two steps,
		// and converged with ten). The raise can also change a path: of
		// TestCentralSaturatedTheta's six LPs it turned one IterationLimit
		// into Solved and one Solved into SolvedInaccurate (1e-6 worse).
		if bestMerit < ipmNear && (pr > max(1, ipmRaise*bestPr) || dr > max(1, ipmRaise*bestDr)) {
			refineNear = ipmRefine
		}
		bestPr, bestDr = min(bestPr, pr), min(bestDr, dr)
		if merit < 0.9*bestMerit {
			bestMerit, stalled = merit, 0
		} else if stalled++; bestMerit < ipmNear && merit > ipmRaise*bestMerit {
			refineNear = ipmRefine
		}
		w.refine = ipmRefineFar
		if bestMerit < ipmNear {
			w.refine = refineNear
		}
		if stalled >= ipmStall && bestMerit < 100 {
			// Rounding in the KKT solves (D spans 40 orders of magnitude
			// at the end) can stop the last digits from coming.
			break
		}
		if it == ipmMaxIterations {
			break
		}
		w.setRho()
		// Each iteration starts from the smallest regularisation: a raised
		// one slows the refinement and can stall the last iterations.
		if kkt.sigma != ipmReg {
			setXReg(kkt, ipmReg)
		}
		ok := kkt.setRho(w.rho)
		for !ok && kkt.sigma < ipmMaxReg {
			// Late iterations spread ρ over 20 orders of magnitude; a
			// larger x-block regularisation restores the quasi-definite
			// pivots, and the refinement removes its effect.
			setXReg(kkt, 100*kkt.sigma)
			ok = kkt.factor()
		}
		if !ok {
			if it == 0 {
				return finish(NonConvex) // P + εI + AᵀDA fails at the start
			}
			break // lost to rounding far from a solution: not solved
		}
		res.Stats.Refactorizations++
		// Predictor (affine scaling), then Mehrotra's corrector with
		// centring σ = (μ_aff/μ)³.
		w.rhsComplementarity(0, mu, nil)
		w.solve(kkt)
		alpha := w.stepLength()
		muAff := w.trialMu(alpha)
		sigma := 0.0
		if mu > 0 {
			sigma = math.Pow(muAff/mu, 3)
		}
		w.saveAffine()
		w.rhsComplementarity(sigma, mu, w.aff)
		w.solve(kkt)
		if a := w.stepLength(); w.trialMu(a) > mu && a < alpha {
			// The second-order term made things worse (it can cycle):
			// take the plain centred step instead.
			w.rhsComplementarity(sigma, mu, nil)
			w.solve(kkt)
		}
		// On a QP, μ(α) has the term α²·dxᵀP·dx/nb: once the iterate is
		// feasible a long step can raise μ and make the iterates cycle
		// (seen with period 3). There, halve α until μ falls by at least
		// half of what the centring σ asks; before, μ may have to rise
		// while the infeasibility falls.
		a := w.stepLength()
		if w.slackRes+prim+dual < 1e-6 {
			full := a
			for k := 0; ; k++ {
				if w.trialMu(a) <= mu*(1-0.5*a*(1-min(sigma, 0.9))) {
					break
				}
				if k == 30 {
					a = full // no decrease on this ray: keep the step
					break
				}
				a /= 2
			}
		}
		w.step(a)
	}
	// SolvedInaccurate, as for ADMM: ten times the tolerances met, by the
	// last iterate or else by the best one that met them.
	if prim, dual, mu := w.residuals(); w.finite() && w.converged(prim, dual, mu, 10*set.EpsAbs, 10*set.EpsRel) {
		res.Stats.PrimalResidual, res.Stats.DualResidual = prim, dual
		return finish(SolvedInaccurate)
	}
	if best.x != nil {
		copy(w.x, best.x)
		copy(w.y, best.y)
		res.Stats.PrimalResidual, res.Stats.DualResidual = best.prim, best.dual
		return finish(SolvedInaccurate)
	}
	return finish(IterationLimit)
}

// ipmBest is the iterate of lowest merit among those that met ten times
// the tolerances (x, y and residuals: what a result needs).
type ipmBest struct {
	merit, prim, dual float64
	x, y              []float64
}

func (b *ipmBest) save(w *ipm, merit, prim, dual float64) {
	b.merit, b.prim, b.dual = merit, prim, dual
	b.x = append(b.x[:0], w.x...)
	b.y = append(b.y[:0], w.y...)
}

func nanVec(k int) []float64 {
	v := make([]float64, k)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

// ipm is the interior-point iterate and workspace. Row i has a lower
// slack/multiplier pair (sl, zl) if it has a finite lower bound and is not
// an equality, and an upper pair (su, zu) likewise; y = zu − zl on
// inequality rows (OSQP's sign convention), y free on equality rows, and
// y = 0 on rows without finite bounds.
type ipm struct {
	d              *data
	eq, hasL, hasU []bool
	nb             int // number of bound pairs
	refine         int // refinement steps per solve in this iteration
	x, y           []float64
	sl, zl, su, zu []float64
	rho            []float64
	// residuals at the iterate
	ax, rd, rl, ru, re []float64
	// complementarity right-hand sides and the direction
	cl, cu, g                  []float64
	dx, dy, dsl, dzl, dsu, dzu []float64
	aff                        *ipmAffine
	// slackRes is max |r_l|, |r_u|: Σ s∘z bounds the duality gap only
	// when the slacks agree with Ax.
	slackRes float64
	// solve workspace
	bx, by, vx, vy, tx, ty []float64
}

// ipmAffine keeps the predictor's slack and multiplier steps for the
// corrector's second-order term.
type ipmAffine struct{ dsl, dzl, dsu, dzu []float64 }

func newIPM(d *data) *ipm {
	n, m := d.n, d.m
	f := func(k int) []float64 { return make([]float64, k) }
	w := &ipm{d: d, eq: make([]bool, m), hasL: make([]bool, m), hasU: make([]bool, m),
		x: f(n), y: f(m), sl: f(m), zl: f(m), su: f(m), zu: f(m), rho: f(m),
		ax: f(m), rd: f(n), rl: f(m), ru: f(m), re: f(m), cl: f(m), cu: f(m), g: f(m),
		dx: f(n), dy: f(m), dsl: f(m), dzl: f(m), dsu: f(m), dzu: f(m),
		bx: f(n), by: f(m), vx: f(n), vy: f(m), tx: f(n), ty: f(m),
		aff: &ipmAffine{dsl: f(m), dzl: f(m), dsu: f(m), dzu: f(m)}}
	for i := range m {
		l, u := d.l[i], d.u[i]
		switch {
		case l == u:
			w.eq[i] = true
		default:
			w.hasL[i] = !math.IsInf(l, -1)
			w.hasU[i] = !math.IsInf(u, 1)
		}
		// Start: x = 0, slacks at least 1 and consistent with Ax = 0 (unit
		// slacks far from the bounds leave steps of 1e-8 and μ growing),
		// multipliers z = 1/s, so that the start is centred (s∘z = 1).
		if w.hasL[i] {
			w.sl[i] = max(-l, 1)
			w.zl[i] = 1 / w.sl[i]
			w.nb++
		}
		if w.hasU[i] {
			w.su[i] = max(u, 1)
			w.zu[i] = 1 / w.su[i]
			w.nb++
		}
		w.y[i] = w.zu[i] - w.zl[i]
	}
	return w
}

// residuals computes Ax, the dual residual Px + q + Aᵀy, the primal
// residuals of every row, and returns the unscaled OSQP-style residuals
// ‖Ax − Π(Ax)‖∞ and ‖Px + q + Aᵀy‖∞ and the mean complementarity μ.
func (w *ipm) residuals() (prim, dual, mu float64) {
	d := w.d
	clear(w.ax)
	d.A.mulAdd(w.ax, w.x)
	copy(w.rd, d.q)
	d.P.symMulAdd(w.rd, w.x)
	d.A.mulTAdd(w.rd, w.y)
	for _, v := range w.rd {
		dual = max(dual, math.Abs(v))
	}
	var comp float64
	w.slackRes = 0
	for i, a := range w.ax {
		l, u := d.l[i], d.u[i]
		prim = max(prim, max(l-a, a-u))
		w.re[i], w.rl[i], w.ru[i] = 0, 0, 0
		if w.eq[i] {
			w.re[i] = a - l
		}
		if w.hasL[i] {
			w.rl[i] = a - l - w.sl[i]
			comp += w.sl[i] * w.zl[i]
			w.slackRes = max(w.slackRes, math.Abs(w.rl[i]))
		}
		if w.hasU[i] {
			w.ru[i] = u - a - w.su[i]
			comp += w.su[i] * w.zu[i]
			w.slackRes = max(w.slackRes, math.Abs(w.ru[i]))
		}
	}
	if w.nb > 0 {
		mu = comp / float64(w.nb)
	}
	return max(prim, 0), dual, mu
}

// converged applies OSQP's test (eq. (24)) to the residuals and asks the
// total complementarity Σ s∘z, which bounds the duality gap, to be below
// epsAbs·max(1, |objective|): the mean alone leaves a gap of nb·μ.
func (w *ipm) converged(prim, dual, mu, epsAbs, epsRel float64) bool {
	d := w.d
	var axn, pxn, atyn, qn float64
	for _, v := range w.ax {
		axn = max(axn, math.Abs(v))
	}
	px := w.tx
	clear(px)
	d.P.symMulAdd(px, w.x)
	for _, v := range px {
		pxn = max(pxn, math.Abs(v))
	}
	aty := w.vx
	clear(aty)
	d.A.mulTAdd(aty, w.y)
	for _, v := range aty {
		atyn = max(atyn, math.Abs(v))
	}
	for _, v := range d.q {
		qn = max(qn, math.Abs(v))
	}
	gap := mu * float64(w.nb)
	return prim <= epsAbs+epsRel*axn && w.slackRes <= epsAbs+epsRel*axn && dual <= epsAbs+epsRel*max(pxn, max(atyn, qn)) &&
		gap <= epsAbs*max(1, math.Abs(w.objective()))
}

// merit returns the largest of the primal, slack, dual and gap measures of
// converged, each divided by its tolerance (≤ 1 means converged; the dual
// tolerance here is the stricter ε_abs + ε_rel‖q‖∞), given the first three
// (residualRatios).
func (w *ipm) merit(pr, dr, mu, epsAbs float64) float64 {
	gt := epsAbs * max(1, math.Abs(w.objective()))
	return max(max(pr, dr), mu*float64(w.nb)/gt)
}

// residualRatios returns merit's primal (and slack) and dual parts.
func (w *ipm) residualRatios(prim, dual, epsAbs, epsRel float64) (pr, dr float64) {
	var axn, qn float64
	for _, v := range w.ax {
		axn = max(axn, math.Abs(v))
	}
	for _, v := range w.d.q {
		qn = max(qn, math.Abs(v))
	}
	pt := epsAbs + epsRel*axn
	return max(prim, w.slackRes) / pt, dual / (epsAbs + epsRel*qn)
}

func (w *ipm) finite() bool {
	for _, v := range w.x {
		if !isFinite(v) {
			return false
		}
	}
	return true
}

// setRho sets the KKT's per-row ρ_i = 1/D_i: zl/sl + zu/su on inequality
// rows, 1/ipmEqReg on equality rows.
func (w *ipm) setRho() {
	for i := range w.rho {
		switch {
		case w.eq[i]:
			w.rho[i] = 1 / ipmEqReg
		case w.hasL[i] || w.hasU[i]:
			var r float64
			if w.hasL[i] {
				r += w.zl[i] / w.sl[i]
			}
			if w.hasU[i] {
				r += w.zu[i] / w.su[i]
			}
			// Clamped: an unbounded problem drives z/s to 1e-310, whose
			// inverse is not a matrix entry.
			w.rho[i] = min(max(r, ipmMinRho), ipmMaxRho)
		default:
			w.rho[i] = ipmFreeRho
		}
	}
}

// rhsComplementarity sets the complementarity targets
// c = σμ − s∘z (− ds_aff∘dz_aff with the predictor's step aff).
func (w *ipm) rhsComplementarity(sigma, mu float64, aff *ipmAffine) {
	for i := range w.cl {
		w.cl[i], w.cu[i] = 0, 0
		if w.hasL[i] {
			w.cl[i] = sigma*mu - w.sl[i]*w.zl[i]
			if aff != nil {
				w.cl[i] -= aff.dsl[i] * aff.dzl[i]
			}
		}
		if w.hasU[i] {
			w.cu[i] = sigma*mu - w.su[i]*w.zu[i]
			if aff != nil {
				w.cu[i] -= aff.dsu[i] * aff.dzu[i]
			}
		}
	}
}

// solve computes the Newton direction for the current complementarity
// targets. Eliminating ds and dz from the linearised conditions leaves
//
//	[P, Aᵀ; A, −D] [dx; dy] = [−r_d; −D g]   (equality rows: −r_e, D = 0),
//
// g_i = c_u/s_u − (z_u/s_u) r_u − c_l/s_l + (z_l/s_l) r_l, solved with the
// regularised factorisation and refined against the exact matrix.
func (w *ipm) solve(kkt *sparseKKT) {
	for j, v := range w.rd {
		w.bx[j] = -v
	}
	for i := range w.by {
		switch {
		case w.eq[i]:
			w.by[i] = -w.re[i]
		case w.hasL[i] || w.hasU[i]:
			var g float64
			if w.hasU[i] {
				g += w.cu[i]/w.su[i] - w.zu[i]/w.su[i]*w.ru[i]
			}
			if w.hasL[i] {
				g += -w.cl[i]/w.sl[i] + w.zl[i]/w.sl[i]*w.rl[i]
			}
			w.g[i] = g
			w.by[i] = -g / w.rho[i]
		default:
			w.by[i] = 0
		}
	}
	w.kktSolve(kkt, w.bx, w.by, w.dx, w.dy)
	for range w.refine {
		// t = b − K dx (exact K: no ε, D = 0 on equality rows).
		copy(w.tx, w.bx)
		copy(w.ty, w.by)
		neg := w.vx
		for j, v := range w.dx {
			neg[j] = -v
		}
		w.d.P.symMulAdd(w.tx, neg)
		for i, v := range w.dy {
			w.vy[i] = -v
		}
		w.d.A.mulTAdd(w.tx, w.vy)
		w.d.A.mulAdd(w.ty, neg)
		for i, v := range w.dy {
			if !w.eq[i] {
				w.ty[i] += v / w.rho[i]
			}
		}
		w.kktSolve(kkt, w.tx, w.ty, w.vx, w.vy)
		var corr, size float64
		for j, v := range w.vx {
			w.dx[j] += v
			corr, size = max(corr, math.Abs(v)), max(size, math.Abs(w.dx[j]))
		}
		for i, v := range w.vy {
			w.dy[i] += v
			corr, size = max(corr, math.Abs(v)), max(size, math.Abs(w.dy[i]))
		}
		if corr <= 1e-12*size {
			break // converged to rounding: more steps cannot help
		}
	}
	// Recover the slack and multiplier steps.
	adx := w.ty
	clear(adx)
	w.d.A.mulAdd(adx, w.dx)
	for i := range w.dsl {
		if w.hasL[i] {
			w.dsl[i] = adx[i] + w.rl[i]
			w.dzl[i] = (w.cl[i] - w.zl[i]*w.dsl[i]) / w.sl[i]
		}
		if w.hasU[i] {
			w.dsu[i] = w.ru[i] - adx[i]
			w.dzu[i] = (w.cu[i] - w.zu[i]*w.dsu[i]) / w.su[i]
		}
	}
}

// setXReg changes the x-block regularisation of kkt to reg.
func setXReg(kkt *sparseKKT, reg float64) {
	for _, p := range kkt.pdpos {
		kkt.K.X[p] += reg - kkt.sigma
	}
	kkt.sigma = reg
}

// kktSolve solves the factorised system for (bx, by) into (ox, oy).
func (w *ipm) kktSolve(kkt *sparseKKT, bx, by, ox, oy []float64) {
	b := kkt.b
	n := len(bx)
	for j, v := range bx {
		b[kkt.pinv[j]] = v
	}
	for i, v := range by {
		b[kkt.pinv[n+i]] = v
	}
	kkt.f.solve(b)
	for j := range ox {
		ox[j] = b[kkt.pinv[j]]
	}
	for i := range oy {
		oy[i] = b[kkt.pinv[n+i]]
	}
}

// stepLength returns the largest α ≤ 1 keeping s + α ds and z + α dz
// positive, times the fraction to the boundary.
func (w *ipm) stepLength() float64 {
	a := math.Inf(1)
	lim := func(v, dv float64) {
		if dv < 0 {
			a = min(a, -v/dv)
		}
	}
	for i := range w.sl {
		if w.hasL[i] {
			lim(w.sl[i], w.dsl[i])
			lim(w.zl[i], w.dzl[i])
		}
		if w.hasU[i] {
			lim(w.su[i], w.dsu[i])
			lim(w.zu[i], w.dzu[i])
		}
	}
	return min(1, ipmStepFraction*a)
}

// trialMu returns the mean complementarity after a step of α.
func (w *ipm) trialMu(alpha float64) float64 {
	if w.nb == 0 {
		return 0
	}
	var c float64
	for i := range w.sl {
		if w.hasL[i] {
			c += (w.sl[i] + alpha*w.dsl[i]) * (w.zl[i] + alpha*w.dzl[i])
		}
		if w.hasU[i] {
			c += (w.su[i] + alpha*w.dsu[i]) * (w.zu[i] + alpha*w.dzu[i])
		}
	}
	return c / float64(w.nb)
}

func (w *ipm) saveAffine() {
	copy(w.aff.dsl, w.dsl)
	copy(w.aff.dzl, w.dzl)
	copy(w.aff.dsu, w.dsu)
	copy(w.aff.dzu, w.dzu)
}

// step moves the iterate by α along the direction.
func (w *ipm) step(alpha float64) {
	for j, v := range w.dx {
		w.x[j] += alpha * v
	}
	for i := range w.y {
		switch {
		case w.eq[i]:
			w.y[i] += alpha * w.dy[i]
		default:
			if w.hasL[i] {
				w.sl[i] += alpha * w.dsl[i]
				w.zl[i] += alpha * w.dzl[i]
			}
			if w.hasU[i] {
				w.su[i] += alpha * w.dsu[i]
				w.zu[i] += alpha * w.dzu[i]
			}
			w.y[i] = w.zu[i] - w.zl[i]
		}
	}
}

func (w *ipm) objective() float64 {
	px := make([]float64, w.d.n)
	w.d.P.symMulAdd(px, w.x)
	var o float64
	for j, v := range w.x {
		o += v * (0.5*px[j] + w.d.q[j])
	}
	return o
}
