package recheck

import (
	"fmt"
	"math"
)

// eqSystem is the equality QP min ½wᵀAw + bᵀw s.t. Cw + D = 0 factored
// once (the range-space method of EqQP), to solve it for several b.
type eqSystem struct {
	lh, ls [][]float64 // Cholesky factors of A and of S = C A⁻¹ Cᵀ
	ac     [][]float64 // A⁻¹Cᵀ by columns
	c      [][]float64
	d      []float64
}

func newEqSystem(a [][]float64, c [][]float64, d []float64) (*eqSystem, error) {
	lh, err := cholesky(a)
	if err != nil {
		return nil, fmt.Errorf("recheck: H + Σ λ_k G_kᵀG_k: %w", err)
	}
	e := &eqSystem{lh: lh, c: c, d: d, ac: make([][]float64, len(c))}
	for k, row := range c {
		e.ac[k] = cholSolve(lh, row)
	}
	s := make([][]float64, len(c))
	for k := range c {
		s[k] = make([]float64, len(c))
		for l := range c {
			s[k][l] = dot(c[k], e.ac[l])
		}
	}
	if e.ls, err = cholesky(s); err != nil {
		return nil, fmt.Errorf("recheck: Schur complement C A⁻¹ Cᵀ: %w", err)
	}
	return e, nil
}

// solve returns the minimiser for linear term b, with Cw + D = 0 when
// withD, else Cw = 0 (a derivative of the minimiser), and its equalities'
// multipliers ν (Aw + b + Cᵀν = 0).
func (e *eqSystem) solve(b []float64, withD bool) ([]float64, []float64) {
	ab := cholSolve(e.lh, b)
	rhs := make([]float64, len(e.c))
	for k := range e.c {
		rhs[k] = -dot(e.c[k], ab)
		if withD {
			rhs[k] += e.d[k]
		}
	}
	nu := cholSolve(e.ls, rhs)
	w := make([]float64, len(b))
	for j := range w {
		w[j] = -ab[j]
		for k := range e.c {
			w[j] -= e.ac[k][j] * nu[k]
		}
	}
	return w, nu
}

// EqQPBalls returns the minimiser w*, the balls' multipliers λ*, the
// equalities' multipliers ν* (stacked in party order, as EqQP's) and f* of
// Σ_i f_i subject to every party's equalities and the norm balls
// ½(||G_kw − H_k||₂² − T_k²) <= 0. It maximises the concave dual
// g(λ) = min_w Σ_i f_i + Σ_k λ_k·½(||G_kw − H_k||² − T_k²) over λ >= 0 by
// projected Newton steps: ∂g/∂λ_k = s_k, the k-th constraint at w(λ), and
// ∂s_k/∂λ_l = (G_kᵀr_k)ᵀ∂w/∂λ_l with r_k = G_kw − H_k, where ∂w/∂λ_l
// solves the equality QP with linear term G_lᵀr_l. Multipliers at 0 with
// s_k < 0 stay fixed; the others take the Newton step, projected on
// λ >= 0 and halved until g increases. It shares EqQP's plain loops and
// nothing with the solvers; with one ball EqQPBall narrows λ* further.
func EqQPBalls(parties []QPData, balls []BallData, d int) (w, lambda, nu []float64, fstar float64, err error) {
	h, b, c, dv := sumParties(parties, d)
	K := len(balls)
	gtg := make([][][]float64, K)
	gth := make([][]float64, K)
	for k, bl := range balls {
		gtg[k], gth[k] = make([][]float64, d), make([]float64, d)
		for i := range gtg[k] {
			gtg[k][i] = make([]float64, d)
		}
		for r, row := range bl.G {
			for i, gi := range row {
				gth[k][i] += gi * bl.H[r]
				for j, gj := range row {
					gtg[k][i][j] += gi * gj
				}
			}
		}
	}
	type point struct {
		w, s, nu []float64
		gr       [][]float64 // G_kᵀr_k
		g        float64     // the dual function
		sys      *eqSystem
	}
	at := func(lam []float64) (*point, error) {
		a := make([][]float64, d)
		lin := append([]float64(nil), b...)
		for i := range a {
			a[i] = append([]float64(nil), h[i]...)
		}
		for k, l := range lam {
			if l == 0 {
				continue
			}
			for i := range a {
				for j := range a[i] {
					a[i][j] += l * gtg[k][i][j]
				}
				lin[i] -= l * gth[k][i]
			}
		}
		sys, err := newEqSystem(a, c, dv)
		if err != nil {
			return nil, err
		}
		pt := &point{s: make([]float64, K), gr: make([][]float64, K), sys: sys}
		pt.w, pt.nu = sys.solve(lin, true)
		for _, p := range parties {
			pt.g += QP(p.A, p.B, p.C, p.D, pt.w).F
		}
		for k, bl := range balls {
			pt.gr[k] = make([]float64, d)
			var rr float64
			for r, row := range bl.G {
				e := -bl.H[r]
				for j, g := range row {
					e += g * pt.w[j]
				}
				rr += e * e
				for j, g := range row {
					pt.gr[k][j] += g * e
				}
			}
			pt.s[k] = (rr - bl.T*bl.T) / 2
			pt.g += lam[k] * pt.s[k]
		}
		return pt, nil
	}
	lambda = make([]float64, K)
	cur, err := at(lambda)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	for it := 0; it < 200; it++ {
		var free []int
		for k := range balls {
			if lambda[k] > 0 || cur.s[k] > 0 {
				free = append(free, k)
			}
		}
		if len(free) == 0 {
			break
		}
		// -Q_FF, positive semidefinite; a tiny ridge where it is singular.
		dw := make([][]float64, len(free))
		for a, l := range free {
			dw[a], _ = cur.sys.solve(cur.gr[l], false)
		}
		nq := make([][]float64, len(free))
		var diag float64
		for a, k := range free {
			nq[a] = make([]float64, len(free))
			for bb := range free {
				nq[a][bb] = -dot(cur.gr[k], dw[bb])
			}
			diag = math.Max(diag, math.Abs(nq[a][a]))
		}
		rhs := make([]float64, len(free))
		for a, k := range free {
			rhs[a] = cur.s[k]
		}
		var step []float64
		for _, ridge := range []float64{0, 1e-14, 1e-10, 1e-6} {
			m := make([][]float64, len(free))
			for a := range m {
				m[a] = append([]float64(nil), nq[a]...)
				m[a][a] += ridge * diag
			}
			if l, err := cholesky(m); err == nil {
				step = cholSolve(l, rhs)
				break
			}
		}
		if step == nil {
			return nil, nil, nil, 0, fmt.Errorf("recheck: the balls' dual Hessian is singular")
		}
		var big float64
		for a, k := range free {
			big = math.Max(big, math.Abs(step[a])/(1+lambda[k]))
		}
		if big <= 4*unitRoundoff {
			break
		}
		improved := false
		for alpha := 1.0; alpha > 1e-12; alpha /= 2 {
			trial := append([]float64(nil), lambda...)
			changed := false
			for a, k := range free {
				v := math.Max(0, lambda[k]+alpha*step[a])
				changed = changed || v != lambda[k]
				trial[k] = v
			}
			if !changed {
				break
			}
			nxt, err := at(trial)
			if err != nil {
				return nil, nil, nil, 0, err
			}
			// Near λ* (a Newton step below 1e-6 of λ) g is flat to
			// rounding: a step that halves the dual gradient is taken
			// whatever the rounding of g says.
			if nxt.g > cur.g || (big <= 1e-6 && dualResidual(nxt.s, trial) <= dualResidual(cur.s, lambda)/2) {
				lambda, cur, improved = trial, nxt, true
				break
			}
		}
		if !improved {
			break // g is flat to rounding: λ* to the last bits
		}
	}
	for _, p := range parties {
		fstar += QP(p.A, p.B, p.C, p.D, cur.w).F
	}
	return cur.w, lambda, cur.nu, fstar, nil
}

// dualResidual is max_k |s_k| over the multipliers that may move: the
// projected gradient of the dual at λ.
func dualResidual(s, lambda []float64) float64 {
	var r float64
	for k, v := range s {
		if lambda[k] > 0 || v > 0 {
			r = math.Max(r, math.Abs(v))
		}
	}
	return r
}
