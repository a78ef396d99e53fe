package recheck

import (
	"errors"
	"fmt"
	"math"
)

// QPData is one party of an equality-constrained QP by rows: f_i =
// ½wᵀAw + Bᵀw (A nil: zero quadratic; B nil: zero linear term) and the
// equalities Cw + D = 0 (C nil: none).
type QPData struct {
	A [][]float64
	B []float64
	C [][]float64
	D []float64
}

// EqQP returns the minimiser w*, its multipliers ν* (the parties'
// equalities stacked in party order, so that Hw* + b + Cᵀν* = 0) and f* of
// Σ_i f_i subject to every party's equalities, in dimension d. It uses the
// range-space method, not the KKT matrix the run factorises: Cholesky
// factors of H = Σ_i A_i and of the Schur complement S = C H⁻¹ Cᵀ, then
// ν* = S⁻¹(D − C H⁻¹ b) and w* = −H⁻¹(b + Cᵀν*), in plain loops. It fails
// when H or S is not positive definite (a singular H, dependent rows of C).
func EqQP(parties []QPData, d int) (w, nu []float64, fstar float64, err error) {
	h, b, c, dv := sumParties(parties, d)
	lh, err := cholesky(h)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("recheck: H = Σ A_i: %w", err)
	}
	// Columns of H⁻¹Cᵀ, one per equality, and H⁻¹b.
	hc := make([][]float64, len(c))
	for k, row := range c {
		hc[k] = cholSolve(lh, row)
	}
	hb := cholSolve(lh, b)
	s := make([][]float64, len(c))
	rhs := make([]float64, len(c))
	for k := range c {
		s[k] = make([]float64, len(c))
		for l := range c {
			s[k][l] = dot(c[k], hc[l])
		}
		rhs[k] = dv[k] - dot(c[k], hb)
	}
	ls, err := cholesky(s)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("recheck: Schur complement C H⁻¹ Cᵀ: %w", err)
	}
	nu = cholSolve(ls, rhs)
	w = make([]float64, d)
	for j := range w {
		w[j] = -hb[j]
		for k := range c {
			w[j] -= hc[k][j] * nu[k]
		}
	}
	for _, p := range parties {
		fstar += QP(p.A, p.B, p.C, p.D, w).F
	}
	return w, nu, fstar, nil
}

// sumParties returns H = Σ_i A_i, b = Σ_i B_i and the equalities C, D
// stacked in party order.
func sumParties(parties []QPData, d int) (h [][]float64, b []float64, c [][]float64, dv []float64) {
	h = make([][]float64, d)
	for i := range h {
		h[i] = make([]float64, d)
	}
	b = make([]float64, d)
	for _, p := range parties {
		for i, row := range p.A {
			for j, v := range row {
				h[i][j] += v
			}
		}
		for j, v := range p.B {
			b[j] += v
		}
		c = append(c, p.C...)
		dv = append(dv, p.D...)
	}
	return h, b, c, dv
}

var errNotPD = errors.New("not positive definite")

// cholesky returns the lower factor L of a = LLᵀ (a symmetric; its lower
// triangle is read).
func cholesky(a [][]float64) ([][]float64, error) {
	n := len(a)
	l := make([][]float64, n)
	for i := range l {
		l[i] = make([]float64, i+1)
		for j := 0; j <= i; j++ {
			s := a[i][j]
			for k := 0; k < j; k++ {
				s -= l[i][k] * l[j][k]
			}
			if i == j {
				if !(s > 0) || math.IsInf(s, 0) {
					return nil, fmt.Errorf("%w (pivot %d is %g)", errNotPD, i, s)
				}
				l[i][i] = math.Sqrt(s)
			} else {
				l[i][j] = s / l[j][j]
			}
		}
	}
	return l, nil
}

// cholSolve solves LLᵀx = b.
func cholSolve(l [][]float64, b []float64) []float64 {
	n := len(l)
	y := make([]float64, n)
	for i := range n {
		s := b[i]
		for k := 0; k < i; k++ {
			s -= l[i][k] * y[k]
		}
		y[i] = s / l[i][i]
	}
	for i := n - 1; i >= 0; i-- {
		s := y[i]
		for k := i + 1; k < n; k++ {
			s -= l[k][i] * y[k]
		}
		y[i] = s / l[i][i]
	}
	return y
}

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
