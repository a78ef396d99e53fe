package recheck

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// NPRef is an independent solve of the partitioned Neyman-Pearson problem,
// eq. (30): minimise f(w) = Σ_i L0_i(w)/n subject to c_i(w) = L1_i(w) − r
// <= 0 for every part i. W is strictly feasible; Mu are the barrier's
// multipliers μ_i = 1/(t·s_i) at its last parameter t (s_i = −c_i(W)).
// Gap is Σ_i μ_i·s_i = m/t and Grad the 2-norm of ∇f(W) + Σ_i μ_i∇c_i(W),
// so that, by convexity of the Lagrangian in w, every point v satisfies
//
//	f(W) − f(v) <= ||μ||₁·max_i c_i(v)₊ + Gap + Grad·||v − W||₂,
//
// and, W being feasible, every (ε1, ε2)-KKT point (v, λ) satisfies
//
//	f(v) − f(W) <= √d·ε1·||v − W||₂ + ||λ||₁·ε2.
type NPRef struct {
	W, Mu     []float64
	F         float64
	Gap, Grad float64
}

// barrierT is the largest barrier parameter: a duality gap m/t of 2e-9
// for m = 20 parts. The rounding of the slacks may stop the stages earlier
// (NPReference keeps the best).
const barrierT = 1e10

// spRow is a row by its nonzero entries: the one-hot encodings leave most
// entries zero, and the Hessian's cost is quadratic in the nonzeros.
type spRow struct {
	idx []int
	val []float64
}

func sparse(rows [][]float64) []spRow {
	out := make([]spRow, len(rows))
	for k, row := range rows {
		for j, v := range row {
			if v != 0 {
				out[k].idx = append(out[k].idx, j)
				out[k].val = append(out[k].val, v)
			}
		}
	}
	return out
}

// logisticModel returns the mean logistic loss of rows with label y at w
// and, when g is not nil, adds wt times its gradient to g and wt times its
// Hessian (mean of σ(1−σ)·xxᵀ) to h's lower triangle.
func logisticModel(rows []spRow, y float64, w []float64, wt float64, g []float64, h [][]float64) float64 {
	if len(rows) == 0 {
		return 0
	}
	inv := 1 / float64(len(rows))
	var sum float64
	for _, row := range rows {
		var z float64
		for k, j := range row.idx {
			z += w[j] * row.val[k]
		}
		// One exponential for both softplus and σ: e = e^{−|z|}.
		e := math.Exp(-math.Abs(z))
		sum += math.Max(z, 0) + math.Log1p(e) - y*z
		if g == nil {
			continue
		}
		s := 1 / (1 + e)
		if z < 0 {
			s = e / (1 + e)
		}
		gs, hs := wt*inv*(s-y), wt*inv*s*(1-s)
		for k, j := range row.idx {
			g[j] += gs * row.val[k]
			for l, i := range row.idx[:k+1] {
				h[j][i] += hs * row.val[k] * row.val[l]
			}
		}
	}
	return sum * inv
}

// NPReference solves eq. (30) on parts (each part's class-0 then class-1
// rows, d features, n the divisor of the objective) by a log-barrier method
// with Newton steps, t = 1, 100, ..., 1e10, from the minimiser of Σ_i L1_i
// (plus a 1e-6 ridge), which must be strictly feasible, and returns the
// stage whose Gap + Grad is least (on the gate's data sets about 1e-8). It
// shares nothing with the proximal AL methods or problems/: plain loops
// and its own Cholesky factorisation.
func NPReference(parts [][2][][]float64, n int, r float64, d int) (*NPRef, error) {
	m := len(parts)
	c0, c1 := make([][]spRow, m), make([][]spRow, m)
	for i, p := range parts {
		c0[i], c1[i] = sparse(p[0]), sparse(p[1])
	}
	scale := 1 / float64(n)
	slack := func(w []float64) ([]float64, bool) {
		s := make([]float64, m)
		for i := range c1 {
			s[i] = r - logisticModel(c1[i], 1, w, 0, nil, nil)
			if !(s[i] > 0) {
				return nil, false
			}
		}
		return s, true
	}
	obj := func(w []float64) float64 {
		var f float64
		for i := range c0 {
			f += scale * logisticModel(c0[i], 0, w, 0, nil, nil)
		}
		return f
	}
	w := make([]float64, d)
	// Phase I: the ridge keeps the iterates bounded on separable classes.
	const ridge = 1e-6
	if _, err := newtonMin(w, func(x []float64) (float64, bool) {
		var v float64
		for i := range c1 {
			v += logisticModel(c1[i], 1, x, 0, nil, nil)
		}
		return v + 0.5*ridge*dot(x, x), true
	}, func([]float64) bool { return true }, func(x, g []float64, h [][]float64) {
		for i := range c1 {
			logisticModel(c1[i], 1, x, 1, g, h)
		}
		for j := range x {
			g[j] += ridge * x[j]
			h[j][j] += ridge
		}
	}); err != nil {
		return nil, fmt.Errorf("recheck: barrier phase I: %w", err)
	}
	if _, ok := slack(w); !ok {
		return nil, errors.New("recheck: barrier reference: the minimiser of the class-1 losses is not strictly feasible")
	}
	// at is the certificate of a strictly feasible w at parameter t.
	at := func(w []float64, t float64) *NPRef {
		s, _ := slack(w)
		ref := &NPRef{W: slices.Clone(w), Mu: make([]float64, m), F: obj(w)}
		grad := make([]float64, d)
		hs := make([][]float64, d)
		for j := range hs {
			hs[j] = make([]float64, j+1)
		}
		for i := range c0 {
			ref.Mu[i] = 1 / (t * s[i])
			ref.Gap += ref.Mu[i] * s[i]
			logisticModel(c0[i], 0, w, scale, grad, hs)
			logisticModel(c1[i], 1, w, ref.Mu[i], grad, hs)
		}
		ref.Grad = math.Sqrt(dot(grad, grad))
		return ref
	}
	var best *NPRef
	gi := make([]float64, d)
	for t := 1.0; t <= barrierT; t *= 100 {
		converged, err := newtonMin(w, func(x []float64) (float64, bool) {
			s, ok := slack(x)
			if !ok {
				return math.Inf(1), false
			}
			v := t * obj(x)
			for _, si := range s {
				v -= math.Log(si)
			}
			return v, true
		}, func(x []float64) bool {
			_, ok := slack(x)
			return ok
		}, func(x, g []float64, h [][]float64) {
			s, _ := slack(x)
			for i := range c0 {
				logisticModel(c0[i], 0, x, t*scale, g, h)
				clear(gi)
				logisticModel(c1[i], 1, x, 1/s[i], gi, h)
				for j := range gi {
					g[j] += gi[j]
					// ∇c_i∇c_iᵀ/s_i², gi being ∇c_i/s_i.
					for l := 0; l <= j; l++ {
						h[j][l] += gi[j] * gi[l]
					}
				}
			}
		})
		if err != nil {
			return nil, fmt.Errorf("recheck: barrier t = %g: %w", t, err)
		}
		// The bound's terms, Gap + Grad, at unit distance: the gap falls
		// as 1/t while the rounding of s_i = r − L1_i, amplified by 1/s_i,
		// raises the gradient's floor; keep the best stage and stop at the
		// first that is worse or does not converge.
		ref := at(w, t)
		if best != nil && ref.Gap+ref.Grad >= best.Gap+best.Grad {
			break
		}
		best = ref
		if !converged {
			break
		}
	}
	return best, nil
}

// newtonMin minimises phi from w in place by Newton steps on the model's
// gradient and Hessian (lower triangle), full steps staying where phi is
// finite (inDomain), with a ridge relative to the largest curvature raised until the Cholesky factorisation succeeds
// (rank-deficient encodings: any minimiser will do). Far from the
// minimiser the steps are damped until phi decreases; once the Newton
// decrement is below 1e-2 they are full steps kept while the gradient's
// norm falls, since at large t phi's rounding hides the last decreases
// while the gradient still resolves them. It reports convergence when the
// gradient stops falling there (w is then the best iterate) or the
// decrement vanishes, and no convergence when no damped step decreases phi
// or after 50 steps.
func newtonMin(w []float64, phi func([]float64) (float64, bool), inDomain func([]float64) bool, model func(x, g []float64, h [][]float64)) (bool, error) {
	d := len(w)
	g := make([]float64, d)
	h := make([][]float64, d)
	for j := range h {
		h[j] = make([]float64, d)
	}
	trial := make([]float64, d)
	prev := make([]float64, d)
	prevNorm := math.Inf(1)
	local := false
	for range 50 {
		clear(g)
		for j := range h {
			clear(h[j])
		}
		model(w, g, h)
		norm := dot(g, g)
		if local {
			if !(norm < prevNorm) {
				copy(w, prev)
				return true, nil
			}
		}
		prevNorm = norm
		var hmax float64
		for j := range d {
			hmax = math.Max(hmax, h[j][j])
		}
		var l [][]float64
		for ridge := 1e-14 * math.Max(hmax, 1); ; ridge *= 10 {
			if ridge > 1e-4*math.Max(hmax, 1) {
				return false, errors.New("Hessian not positive definite")
			}
			for j := range d {
				h[j][j] += ridge
			}
			var err error
			l, err = cholesky(h)
			for j := range d {
				h[j][j] -= ridge
			}
			if err == nil {
				break
			}
		}
		p := cholSolve(l, g)
		dec := dot(p, g)
		if dec == 0 {
			return true, nil
		}
		if dec < 1e-2 {
			for j := range trial {
				trial[j] = w[j] - p[j]
			}
			if inDomain(trial) {
				local = true
				copy(prev, w)
				copy(w, trial)
				continue
			}
		}
		local = false
		f0, _ := phi(w)
		moved := false
		for step := 1.0; step > 1e-12; step /= 2 {
			for j := range trial {
				trial[j] = w[j] - step*p[j]
			}
			if f1, ok := phi(trial); ok && f1 <= f0 {
				copy(w, trial)
				moved = true
				break
			}
		}
		if !moved {
			return false, nil
		}
	}
	return false, nil
}
