package solver

import (
	"math"
	"sync"

	"github.com/fedcon/fedcon/internal/kernels"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Cloner is a SmoothSolver with per-caller state (e.g. a cached Hessian):
// every client, the server and Algorithm 3 get their own copy.
type Cloner interface {
	SmoothSolver
	Clone() SmoothSolver
}

// own returns s's per-caller copy.
func own(s SmoothSolver) SmoothSolver {
	if c, ok := s.(Cloner); ok {
		return c.Clone()
	}
	return s
}

// Newton minimises a strongly convex HessFunc by Newton's method with a
// Cholesky factorisation, built to reach tolerances near machine precision
// (Algorithm 2's ε_{t+1} = q^t becomes tiny):
//
//   - a step is accepted on sufficient decrease of φ (Armijo) beyond its
//     rounding band OR, when φ does not rise beyond that band, a clear
//     decrease of ||∇φ||_∞: near the optimum changes in φ fall below
//     rounding while the gradient still measures progress;
//   - the factorised Hessian is kept across iterations and calls (the
//     subproblems of successive ADMM iterations differ only in z, which
//     does not enter ∇²φ) and recomputed only when a step with it contracts
//     ||∇φ||_∞ by less than Contraction, or fails;
//   - an indefinite Hessian (nonconvex constraints) is shifted by a
//     multiple of I until Cholesky succeeds.
//
// Functions without a Hessian are handed to LBFGS.
type Newton struct {
	// Contraction in (0, 1): a reused Hessian is kept while each step
	// multiplies ||∇φ||_∞ by at most this (default 0.25).
	Contraction float64

	have  bool
	hEval int
	// u holds the Cholesky factor U and its mirror Uᵀ below, row-major, for
	// the solves by kernels.CholSolve (a Newton factor serves many steps;
	// gonum's solve for one right-hand side is the slower general Dtrsm).
	// It is the only d×d array a Newton keeps: the Hessian is formed in a
	// pooled scratch, so that a thousand clients hold one matrix each here.
	u []float64
	// illCond: the factor's condition estimate passed
	// mat.ConditionTolerance, where gonum's SolveVecTo would return a
	// Condition error.
	illCond bool
	work    []float64
	iwork   []int
	// vec holds Minimize's four d-vectors: a client calls Minimize every
	// ADMM round, and with a thousand clients fresh vectors were most of
	// a run's garbage.
	vec []float64
}

// symScratch lends d×d symmetric scratch matrices (a Hessian while it is
// factorised, a metric while it is built): only the goroutines running at
// once hold one, not every client. A borrowed matrix is zero, as a new one.
var symScratch sync.Pool

func borrowSym(d int) *mat.SymDense {
	if b, ok := symScratch.Get().(*[]float64); ok && cap(*b) >= d*d {
		buf := (*b)[:d*d]
		clear(buf)
		return mat.NewSymDense(d, buf)
	}
	return mat.NewSymDense(d, nil)
}

func returnSym(h *mat.SymDense) {
	b := h.RawSymmetric().Data
	symScratch.Put(&b)
}

var _ Cloner = (*Newton)(nil)

// Clone implements Cloner.
func (n *Newton) Clone() SmoothSolver { return &Newton{Contraction: n.Contraction} }

// HessianEvaluations returns the number of Hessians this solver formed.
func (n *Newton) HessianEvaluations() int { return n.hEval }

// Minimize implements SmoothSolver.
func (n *Newton) Minimize(f SmoothFunc, x []float64, tol float64, maxIter int) SmoothStats {
	hf, ok := f.(HessFunc)
	if !ok {
		return LBFGS{}.Minimize(f, x, tol, maxIter)
	}
	d := len(x)
	contraction := n.Contraction
	if contraction <= 0 || contraction >= 1 {
		contraction = 0.25
	}
	if len(n.u) != d*d {
		n.have = false
	}
	if len(n.vec) != 4*d {
		n.vec = make([]float64, 4*d)
	}
	g, gn, xn, p := n.vec[:d], n.vec[d:2*d], n.vec[2*d:3*d], n.vec[3*d:]
	corr, hasCorr := f.(corrector)
	fx := f.FuncGrad(x, g)
	st := SmoothStats{GradNorm: normInf(g)}
	if math.IsNaN(fx) {
		return st
	}
	for st.Iterations < maxIter && st.GradNorm > tol {
		fresh := false
		if n.have && hasCorr && corr.onWall(x) {
			// On a curved AL wall the curvature y·∇²c changes with every
			// step (y = μ + βc moves by β times the step's c): a reused
			// Hessian there sends steps off the wall (corrector).
			n.have = false
		}
		if !n.have {
			if !n.factor(hf, x) {
				if !finiteScalar(fx) {
					break
				}
				return LBFGS{}.Minimize(f, x, tol, maxIter-st.Iterations)
			}
			fresh = true
		}
		// p = -H⁻¹ g.
		if n.illCond {
			n.have = false
			if fresh {
				break
			}
			continue
		}
		for j, v := range g {
			p[j] = -v
		}
		kernels.CholSolve(n.u, d, p)
		gtp := floats.Dot(g, p)
		// A step that cannot move x in floating point means the gradient
		// sits at its rounding floor: stop instead of searching.
		if normInf(p) <= 4e-16*max(1, normInf(x)) {
			break
		}
		accepted := false
		var fNew, gnNew float64
		noise := 1e-12 * max(1, math.Abs(fx))
		// pass is the line search's test at step t: Armijo, where the
		// decrease of φ stands above its rounding; else a clear decrease
		// of the gradient. At the rounding floor fx + 1e-4·t·gᵀp rounds to
		// fx, so Armijo alone would accept steps that change nothing, and
		// the solve would cycle until its cap. The gradient test must not
		// let φ grow: far out on a logistic's linear tail the gradient
		// stays bounded while φ rises without bound.
		pass := func(t float64) bool {
			if math.IsNaN(fNew) {
				return false
			}
			gnNew = normInf(gn)
			armijo := fNew <= fx+1e-4*t*gtp && fNew < fx-noise
			flat := fNew <= fx+noise
			return armijo || (flat && gnNew <= 0.9*st.GradNorm)
		}
		anchored, canCorrect := false, hasCorr
		// Newton's unit step is accepted almost always; near the rounding
		// floor a failing search is a stall, so keep it short.
		for t, ls := 1.0, 0; ls < maxHalvings; t, ls = t/2, ls+1 {
			for j := range xn {
				xn[j] = x[j] + t*p[j]
			}
			fNew = f.FuncGrad(xn, gn)
			if pass(t) {
				accepted = true
				break
			}
			// A failed step along an AL wall: try it pulled back onto the
			// walls' linearisation (corrector) before halving.
			if !canCorrect || math.IsNaN(fNew) {
				continue
			}
			if !anchored {
				anchored, canCorrect = true, corr.anchor(x)
				if !canCorrect {
					continue
				}
			}
			if corr.correct(x, xn, fNew-(fx+1e-4*t*gtp)) {
				fNew = f.FuncGrad(xn, gn)
				if pass(t) {
					accepted = true
					break
				}
			}
		}
		if !accepted && fresh && (-gtp > 1e-12*max(1, math.Abs(fx)) || tol > 1e-9*max(1, math.Abs(fx))) {
			// The halvings failed with an exact Hessian: a piecewise-smooth φ
			// (an AL term max(0, ·)² switching on between x and the shortest
			// step tried, while ∇²φ(x) lacks its curvature) or a logistic far
			// tail. φ is convex along p here, so bisect on the sign of
			// ψ'(t) = ∇φ(x+tp)ᵀp for the line's minimiser below the last
			// step tried: that lands on the switch, and the next Hessian
			// carries the curvature beyond it. Also where φ is flat to
			// rounding but the tolerance asked for lies well above the
			// gradient's rounding: the switch is then a few ulps of φ away.
			fNew, gnNew, accepted = n.bisect(f, x, p, xn, gn, fx, gtp, st.GradNorm, math.Ldexp(1, 1-maxHalvings))
		}
		if !accepted {
			n.have = false
			if fresh {
				// With an exact Hessian: at the rounding floor when the
				// predicted decrease is below rounding of φ; otherwise the
				// Newton model is poor here (a far logistic tail), and
				// L-BFGS's line search goes on from x.
				if -gtp > 1e-12*max(1, math.Abs(fx)) {
					rest := LBFGS{}.Minimize(f, x, tol, maxIter-st.Iterations)
					rest.Iterations += st.Iterations
					return rest
				}
				break
			}
			continue
		}
		if !fresh && gnNew > contraction*st.GradNorm {
			n.have = false // the old Hessian has gone stale
		}
		copy(x, xn)
		copy(g, gn)
		fx = fNew
		st.GradNorm = gnNew
		st.Iterations++
	}
	st.Converged = st.GradNorm <= tol
	return st
}

// maxHalvings bounds the backtracking of one Newton step.
const maxHalvings = 8

// maxBisections bounds the line search of bisect: 2^-60 of the bracket
// is below any step that changes x in floating point.
const maxBisections = 60

// bisect searches (0, hi) along the descent direction p for a step that
// meets the line search's test (Armijo, or φ flat to rounding and
// ||∇φ||∞ below gn0) and whose slope ψ'(t) = ∇φ(x+tp)ᵀp has shrunk to a
// tenth of ψ'(0) = gtp in magnitude (strong Wolfe), leaving it in xn and
// its gradient in gn. ψ is convex, so the sign of ψ' says on which side
// of t the line's minimiser lies. When the bracket closes first it reports
// the last point that met the test, and false if none did.
func (n *Newton) bisect(f SmoothFunc, x, p, xn, gn []float64, fx, gtp, gn0, hi float64) (float64, float64, bool) {
	noise := 1e-12 * max(1, math.Abs(fx))
	lo, best := 0.0, 0.0
	for k := 0; k < maxBisections && lo < hi; k++ {
		t := (lo + hi) / 2
		for j := range xn {
			xn[j] = x[j] + t*p[j]
		}
		ft := f.FuncGrad(xn, gn)
		if math.IsNaN(ft) {
			hi = t
			continue
		}
		slope := floats.Dot(gn, p)
		gnt := normInf(gn)
		armijo := ft <= fx+1e-4*t*gtp && ft < fx-noise
		ok := armijo || (ft <= fx+noise && gnt < gn0)
		if ok && math.Abs(slope) <= 0.1*math.Abs(gtp) {
			return ft, gnt, true
		}
		if ok {
			best = t
		}
		if slope < 0 {
			lo = t
		} else {
			hi = t
		}
	}
	if best == 0 {
		return 0, 0, false
	}
	for j := range xn {
		xn[j] = x[j] + best*p[j]
	}
	ft := f.FuncGrad(xn, gn)
	return ft, normInf(gn), true
}

// factor forms and factorises ∇²φ(x), shifting it by a multiple of I if it
// is not positive definite. It reports false when no Hessian is available.
func (n *Newton) factor(hf HessFunc, x []float64) bool {
	h := borrowSym(len(x))
	defer returnSym(h)
	if !hf.Hessian(h, x) {
		return false
	}
	n.hEval++
	if n.factorize(h) {
		return true
	}
	raw := h.RawSymmetric()
	var scale float64
	for i := 0; i < raw.N; i++ {
		scale = math.Max(scale, math.Abs(raw.Data[i*raw.Stride+i]))
	}
	shift := 1e-10 * math.Max(scale, 1)
	for k := 0; k < 30; k++ {
		for i := 0; i < raw.N; i++ {
			raw.Data[i*raw.Stride+i] += shift
		}
		if n.factorize(h) {
			return true
		}
		shift *= 10
	}
	return false
}

// factorize factors h's upper triangle into u, estimates its condition and
// mirrors U into the lower triangle. It is mat.Cholesky's Factorize and
// Cond (the same LAPACK calls on the same data, so the same bits) without
// a second d×d array.
func (n *Newton) factorize(h *mat.SymDense) bool {
	raw := h.RawSymmetric()
	d := raw.N
	if len(n.u) != d*d {
		n.u = make([]float64, d*d)
		n.work, n.iwork = make([]float64, 3*d), make([]int, d)
	}
	for i := 0; i < d; i++ {
		copy(n.u[i*d+i:(i+1)*d], raw.Data[i*raw.Stride+i:i*raw.Stride+d])
	}
	sym := blas64.Symmetric{N: d, Stride: d, Uplo: blas.Upper, Data: n.u}
	norm := lapack64.Lansy(mat.CondNorm, sym, n.work)
	if _, ok := lapack64.Potrf(sym); !ok {
		n.have = false
		return false
	}
	n.have = true
	n.illCond = 1/lapack64.Pocon(sym, norm, n.work, n.iwork) > mat.ConditionTolerance
	for i := 0; i < d; i++ {
		for j := i + 1; j < d; j++ {
			n.u[j*d+i] = n.u[i*d+j]
		}
	}
	return true
}

// restoreFactor adopts a factor saved from another Newton of dimension
// √len(u) (a client's checkpoint).
func (n *Newton) restoreFactor(u []float64, illCond bool) {
	d := int(math.Round(math.Sqrt(float64(len(u)))))
	n.u = append(n.u[:0], u...)
	n.work, n.iwork = make([]float64, 3*d), make([]int, d)
	n.have, n.illCond = true, illCond
}
