package problems

import (
	"gonum.org/v1/gonum/mat"

	"github.com/fedcon/fedcon/solver"
)

// NPClient is client i of the Neyman-Pearson problem, eq. (30):
//
//	f_i(w) = (1/n)·(1/m_i0) Σ_{class 0} φ(w; x, 0),
//	c_i(w) = (1/m_i1) Σ_{class 1} φ(w; x, 1) - r_i <= 0,
//
// with φ the logistic loss of eq. (31).
type NPClient struct {
	Class0, Class1 Rows
	// Scale is the 1/n in front of f_i.
	Scale float64
	// R is the threshold r_i.
	R float64
}

var _ solver.HessianParty = (*NPClient)(nil)

// Rows implements solver.Sized: the client's rows of both classes.
func (p *NPClient) Rows() int { return p.Class0.N + p.Class1.N }

// Cone implements solver.Party: one inequality.
func (p *NPClient) Cone() solver.Cone { return solver.NonNeg(1) }

// Eval implements solver.Party in one pass over each class's rows.
func (p *NPClient) Eval(w, grad, c, jac []float64) float64 {
	if grad != nil {
		clear(grad)
	}
	if jac != nil {
		clear(jac)
	}
	f := p.Scale * p.Class0.meanLogistic(w, 0, p.Scale, grad)
	c[0] = p.Class1.meanLogistic(w, 1, 1, jac) - p.R
	return f
}

// Hessian implements solver.HessianParty: ∇²f + y·∇²c.
func (p *NPClient) Hessian(dst *mat.SymDense, w, y []float64) {
	p.Class0.addLogisticHessian(dst, w, p.Scale)
	p.Class1.addLogisticHessian(dst, w, y[0])
}

// Loss0 and Loss1 are the client's mean class-0 and class-1 logistic losses
// at w: the per-client objective and feasibility columns of Table 1.
func (p *NPClient) Loss0(w []float64) float64 { return p.Class0.meanLogistic(w, 0, 0, nil) }

// Loss1 is the mean class-1 loss (the constraint is Loss1 <= R).
func (p *NPClient) Loss1(w []float64) float64 { return p.Class1.meanLogistic(w, 1, 0, nil) }
