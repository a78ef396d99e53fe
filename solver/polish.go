package solver

import (
	"context"
	"errors"
	"math"
	"slices"

	"github.com/fedcon/fedcon/internal/kernels"
	"gonum.org/v1/gonum/mat"
)

// The KKT polish (ProxAL.Polish, CProxAL.Polish) finishes a run with
// Newton's method on the KKT system of (5) restricted to the constraints
// the proximal AL iterate identified as active, as OSQP polishes an ADMM
// solution (Stellato et al. 2020, §5.2). The outer proximal AL iteration
// converges linearly at a rate set by β; Newton on
//
//	F(w, μ_A) = [ Σ_i ∇f_i(w) + ∇c_{i,A}(w)μ_{i,A} ;  c_A(w) ] = 0,   μ_I = 0,
//
// converges quadratically from a point near a solution that has the right
// active set. Each Newton iteration is one round: the server sends (w, μ),
// each party returns its Lagrangian gradient, constraint values and
// Jacobian, and the Hessian of its Lagrangian ∇²f_i + Σ_j μ_ij∇²c_ij (the
// matrix the hessian rule already sends); the server never sees raw rows.
// The step solves the regularised system
//
//	[ H + δ_w I   J_Aᵀ    ] [dw ]     [ g   ]
//	[ J_A        -δ_μ I   ] [dμ_A] = - [ c_A ]
//
// whose fixed points are exactly the zeros of F whatever δ (the residual is
// always exact; δ only keeps the matrix factorable when H is singular or
// more constraints are active than there are variables). Nothing here is
// trusted: the polished point is returned only if Definition 1's residuals,
// computed at it from the same party data as the audit, are within the
// tolerances, and the run's status is then decided by the audit (certify).

// polishMaxIter caps Newton iterations per polish: quadratic convergence
// needs a handful from a point with the right active set; more means the
// active set or the basin is wrong and the proximal AL iteration goes on.
const polishMaxIter = 20

// polishPart is one party's KKT data at (w, μ_i).
type polishPart struct {
	F       float64
	LagGrad []float64 // ∇f_i + ∇c_i μ_i
	C       []float64
	Jac     []float64 // m_i×d, row-major
	Hess    []float64 // d×d, row-major: ∇²f_i + Σ_j μ_ij ∇²c_ij
}

// polishOracle evaluates every party (index 0 the server) at (w, mu); mu
// nil means each party's own current multipliers, which it then returns.
type polishOracle func(ctx context.Context, w []float64, mu [][]float64) ([]polishPart, [][]float64, error)

// polishResult is a polished point and what it cost.
type polishResult struct {
	W          []float64
	Mu         [][]float64
	Residuals  Residuals
	Iterations int
	OK         bool // residuals within (ε1, ε2)
}

// componentKinds returns, per constraint component of k, whether it is an
// equality (Zero) component; ok is false for cones the polish does not
// handle (second-order cones: their active faces are not coordinates).
func componentKinds(k Cone) (eq []bool, ok bool) {
	switch k := k.(type) {
	case nil:
		return nil, true
	case Zero:
		eq = make([]bool, int(k))
		for j := range eq {
			eq[j] = true
		}
		return eq, true
	case NonNeg:
		return make([]bool, int(k)), true
	case Product:
		for _, b := range k {
			e, ok := componentKinds(b)
			if !ok {
				return nil, false
			}
			eq = append(eq, e...)
		}
		return eq, true
	}
	return nil, false
}

// polishable reports whether every party's cone allows the polish, and
// whether the parties evaluated here give second derivatives (a remote
// client without them answers the polish round without a Hessian, and
// the polish then gives up: errNoHessian).
func polishable(parties []Party, local bool) bool {
	for i, p := range parties {
		if p == nil {
			continue
		}
		if _, ok := componentKinds(p.Cone()); !ok {
			return false
		}
		if (i == 0 || local) && !hasSecondOrder(p) {
			return false
		}
	}
	return true
}

func hasSecondOrder(p Party) bool {
	_, h := p.(HessianParty)
	_, q := p.(QuadraticParty)
	return h || q
}

// errNoHessian: a party cannot give the Hessian of its Lagrangian.
var errNoHessian = errors.New("solver: the party gives no second derivatives")

// lagrangianHessian writes ∇²f(w) + Σ_j μ_j∇²c_j(w) of party p into dst (d×d row-major).
func lagrangianHessian(p Party, w, mu, dst []float64, d int) {
	clear(dst)
	if p == nil {
		return
	}
	if hp, ok := p.(HessianParty); ok {
		h := mat.NewSymDense(d, nil)
		hp.Hessian(h, w, mu)
		for a := 0; a < d; a++ {
			for b := a; b < d; b++ {
				v := h.At(a, b)
				dst[a*d+b], dst[b*d+a] = v, v
			}
		}
		return
	}
	// A quadratic party: constraints are affine, so only Q remains.
	q, _, _, _ := p.(QuadraticParty).Quadratic()
	if q == nil {
		return
	}
	for a := 0; a < d; a++ {
		for b := 0; b < d; b++ {
			dst[a*d+b] = q.At(a, b)
		}
	}
}

// polishPartOf evaluates merit m's party at (w, mu) into out.
func polishPartOf(m *merit, w, mu []float64, out *polishPart) error {
	if m.party != nil && !hasSecondOrder(m.party) {
		return errNoHessian
	}
	d := m.d
	if out.LagGrad == nil {
		out.LagGrad, out.Hess = make([]float64, d), make([]float64, d*d)
	}
	if err := m.eval(w, true); err != nil {
		return err
	}
	out.F = m.f
	out.C = append(out.C[:0], m.c...)
	out.Jac = append(out.Jac[:0], m.jac[:m.m*d]...)
	copy(out.LagGrad, m.gf)
	for j := 0; j < m.m; j++ {
		for a := 0; a < d; a++ {
			out.LagGrad[a] += m.jac[j*d+a] * mu[j]
		}
	}
	m.hevals++
	lagrangianHessian(m.party, w, mu, out.Hess, d)
	return nil
}

// polishKKT runs the Newton iteration from (w0, the parties' multipliers)
// and returns the best point it reached. cones are the parties' cones
// (index 0 the server; nil for none); beta identifies the active set
// (μ + βc)_j > 0 exactly as the AL term does. Steps are damped by
// backtracking on ||F||₂ (Newton's direction is a descent direction for
// it), each trial one evaluation round: far from the solution, along the
// flat directions of a logistic loss, a full step overshoots.
func polishKKT(ctx context.Context, d int, w0 []float64, cones []Cone, beta, eps1, eps2 float64, oracle polishOracle) (polishResult, error) {
	n := len(cones)
	kinds := make([][]bool, n)
	for i, k := range cones {
		kinds[i], _ = componentKinds(k)
	}
	w := append([]float64(nil), w0...)
	parts, mu, err := oracle(ctx, w, nil)
	if err != nil {
		return polishResult{}, err
	}
	mu = cloneMu(mu)
	active := make([][]bool, n)
	for i := range cones {
		active[i] = make([]bool, len(kinds[i]))
		for j, eq := range kinds[i] {
			active[i][j] = eq || mu[i][j]+beta*parts[i].C[j] > 0
			if !active[i][j] {
				mu[i][j] = 0
			}
		}
	}
	if parts, _, err = oracle(ctx, w, mu); err != nil { // at the multipliers of the active set
		return polishResult{}, err
	}
	score := func(r Residuals) float64 { return max(r.Stationarity/eps1, r.Feasibility/eps2) }
	best := polishResult{Residuals: Residuals{math.Inf(1), math.Inf(1)}}
	g, h := make([]float64, d), make([]float64, d*d)
	kkt := func(parts []polishPart, mu [][]float64, active [][]bool) (Residuals, float64) {
		clear(g)
		var feas, norm2 float64
		for i, p := range parts {
			for a := range g {
				g[a] += p.LagGrad[a]
			}
			if cones[i] != nil {
				feas = max(feas, cones[i].NormalDist(p.C, mu[i]))
			}
			for j, on := range active[i] {
				if on {
					norm2 += p.C[j] * p.C[j]
				}
			}
		}
		norm2 += dot(g, g)
		return Residuals{Stationarity: normInf(g), Feasibility: feas}, norm2
	}
	r, norm2 := kkt(parts, mu, active)
	tw, tmu, tact := make([]float64, d), cloneMu(mu), cloneActive(active)
	// Non-monotone acceptance (Grippo, Lampariello and Lucidi 1986): a step
	// must lower ||F|| below the largest of the last polishMemory values,
	// not the last one. A constraint entering the active set raises ||F||
	// by its violation, and the monotone rule then crawls with tiny steps.
	recent := []float64{norm2}
	for it := 0; ; it++ {
		if s := score(r); s < score(best.Residuals) {
			best = polishResult{W: append([]float64(nil), w...), Mu: cloneMu(mu), Residuals: r}
		}
		best.Iterations = it
		// Two orders below the tolerance: quadratic convergence makes that
		// one step more than the tolerance itself.
		if score(r) <= 1e-2 || it >= polishMaxIter || math.IsNaN(norm2) {
			break
		}
		if err := ctx.Err(); err != nil {
			return best, err
		}
		clear(h)
		r, _ = kkt(parts, mu, active) // g at the current point
		for _, p := range parts {
			for a := range h {
				h[a] += p.Hess[a]
			}
		}
		dw, dmu, ok := newtonKKTStep(d, g, h, parts, active)
		if !ok {
			break
		}
		accepted := false
		for alpha, ls := 1.0, 0; ls < polishMaxBacktrack; alpha, ls = alpha/2, ls+1 {
			for a := range tw {
				tw[a] = w[a] + alpha*dw[a]
			}
			k := 0
			for i := range active {
				copy(tmu[i], mu[i])
				copy(tact[i], active[i])
				for j, on := range active[i] {
					if !on {
						continue
					}
					tmu[i][j] += alpha * dmu[k]
					k++
					// A multiplier of an inequality that turned negative
					// leaves the active set: its constraint is not binding.
					if !kinds[i][j] && tmu[i][j] < 0 {
						tmu[i][j], tact[i][j] = 0, false
					}
				}
			}
			if !finite(tw) {
				continue
			}
			tparts, _, err := oracle(ctx, tw, tmu)
			if err != nil {
				return best, err
			}
			tr, tnorm2 := kkt(tparts, tmu, tact)
			if tnorm2 <= (1-1e-4*alpha)*slices.Max(recent) {
				copy(w, tw)
				mu, tmu = tmu, mu
				active, tact = tact, active
				parts, r, norm2, accepted = tparts, tr, tnorm2, true
				break
			}
		}
		if !accepted {
			break
		}
		// A violated inequality enters the active set.
		for i := range active {
			for j, on := range active[i] {
				if !on && !kinds[i][j] && parts[i].C[j] > 0 {
					active[i][j] = true
				}
			}
		}
		_, norm2 = kkt(parts, mu, active)
		if recent = append(recent, norm2); len(recent) > polishMemory {
			recent = recent[1:]
		}
	}
	best.OK = best.W != nil && best.Residuals.Stationarity <= eps1 && best.Residuals.Feasibility <= eps2
	return best, nil
}

// polishMaxBacktrack caps the halvings of one Newton step; polishMemory
// is the window of the non-monotone acceptance.
const (
	polishMaxBacktrack = 8
	polishMemory       = 5
)

func cloneActive(a [][]bool) [][]bool {
	out := make([][]bool, len(a))
	for i, x := range a {
		out[i] = append([]bool(nil), x...)
	}
	return out
}

// newtonKKTStep solves the regularised KKT system by the Schur complement
// on the active constraints: (H + δ_w I) is positive definite for a convex
// Lagrangian, and S = J_A(H + δ_w I)⁻¹J_Aᵀ + δ_μ I then is too.
func newtonKKTStep(d int, g, h []float64, parts []polishPart, active [][]bool) (dw, dmu []float64, ok bool) {
	var rows [][]float64
	var cA []float64
	for i, p := range parts {
		for j, on := range active[i] {
			if on {
				rows = append(rows, p.Jac[j*d:(j+1)*d])
				cA = append(cA, p.C[j])
			}
		}
	}
	u, g, ok := convexifiedHessian(h, g, d, rows, cA)
	if !ok {
		return nil, nil, false
	}
	solveH := func(x []float64) { kernels.CholSolve(u, d, x) }
	hg := append([]float64(nil), g...)
	solveH(hg)
	m := len(rows)
	dw = make([]float64, d)
	if m == 0 {
		for a := range dw {
			dw[a] = -hg[a]
		}
		return dw, nil, true
	}
	// Z = H⁻¹J_Aᵀ column by column; S = J_A Z + δ_μ I; rhs = c_A - J_A H⁻¹g.
	z := make([][]float64, m)
	for k, row := range rows {
		z[k] = append([]float64(nil), row...)
		solveH(z[k])
	}
	sm := make([]float64, m*m)
	for a := 0; a < m; a++ {
		for b := a; b < m; b++ {
			v := dot(rows[a], z[b])
			sm[a*m+b], sm[b*m+a] = v, v
		}
	}
	rhs := make([]float64, m)
	for k, row := range rows {
		rhs[k] = cA[k] - dot(row, hg)
	}
	su, ok := regularizedCholesky(sm, m)
	if !ok {
		return nil, nil, false
	}
	dmu = rhs
	if rankDeficient(su, sm, m) {
		if !pinvSolve(sm, m, dmu) {
			return nil, nil, false
		}
	} else {
		kernels.CholSolve(su, m, dmu)
	}
	// dw = -H⁻¹(g + J_Aᵀdμ) = -(H⁻¹g + Z dμ).
	for a := range dw {
		v := hg[a]
		for k := range z {
			v += z[k][a] * dmu[k]
		}
		dw[a] = -v
	}
	return dw, dmu, finite(dw) && finite(dmu)
}

// schurRankTol is the relative size below which a pivot of the Schur
// complement S, or an eigenvalue of it, counts as zero.
const schurRankTol = 1e-9

// rankDeficient reports whether the factor u of S = J_A H⁻¹J_Aᵀ (+ tiny δ)
// has a pivot below schurRankTol of S's largest diagonal entry: the active
// constraints' gradients are dependent (more active constraints than
// directions: every client's NP constraint active in d = 18 on monks-1 at
// n = 100). A pivot bounds the smallest eigenvalue from above, so a
// well-conditioned S is never flagged.
func rankDeficient(u, s []float64, m int) bool {
	var scale, piv float64
	piv = math.Inf(1)
	for i := 0; i < m; i++ {
		scale = max(scale, s[i*m+i])
		piv = min(piv, u[i*m+i]*u[i*m+i])
	}
	return piv < schurRankTol*scale
}

// pinvSolve overwrites x with the minimum-norm least-squares solution of
// S x = x (S symmetric positive semidefinite, m×m): eigenvalues below
// schurRankTol of the largest are dropped. With dependent active
// constraints, the regularised solve's 1/δ amplifies the part of c_A no
// step can reach along null(J_Aᵀ) (dμ of order 1e4 there); those
// multiplier components cancel in J_Aᵀdμ until an inequality's sign clip
// breaks the cancellation and the step fails at every length. The
// minimum-norm dμ leaves them where they are.
func pinvSolve(s []float64, m int, x []float64) bool {
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(m, append([]float64(nil), s...)), true) {
		return false
	}
	vals := eig.Values(nil)
	var v mat.Dense
	eig.VectorsTo(&v)
	top := slices.Max(vals)
	if !(top > 0) {
		return false
	}
	coef := make([]float64, m)
	for k, l := range vals {
		if l <= schurRankTol*top {
			continue
		}
		var p float64
		for a := 0; a < m; a++ {
			p += v.At(a, k) * x[a]
		}
		coef[k] = p / l
	}
	for a := 0; a < m; a++ {
		var y float64
		for k, c := range coef {
			y += v.At(a, k) * c
		}
		x[a] = y
	}
	return true
}

// convexifiedHessian factors the (1,1) block of the KKT step. A nonconvex
// constraint (the fairness disparity) makes H indefinite although the
// reduced Hessian on the null space of J_A is positive definite; then
// H + γJ_AᵀJ_A is, for γ large enough, and the step from
//
//	[ H + γJ_AᵀJ_A   J_Aᵀ ] [dw ]     [ g + γJ_Aᵀc_A ]
//	[ J_A            0    ] [dμ_A] = - [ c_A          ]
//
// is the same Newton step (add γJ_Aᵀ times the second row to the first).
// If no γ tried works (the active set is wrong) it gives up. Returns the
// factor and the right-hand side g' to use with it.
func convexifiedHessian(h, g []float64, d int, rows [][]float64, cA []float64) ([]float64, []float64, bool) {
	if u, ok := regularizedCholesky(h, d); ok {
		return u, g, true
	}
	if len(rows) == 0 {
		return nil, nil, false
	}
	var th, tj float64
	for a := 0; a < d; a++ {
		th = max(th, math.Abs(h[a*d+a]))
	}
	for _, r := range rows {
		for _, v := range r {
			tj = max(tj, v*v)
		}
	}
	if !(tj > 0) {
		return nil, nil, false
	}
	hg, gg := make([]float64, d*d), make([]float64, d)
	for _, f := range []float64{1, 10, 100, 1e3, 1e4} {
		gamma := f * max(th, 1e-8) / tj
		copy(hg, h)
		copy(gg, g)
		for k, r := range rows {
			for a := 0; a < d; a++ {
				gg[a] += gamma * r[a] * cA[k]
				for b := 0; b < d; b++ {
					hg[a*d+b] += gamma * r[a] * r[b]
				}
			}
		}
		if u, ok := regularizedCholesky(hg, d); ok {
			return u, gg, true
		}
	}
	return nil, nil, false
}

// regularizedCholesky factors a + δI (n×n, row-major) by the kernels'
// Cholesky, δ = 1e-10 of the largest diagonal entry, raised to 1e-8 and
// 1e-6 of it if the factorisation fails; a is not modified.
func regularizedCholesky(a []float64, n int) ([]float64, bool) {
	var scale float64
	for i := 0; i < n; i++ {
		scale = max(scale, math.Abs(a[i*n+i]))
	}
	if !(scale > 0) || math.IsInf(scale, 0) {
		scale = 1
	}
	u := make([]float64, n*n)
	for _, rel := range []float64{1e-10, 1e-8, 1e-6} {
		copy(u, a)
		for i := 0; i < n; i++ {
			u[i*n+i] += rel * scale
		}
		if kernels.Cholesky(u, n) {
			return u, true
		}
	}
	return nil, false
}

func dot(x, y []float64) float64 {
	var s float64
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

func cloneMu(mu [][]float64) [][]float64 {
	out := make([][]float64, len(mu))
	for i, m := range mu {
		out[i] = append([]float64(nil), m...)
	}
	return out
}
