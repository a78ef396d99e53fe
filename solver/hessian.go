package solver

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// HessianParty is a Party that also gives second derivatives, so that
// Newton's method can solve its subproblems.
type HessianParty interface {
	Party
	// Hessian adds ∇²f(w) + Σ_j y_j ∇²c_j(w) to dst (only the upper
	// triangle is read and written). It must be safe for concurrent calls.
	Hessian(dst *mat.SymDense, w, y []float64)
}

// HessFunc is a SmoothFunc with a Hessian; Newton uses it.
type HessFunc interface {
	SmoothFunc
	// Hessian writes ∇²φ(x) into dst and reports whether it is available.
	Hessian(dst *mat.SymDense, x []float64) bool
}

// hasHessian reports whether every merit's party gives second derivatives
// and its cone's projection has a known derivative.
func hasHessian(ms []*merit) bool {
	for _, m := range ms {
		if m.party == nil {
			continue
		}
		if _, ok := m.party.(HessianParty); !ok {
			return false
		}
		switch k := m.cone.(type) {
		case nil, NonNeg, Zero:
		case Product:
			if !k.differentiable() {
				return false
			}
		case DualJacobianCone:
		default:
			return false
		}
	}
	return true
}

// hessian adds ∇²P(w) to dst: for P = f + (1/2β)||Proj_{K*}(μ+βc)||² + prox/2||w - c||²,
//
//	∇²P = ∇²f + Σ_j y_j∇²c_j + β Jᵀ D J + prox·I,
//
// with y = Proj_{K*}(μ+βc) and D the derivative of the projection: for the
// orthant diag(1{(μ+βc)_j > 0}) (a generalised Hessian at the kink), for the
// zero cone I, for other cones their DualJacobian (e.g. the second-order
// cone's, a semismooth Newton step). It evaluates the party at w.
func (p *merit) hessian(dst *mat.SymDense, w []float64) error {
	if p.prox != 0 {
		for j := 0; j < p.d; j++ {
			dst.SetSym(j, j, dst.At(j, j)+p.prox)
		}
	}
	if p.party == nil {
		return nil
	}
	if err := p.eval(w, true); err != nil {
		return err
	}
	p.alTerm()
	p.hevals++
	p.party.(HessianParty).Hessian(dst, w, p.y)
	raw := dst.RawSymmetric()
	switch p.cone.(type) {
	case nil, NonNeg, Zero: // nil: no constraint, no term
	default:
		p.addJacobianTerm(raw)
		return nil
	}
	for j := 0; j < p.m; j++ {
		active := true
		if _, ok := p.cone.(NonNeg); ok {
			active = p.active(j)
		}
		if active {
			row := blas64.Vector{N: p.d, Inc: 1, Data: p.jac[j*p.d : (j+1)*p.d]}
			blas64.Syr(p.beta, row, raw)
		}
	}
	return nil
}

// Hessian implements HessFunc.
func (s *subproblem) Hessian(dst *mat.SymDense, x []float64) bool {
	if !hasHessian(s.merits) {
		return false
	}
	raw := dst.RawSymmetric()
	for i := 0; i < raw.N; i++ {
		row := raw.Data[i*raw.Stride+i : i*raw.Stride+raw.N]
		clear(row)
		if s.metric != nil {
			copy(row, s.metric[i*raw.N+i:(i+1)*raw.N])
			continue
		}
		row[0] = s.sigma
	}
	for _, m := range s.merits {
		if err := m.hessian(dst, x); err != nil {
			if s.err == nil {
				s.err = err
			}
			return false
		}
	}
	return true
}

// addJacobianTerm adds β Jᵀ D J to the upper triangle of dst, with D the
// dual cone's Jacobian at μ + βc (from the last evaluation).
func (p *merit) addJacobianTerm(dst blas64.Symmetric) {
	m, d := p.m, p.d
	if len(p.hscr) < m*m+m+m*d {
		p.hscr = make([]float64, m*m+m+m*d)
	}
	dm, v, dj := p.hscr[:m*m], p.hscr[m*m:m*m+m], p.hscr[m*m+m:m*m+m+m*d]
	for j := range v {
		v[j] = p.mu[j] + p.beta*p.c[j]
	}
	p.cone.(DualJacobianCone).DualJacobian(dm, v)
	jac := blas64.General{Rows: m, Cols: d, Stride: d, Data: p.jac}
	// DJ (m×d), then dst += β Jᵀ(DJ): D is symmetric, so the product is too.
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, blas64.General{Rows: m, Cols: m, Stride: m, Data: dm}, jac,
		0, blas64.General{Rows: m, Cols: d, Stride: d, Data: dj})
	for a := 0; a < d; a++ {
		row := dst.Data[a*dst.Stride : a*dst.Stride+d]
		for j := 0; j < m; j++ {
			ja := p.beta * p.jac[j*d+a]
			if ja == 0 {
				continue
			}
			djr := dj[j*d : (j+1)*d]
			for b := a; b < d; b++ {
				row[b] += ja * djr[b]
			}
		}
	}
}
