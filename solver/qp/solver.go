package qp

import (
	"context"
	"fmt"
	"math"
	"time"
)

// linsys solves the linear system of the ADMM x-update (OSQP eq. (18)).
type linsys interface {
	// setRho refactors for the per-row step sizes rho; it reports false if
	// the matrix is not numerically definite.
	setRho(rho []float64) bool
	// step computes x̃ and z̃ from the iterates (x, z, y).
	step(xt, zt, x, z, y, q, rho []float64)
	factorNnz() int
}

// polishSys solves the regularised polishing system in place.
type polishSys interface{ solve(v []float64) }

// Row types for the choice of ρ (OSQP Section 5.2).
const (
	rowIneq int8 = iota
	rowEq
	rowFree
)

// Polishing row states.
const (
	actNone int8 = iota
	actLower
	actUpper
	actEq
)

// rhoTol: rows whose scaled bounds differ by less than this get the
// equality step size (OSQP's RHO_TOL).
const rhoTol = 1e-4

// polishCostScale multiplies the flop-based cost estimate of a polishing
// step: factorisations run at a lower flop rate than solves (measured about
// 2× on the benchmark problems).
const polishCostScale = 2.0

// divTol guards divisions by vanishing norms (OSQP's DIVISION_TOL).
const divTol = 1e-10

// Solver is a workspace for solving a sequence of QPs that share P and A:
// NewSolver validates, scales and factors once, Update changes q, l and u
// without refactoring (unless a row changes between equality and inequality),
// and Solve runs ADMM from a cold or warm start. The ρ reached by adaptation
// and its factorisation carry over from one Solve to the next, so repeated
// solves on one Solver are fast but not bit-identical to a fresh Solver's.
//
// A Solver is not safe for concurrent use; use one per goroutine.
type Solver struct {
	set  Settings
	kind LinearSolver
	n, m int

	q0, l0, u0 []float64 // unscaled vectors (bounds with ±Inf)
	P          symMatrix // scaled P: a *CSC, or a *symDense on the dense path
	A, At      *CSC      // scaled A; At = Āᵀ
	Ap         *pair     // products with Ā
	q, l, u    []float64 // scaled vectors
	sc         *scaling
	perm       []int // sparse path: KKT elimination order

	rhoBar float64
	rho    []float64
	rhoInv []float64
	rtype  []int8
	lin    linsys

	polRows   []int // rows of the cached polishing factorisation
	polActive []int // buffer for the active rows of a polishing step
	polSys    polishSys
	polDense  *densePolish // polishing workspaces
	polSparse *sparsePolish
	polState  []int8
	polNext   []int8
	polSeen   []int8 // ADMM active set at the last polishing attempt
	polCheck  []int8 // ADMM active set at the last check
	polCx     []float64
	polCy     []float64

	x, z, y, xt, zt, xPrev, yPrev []float64
	ax, px, aty, wn, wm, pd       []float64
	xp, zp, yp, sol, rhs, res     []float64

	pendingRefactor int
	setupTime       time.Duration
	polishCost      float64 // estimated cost of one polishing step, in ADMM iterations
}

// NewSolver validates prob and settings (nil means DefaultSettings()),
// scales the problem, chooses the dense or sparse path, computes the
// ordering and factors the ADMM matrix. It returns an *InputError for any
// invalid input, including a P that is not positive semidefinite: P is
// accepted when P̄ + σI is positive definite (P̄ the scaled P, σ =
// Settings.Sigma), which tolerates eigenvalues down to about −σ. NewSolver
// does not keep references to prob or settings.
func NewSolver(prob *Problem, settings *Settings) (*Solver, error) {
	t0 := time.Now()
	if settings == nil {
		settings = DefaultSettings()
	}
	if err := settings.Validate(); err != nil {
		return nil, err
	}
	kind := settings.LinearSolver
	if kind == LinearSolverAuto {
		kind = LinearSolverSparse
		if prob != nil && len(prob.Q) < settings.DenseThreshold {
			kind = LinearSolverDense
		}
	}
	newD := newData
	if kind == LinearSolverDense {
		newD = newDataDense
	}
	d, err := newD(prob)
	if err != nil {
		return nil, err
	}
	n, m := d.n, d.m
	s := &Solver{set: *settings, kind: kind, n: n, m: m}
	s.set.Ordering = append([]int(nil), settings.Ordering...)
	s.q0 = append([]float64(nil), d.q...)
	s.l0 = append([]float64(nil), d.l...)
	s.u0 = append([]float64(nil), d.u...)
	s.P, s.A, s.q = d.P, d.A, d.q
	if d.pd != nil {
		s.P = d.pd
	}
	s.sc = ruiz(s.P, s.A, d.at, s.q, s.set.ScalingIterations)
	if d.at != nil {
		scaleRC(d.at, s.sc.d, s.sc.e) // the products ruiz took for A, commuted
		s.Ap = newPairT(s.A, d.at)
	} else {
		s.Ap = newPair(s.A)
	}
	s.At = s.Ap.at
	s.l = make([]float64, m)
	s.u = make([]float64, m)
	s.scaleBounds()
	s.rhoBar = s.set.Rho
	s.rtype = make([]int8, m)
	s.rho = make([]float64, m)
	s.rhoInv = make([]float64, m)
	s.setRowTypes()
	s.fillRho()

	notPSD := func() error {
		return inputErrorf("P", "not positive semidefinite: P + σI is not positive definite after scaling (σ = %g)", s.set.Sigma)
	}
	switch s.kind {
	case LinearSolverDense:
		dk := newDenseKKT(s.P, s.Ap, s.set.Sigma)
		if !dk.convex() {
			return nil, notPSD()
		}
		s.lin = dk
	default:
		P := s.P.(*CSC) // newData keeps P dense only for the dense path
		if s.set.Ordering != nil {
			if err := checkPermutation(s.set.Ordering, n+m); err != nil {
				return nil, err
			}
			s.perm = s.set.Ordering
		} else {
			s.perm = autoOrdering(P, s.A)
		}
		// Convexity check: LDLᵀ of P̄ + σI alone, in the induced order.
		K, _, _ := kktPattern(P, s.A, s.set.Sigma, []int{}, nil, s.perm)
		f := newLDL(K)
		if !f.factor(K) || f.npos != n {
			return nil, notPSD()
		}
		s.lin = newSparseKKT(P, s.A, s.set.Sigma, s.rho, s.perm)
	}
	if !s.lin.setRho(s.rho) {
		return nil, inputErrorf("P", "the ADMM matrix P + σI + AᵀρA could not be factored (numerically indefinite)")
	}

	s.x = make([]float64, n)
	s.xt = make([]float64, n)
	s.xPrev = make([]float64, n)
	s.px = make([]float64, n)
	s.aty = make([]float64, n)
	s.wn = make([]float64, n)
	s.pd = make([]float64, n)
	s.xp = make([]float64, n)
	s.z = make([]float64, m)
	s.y = make([]float64, m)
	s.zt = make([]float64, m)
	s.yPrev = make([]float64, m)
	s.ax = make([]float64, m)
	s.wm = make([]float64, m)
	s.zp = make([]float64, m)
	s.yp = make([]float64, m)
	s.polState = make([]int8, m)
	s.polNext = make([]int8, m)
	s.polSeen = make([]int8, m)
	s.polCheck = make([]int8, m)
	s.polCx = make([]float64, n)
	s.polCy = make([]float64, m)
	s.polishCost = s.estimatePolishCost()
	s.setupTime = time.Since(t0)
	return s, nil
}

// estimatePolishCost returns the flop count of one polishing step (a
// numeric factorisation plus a few solves) divided by that of one ADMM
// iteration (a solve plus matrix-vector products), from the sizes known at
// setup. It only schedules early polishing, deterministically.
func (s *Solver) estimatePolishCost() float64 {
	n, m := float64(s.n), float64(s.m)
	mv := 2*float64(s.At.Nnz()) + 2*float64(s.P.Nnz()) + 10*(n+m)
	var factor, solve float64
	switch lin := s.lin.(type) {
	case *denseKKT:
		factor = n*n*n/6 + float64(s.At.Nnz())*n/2
		solve = 2 * n * n
	case *sparseKKT:
		for _, c := range lin.f.lnz {
			factor += float64(c) * float64(c)
		}
		solve = 4*float64(lin.f.nnz()) + 2*(n+m)
	}
	refine := float64(s.set.PolishRefine + 1)
	return polishCostScale * (factor + refine*(solve+mv)) / (solve + mv)
}

// Size returns the number of variables n and constraint rows m.
func (s *Solver) Size() (n, m int) { return s.n, s.m }

// LinearSolver returns the path chosen at setup, LinearSolverDense or
// LinearSolverSparse.
func (s *Solver) LinearSolver() LinearSolver { return s.kind }

func (s *Solver) scaleBounds() {
	for i := range s.l {
		s.l[i] = s.sc.e[i] * s.l0[i] // ±Inf stays ±Inf
		s.u[i] = s.sc.e[i] * s.u0[i]
	}
}

// setRowTypes classifies the rows and reports whether any type changed.
func (s *Solver) setRowTypes() bool {
	changed := false
	for i := range s.rtype {
		t := rowIneq
		switch {
		case math.IsInf(s.l[i], -1) && math.IsInf(s.u[i], 1):
			t = rowFree
		case s.u[i]-s.l[i] < rhoTol:
			t = rowEq
		}
		if t != s.rtype[i] {
			changed = true
		}
		s.rtype[i] = t
	}
	return changed
}

func (s *Solver) fillRho() {
	for i, t := range s.rtype {
		switch t {
		case rowIneq:
			s.rho[i] = s.rhoBar
		case rowEq:
			s.rho[i] = s.rhoBar * s.set.EqualityRhoScale
		default:
			s.rho[i] = rhoMin
		}
		s.rhoInv[i] = 1 / s.rho[i]
	}
}

// Update replaces q, l and u (a nil slice leaves that vector unchanged)
// while keeping the scaling and factorisation; only if a row changes between
// equality, inequality and free is the ADMM matrix refactored (counted in the
// next Result's Stats.Refactorizations). On error the Solver is unchanged.
func (s *Solver) Update(q, l, u []float64) error {
	if q != nil {
		if len(q) != s.n {
			return inputErrorf("Q", "len(Q) = %d, want n = %d", len(q), s.n)
		}
		for j, v := range q {
			if !isFinite(v) {
				return inputErrorf("Q", "Q[%d] = %v is not finite", j, v)
			}
		}
	}
	nl, nu := s.l0, s.u0
	if l != nil {
		if len(l) != s.m {
			return inputErrorf("L", "len(L) = %d, want m = %d", len(l), s.m)
		}
		nl = l
	}
	if u != nil {
		if len(u) != s.m {
			return inputErrorf("U", "len(U) = %d, want m = %d", len(u), s.m)
		}
		nu = u
	}
	bl := make([]float64, s.m)
	bu := make([]float64, s.m)
	if err := setBounds(bl, bu, nl, nu); err != nil {
		return err
	}
	if q != nil {
		copy(s.q0, q)
		for j := range s.q {
			s.q[j] = s.sc.c * s.sc.d[j] * q[j]
		}
	}
	s.l0, s.u0 = bl, bu
	s.scaleBounds()
	if s.setRowTypes() {
		s.fillRho()
		if !s.lin.setRho(s.rho) {
			// Cannot happen for a matrix that factored at setup, short of
			// overflow; report it at the next Solve.
			s.pendingRefactor = -1
			return nil
		}
		s.pendingRefactor++
	}
	return nil
}

// resid holds the residuals of an iterate (OSQP Section 3.4).
type resid struct {
	prim, dual       float64 // unscaled ∞-norms
	epsPrim, epsDual float64 // tolerances at this point
	primS, dualS     float64 // scaled residuals relative to their norms (for ρ)
}

func (r resid) converged(mult float64) bool {
	return r.prim <= mult*r.epsPrim && r.dual <= mult*r.epsDual
}

func (r resid) finite() bool { return isFinite(r.prim) && isFinite(r.dual) }

// residuals computes the residuals of the scaled iterate (x, z, y), leaving
// Āx in s.ax, P̄x in s.px and Āᵀy in s.aty.
func (s *Solver) residuals(x, z, y []float64) resid {
	sc := s.sc
	for i := range s.ax {
		s.ax[i] = 0
	}
	s.Ap.mul(s.ax, x)
	for j := range s.px {
		s.px[j] = 0
		s.aty[j] = 0
	}
	s.P.symMulAdd(s.px, x)
	s.Ap.mulT(s.aty, y)

	var prim, axN, zN, primS, axNS, zNS float64
	for i, axi := range s.ax {
		zi := z[i]
		ei := sc.einv[i]
		d := abs(axi - zi)
		a, b := abs(axi), abs(zi)
		primS = max(primS, d)
		axNS = max(axNS, a)
		zNS = max(zNS, b)
		prim = max(prim, ei*d)
		axN = max(axN, ei*a)
		zN = max(zN, ei*b)
	}
	var dual, pxN, atyN, qN, dualS, pxNS, atyNS, qNS float64
	for j, pxj := range s.px {
		atj, qj := s.aty[j], s.q[j]
		dj := sc.dinv[j]
		d := abs(pxj + qj + atj)
		a, b, c := abs(pxj), abs(atj), abs(qj)
		dualS = max(dualS, d)
		pxNS = max(pxNS, a)
		atyNS = max(atyNS, b)
		qNS = max(qNS, c)
		dual = max(dual, dj*d)
		pxN = max(pxN, dj*a)
		atyN = max(atyN, dj*b)
		qN = max(qN, dj*c)
	}
	if prim != prim || dual != dual { // NaN is lost by max; report it
		return resid{prim: math.NaN(), dual: math.NaN()}
	}
	e := s.set
	return resid{
		prim:    prim,
		dual:    sc.cinv * dual,
		epsPrim: e.EpsAbs + e.EpsRel*math.Max(axN, zN),
		epsDual: e.EpsAbs + e.EpsRel*sc.cinv*math.Max(pxN, math.Max(atyN, qN)),
		primS:   primS / (math.Max(axNS, zNS) + divTol),
		dualS:   dualS / (math.Max(pxNS, math.Max(atyNS, qNS)) + divTol),
	}
}

// abs is math.Abs. Loops use the builtin min and max (inlined, unlike
// math.Min and math.Max, with the same NaN and signed-zero results).
func abs(v float64) float64 { return math.Abs(v) }

// Solve runs ADMM on the current problem from start (nil: cold start from
// zero) and returns the Result. It returns an *InputError if start has the
// wrong length or non-finite entries, and, when ctx is canceled, the partial
// Result (Status Canceled) together with an error wrapping ctx.Err(). Every
// other outcome, including infeasibility and the caps, is a Status with a
// nil error.
func (s *Solver) Solve(ctx context.Context, start *Start) (*Result, error) {
	t0 := time.Now()
	if ctx == nil {
		ctx = context.Background()
	}
	n, m := s.n, s.m
	sc := s.sc
	if start != nil {
		if start.X != nil && len(start.X) != n {
			return nil, inputErrorf("Start.X", "len(X) = %d, want n = %d", len(start.X), n)
		}
		if start.Y != nil && len(start.Y) != m {
			return nil, inputErrorf("Start.Y", "len(Y) = %d, want m = %d", len(start.Y), m)
		}
		for j, v := range start.X {
			if !isFinite(v) {
				return nil, inputErrorf("Start.X", "X[%d] = %v is not finite", j, v)
			}
		}
		for i, v := range start.Y {
			if !isFinite(v) {
				return nil, inputErrorf("Start.Y", "Y[%d] = %v is not finite", i, v)
			}
		}
	}
	res := &Result{}
	st := &res.Stats
	st.LinearSolver = s.kind
	st.FactorNonzeros = s.lin.factorNnz()
	status := NotTerminated
	if s.pendingRefactor < 0 {
		status = NonConvex
	} else {
		st.Refactorizations = s.pendingRefactor
	}
	s.pendingRefactor = 0

	x, z, y := s.x, s.z, s.y
	for j := range x {
		x[j] = 0
	}
	for i := range y {
		y[i] = 0
		z[i] = 0
	}
	if start != nil {
		for j, v := range start.X {
			x[j] = sc.dinv[j] * v
		}
		for i, v := range start.Y {
			y[i] = sc.c * sc.einv[i] * v
		}
		if start.X != nil {
			s.Ap.mul(z, x)
		}
	}

	set := &s.set
	maxIt := set.MaxIterations
	if maxIt == 0 {
		maxIt = math.MaxInt
	}
	alpha := set.Alpha
	var r resid
	var polishR resid
	polished := false
	havePolState := false
	// Early polishing is rationed: after a failed attempt of s steps the
	// next one waits until the iterations since then cost as much as the
	// attempt did (s·polishCost iteration equivalents), so that failed
	// attempts take at most about half of the run.
	nextPolish := 0
	stable := 0
	for i := range s.polCheck {
		s.polCheck[i] = -1
	}
	tryPolish := func(r resid, iter int, warm bool) bool {
		if !set.Polish || set.PolishTrigger <= 1 {
			return false
		}
		// Count the checks over which the guessed active set is unchanged.
		same := true
		for i := range s.polCheck {
			a := s.rowState(i, z[i], y[i])
			if a != s.polCheck[i] {
				same = false
				s.polCheck[i] = a
			}
		}
		if same {
			stable++
		} else {
			stable = 0
		}
		if !warm && (iter < nextPolish || stable < set.PolishStable) ||
			r.prim > set.PolishTrigger*r.epsPrim || r.dual > set.PolishTrigger*r.epsDual ||
			!s.activeSetChanged(havePolState) {
			return false
		}
		havePolState = true
		tp := time.Now()
		steps := st.PolishSteps
		pr, ok := s.polish(st)
		st.PolishTime += time.Since(tp)
		if ok {
			polishR, polished = pr, true
			return true
		}
		nextPolish = iter + max(set.CheckInterval, int(math.Ceil(float64(st.PolishSteps-steps)*s.polishCost)))
		return false
	}
	var ctxErr error
	iter := 0
	tIter := time.Now()
	if start != nil && start.X != nil {
		// A warm start often has the right active set already.
		r = s.residuals(x, z, y)
		if r.finite() && tryPolish(r, 0, true) {
			status = Solved
		}
	}
	for status == NotTerminated {
		iter++
		check := iter%set.CheckInterval == 0 || iter == maxIt
		adapt := set.AdaptiveRhoInterval > 0 && iter%set.AdaptiveRhoInterval == 0
		if check {
			copy(s.xPrev, x)
			copy(s.yPrev, y)
		}
		s.lin.step(s.xt, s.zt, x, z, y, s.q, s.rho)
		for j, v := range s.xt {
			x[j] = alpha*v + (1-alpha)*x[j]
		}
		{
			zt, rho, rinv, lo, hi := s.zt[:m], s.rho[:m], s.rhoInv[:m], s.l[:m], s.u[:m]
			z, y := z[:m], y[:m]
			for i, v := range zt {
				zr := alpha*v + (1-alpha)*z[i]
				zn := zr + y[i]*rinv[i]
				if zn < lo[i] {
					zn = lo[i]
				} else if zn > hi[i] {
					zn = hi[i]
				}
				y[i] += rho[i] * (zr - zn)
				z[i] = zn
			}
		}
		if !check && !adapt {
			continue
		}
		r = s.residuals(x, z, y)
		if !r.finite() {
			status = NonConvex
			break
		}
		if check {
			if r.converged(1) {
				status = Solved
				break
			}
			if cert := s.primalInfeasible(); cert != nil {
				res.PrimalCertificate = cert
				status = PrimalInfeasible
				break
			}
			if cert := s.dualInfeasible(); cert != nil {
				res.DualCertificate = cert
				status = DualInfeasible
				break
			}
			if tryPolish(r, iter, false) {
				status = Solved
				break
			}
			if err := ctx.Err(); err != nil {
				ctxErr = err
				status = Canceled
				break
			}
			if set.TimeLimit > 0 && time.Since(t0) >= set.TimeLimit {
				status = TimeLimit
				break
			}
			if iter == maxIt {
				status = IterationLimit
				if r.converged(10) {
					status = SolvedInaccurate
				}
				break
			}
		}
		if adapt && iter < maxIt {
			est := s.rhoBar * math.Sqrt(r.primS/(r.dualS+divTol))
			est = math.Min(math.Max(est, rhoMin), rhoMax)
			if est > s.rhoBar*set.AdaptiveRhoFactor || est < s.rhoBar/set.AdaptiveRhoFactor {
				s.rhoBar = est
				s.fillRho()
				st.Refactorizations++
				if !s.lin.setRho(s.rho) {
					status = NonConvex
					break
				}
			}
		}
	}
	st.Iterations = iter
	st.IterationTime = time.Since(tIter) - st.PolishTime

	// Final polish (OSQP's), also giving capped runs a chance to finish.
	if set.Polish && !polished && (status == Solved || status == SolvedInaccurate || status == IterationLimit) {
		tp := time.Now()
		pr, ok := s.polish(st)
		st.PolishTime += time.Since(tp)
		if ok {
			polishR, polished = pr, true
			status = Solved
		}
	}

	st.Rho = s.rhoBar
	st.Polished = polished
	res.Status = status
	res.X = make([]float64, n)
	res.Y = make([]float64, m)
	if polished {
		r = polishR
		x, y = s.xp, s.yp
	}
	st.PrimalResidual, st.DualResidual = r.prim, r.dual
	if status.HasSolution() {
		for j := range res.X {
			res.X[j] = sc.d[j] * x[j]
		}
		for i := range res.Y {
			res.Y[i] = sc.cinv * sc.e[i] * y[i]
		}
		res.Objective = s.objective(res.X)
	} else {
		for j := range res.X {
			res.X[j] = math.NaN()
		}
		for i := range res.Y {
			res.Y[i] = math.NaN()
		}
		res.Objective = math.NaN()
	}
	st.Runtime = time.Since(t0)
	if ctxErr != nil {
		return res, fmt.Errorf("qp: solve canceled after %d iterations: %w", iter, ctxErr)
	}
	return res, nil
}

// objective returns ½xᵀPx + qᵀx for the unscaled x.
func (s *Solver) objective(x []float64) float64 {
	// ½x̄ᵀP̄x̄/c + q̄ᵀx̄/c with x̄ = D⁻¹x, evaluated on the scaled data.
	xs := s.wn
	for j := range xs {
		xs[j] = s.sc.dinv[j] * x[j]
	}
	px := make([]float64, s.n)
	s.P.symMulAdd(px, xs)
	var f float64
	for j := range xs {
		f += xs[j] * (0.5*px[j] + s.q[j])
	}
	return s.sc.cinv * f
}

// primalInfeasible returns the primal infeasibility certificate of OSQP
// eq. (26) built from δy = y − yPrev, or nil.
func (s *Solver) primalInfeasible() []float64 {
	if s.m == 0 {
		return nil
	}
	sc := s.sc
	dy := s.wm
	var norm float64
	for i := range dy {
		v := s.y[i] - s.yPrev[i]
		if math.IsInf(s.u[i], 1) && v > 0 {
			v = 0
		}
		if math.IsInf(s.l[i], -1) && v < 0 {
			v = 0
		}
		dy[i] = v
		norm = max(norm, abs(sc.cinv*sc.e[i]*v))
	}
	if norm < divTol {
		return nil
	}
	eps := s.set.EpsPrimalInf * norm
	var lhs float64
	for i, v := range dy {
		vu := sc.cinv * sc.e[i] * v
		if vu > 0 {
			lhs += s.u0[i] * vu
		} else if vu < 0 {
			lhs += s.l0[i] * vu
		}
	}
	if !(lhs < -eps) {
		return nil
	}
	aty := s.wn
	for j := range aty {
		aty[j] = 0
	}
	s.Ap.mulT(aty, dy)
	for j, v := range aty {
		if math.Abs(sc.cinv*sc.dinv[j]*v) > eps {
			return nil
		}
	}
	cert := make([]float64, s.m)
	for i, v := range dy {
		cert[i] = sc.cinv * sc.e[i] * v / norm
	}
	return cert
}

// dualInfeasible returns the dual infeasibility certificate of OSQP
// eq. (27) built from δx = x − xPrev, or nil.
func (s *Solver) dualInfeasible() []float64 {
	sc := s.sc
	dx := s.wn
	var norm float64
	for j := range dx {
		dx[j] = s.x[j] - s.xPrev[j]
		norm = max(norm, abs(sc.d[j]*dx[j]))
	}
	if norm < divTol {
		return nil
	}
	eps := s.set.EpsDualInf * norm
	var qd float64
	for j, v := range dx {
		qd += s.q[j] * v
	}
	if !(sc.cinv*qd < -eps) {
		return nil
	}
	pd := s.pd
	clear(pd)
	s.P.symMulAdd(pd, dx)
	for j, v := range pd {
		if math.Abs(sc.cinv*sc.dinv[j]*v) > eps {
			return nil
		}
	}
	ad := s.wm
	for i := range ad {
		ad[i] = 0
	}
	s.Ap.mul(ad, dx)
	for i, v := range ad {
		v *= sc.einv[i]
		lo, hi := !math.IsInf(s.l[i], -1), !math.IsInf(s.u[i], 1)
		if (hi && v > eps) || (lo && v < -eps) {
			return nil
		}
	}
	cert := make([]float64, s.n)
	for j, v := range dx {
		cert[j] = sc.d[j] * v / norm
	}
	return cert
}
