package solver

import (
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// corrector is a HessFunc with AL walls (1/2β)||Proj_{K*}(μ + βc)||² whose
// constraints Newton may pull back onto their linearisation: the
// second-order correction of SQP (Nocedal & Wright, §18.3). A Newton step
// along a curved wall (c convex, the objective nearly flat along it) moves
// on the wall's tangent; c grows by ½pᵀ∇²c p, β times that squared rises
// above the predicted decrease, and the halvings crawl along the wall with
// steps ~ the wall's curvature radius: a local solve then meets its
// iteration cap. The correction s, the least-norm step with
// J_A s = −(c_A(x+p) − c_A(x) − J_A p) over the rows A active at x,
// removes that second-order growth so the step keeps its length.
type corrector interface {
	// anchor records c and J at the iterate x from the evaluation that
	// holds it (the last or the one before) and reports whether any row
	// is active there.
	anchor(x []float64) bool
	// correct adds s to xn (the last evaluation's point), reporting false
	// when there is no step to take or when taking it would lower φ by
	// less than need (to first order in s, the walls' terms alone).
	correct(x, xn []float64, need float64) bool
	// onWall reports whether an orthant row is active at x (from the
	// evaluation that holds it).
	onWall(x []float64) bool
}

var _ corrector = (*subproblem)(nil)

// corrState is a subproblem's anchor: the active rows' c and J at x.
type corrState struct {
	rows int       // active rows recorded
	c    []float64 // c_A(x)
	jac  []float64 // J_A(x), rows×d row-major
	who  []int     // merit index and row of each active row: 2 per row
	gram []float64 // J_A J_Aᵀ
	scr  []float64 // r and xn − x
}

// anchor implements corrector.
func (s *subproblem) anchor(x []float64) bool {
	cs := &s.corr
	cs.rows = 0
	cs.c, cs.jac, cs.who = cs.c[:0], cs.jac[:0], cs.who[:0]
	d := len(x)
	for mi, m := range s.merits {
		if m.m == 0 {
			continue
		}
		slot := m.slotAt(x)
		if slot == nil {
			return false
		}
		for j := 0; j < m.m; j++ {
			switch m.cone.(type) {
			case NonNeg:
				if m.mu[j]+m.beta*slot.c[j] <= 0 {
					continue
				}
			case Zero:
			default:
				continue // a cone without rows to pull back: no correction
			}
			cs.c = append(cs.c, slot.c[j])
			cs.jac = append(cs.jac, slot.jac[j*d:(j+1)*d]...)
			cs.who = append(cs.who, mi, j)
			cs.rows++
		}
	}
	// More rows than unknowns: J_A s = r has no least-norm solution to
	// speak of (the server's subproblem with every client's row).
	return cs.rows > 0 && cs.rows <= d
}

// correct implements corrector. It reads c(xn) from the merits' last
// evaluation, which must be at xn.
func (s *subproblem) correct(x, xn []float64, need float64) bool {
	cs := &s.corr
	k, d := cs.rows, len(x)
	if k == 0 {
		return false
	}
	// r = c_A(xn) − c_A(x) − J_A (xn − x).
	if cap(cs.scr) < k+d {
		cs.scr = make([]float64, k+d)
	}
	r, dx := cs.scr[:k], cs.scr[k:k+d]
	var gain float64
	floats.SubTo(dx, xn, x)
	for a := 0; a < k; a++ {
		m := s.merits[cs.who[2*a]]
		if !m.ok || !equal(xn, m.w) {
			return false
		}
		j := cs.who[2*a+1]
		r[a] = m.c[j] - cs.c[a] - floats.Dot(cs.jac[a*d:(a+1)*d], dx)
		// Row j's AL term (1/2β)y_j², y_j = μ_j + βc_j (its positive
		// part on the orthant), falls by about y_j r_j − βr_j²/2 when c_j
		// drops by r_j.
		y := m.mu[j] + m.beta*m.c[j]
		if _, ok := m.cone.(NonNeg); ok {
			y = max(0, y)
		}
		gain += y*r[a] - m.beta*r[a]*r[a]/2
	}
	if gain <= need {
		return false // the walls are not why the step failed
	}
	// Least norm: s = −J_Aᵀ (J_A J_Aᵀ)⁻¹ r.
	ja := blas64.General{Rows: k, Cols: d, Stride: d, Data: cs.jac}
	if cap(cs.gram) < k*k {
		cs.gram = make([]float64, k*k)
	}
	g := mat.NewSymDense(k, cs.gram[:k*k])
	g.SymOuterK(1, mat.NewDense(k, d, ja.Data))
	var ch mat.Cholesky
	if !ch.Factorize(g) {
		return false
	}
	v := mat.NewVecDense(k, nil)
	if err := ch.SolveVecTo(v, mat.NewVecDense(k, r)); err != nil {
		return false
	}
	blas64.Gemv(blasTrans, -1, ja, blas64.Vector{N: k, Inc: 1, Data: v.RawVector().Data},
		1, blas64.Vector{N: d, Inc: 1, Data: xn})
	return true
}

// onWall implements corrector.
func (s *subproblem) onWall(x []float64) bool {
	for _, m := range s.merits {
		if _, ok := m.cone.(NonNeg); !ok {
			continue
		}
		slot := m.slotAt(x)
		if slot == nil {
			continue
		}
		for j := 0; j < m.m; j++ {
			if m.mu[j]+m.beta*slot.c[j] > 0 {
				return true
			}
		}
	}
	return false
}

// slotAt returns the evaluation (with gradient) at x, the last or the one
// before, or nil.
func (p *merit) slotAt(x []float64) *evalSlot {
	switch {
	case p.ok && p.withGrad && equal(x, p.w):
		return &p.evalSlot
	case p.prev.ok && p.prev.withGrad && equal(x, p.prev.w):
		return &p.prev
	}
	return nil
}
