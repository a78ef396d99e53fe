package problems

import (
	"gonum.org/v1/gonum/mat"

	"github.com/fedcon/fedcon/solver"
)

// Labeled is a block of rows with 0/1 labels, stored as two blocks so that
// each row's loss is softplus(±z).
type Labeled struct {
	Neg, Pos Rows // label 0, label 1
}

// NewLabeled copies rows idx of x with labels y into a Labeled block.
func NewLabeled(x *mat.Dense, y []float64, idx []int) Labeled {
	var neg, pos []int
	for _, i := range idx {
		if y[i] == 1 {
			pos = append(pos, i)
		} else {
			neg = append(neg, i)
		}
	}
	return Labeled{Neg: NewRows(x, neg), Pos: NewRows(x, pos)}
}

// N is the number of rows.
func (l Labeled) N() int { return l.Neg.N + l.Pos.N }

// meanLoss returns the mean logistic loss (eq. (31)) over all rows and adds
// scale·∇ of it to grad (if non-nil), in one pass.
func (l Labeled) meanLoss(w []float64, scale float64, grad []float64) float64 {
	n := float64(l.N())
	if n == 0 {
		return 0
	}
	a0, a1 := float64(l.Neg.N)/n, float64(l.Pos.N)/n
	return a0*l.Neg.meanLogistic(w, 0, scale*a0, grad) + a1*l.Pos.meanLogistic(w, 1, scale*a1, grad)
}

// addHessian adds scale·∇²(mean loss) to dst.
func (l Labeled) addHessian(dst *mat.SymDense, w []float64, scale float64) {
	n := float64(l.N())
	if n == 0 || scale == 0 {
		return
	}
	l.Neg.addLogisticHessian(dst, w, scale*float64(l.Neg.N)/n)
	l.Pos.addLogisticHessian(dst, w, scale*float64(l.Pos.N)/n)
}

// FairParty is party i of the fairness problem, eq. (32): its rows split by
// the sensitive group, L_g the mean logistic loss over group g's rows (both
// labels), and
//
//	f_i(w) = Scale·(mean loss over all its rows)            (Scale = 1/n; 0 at the server),
//	c_i(w) = (L_0 - L_1 - r, -(L_0 - L_1) - r) <= 0          (-r <= L_0 - L_1 <= r).
//
// The constraints are differences of convex functions, hence nonconvex.
type FairParty struct {
	G0, G1 Labeled
	Scale  float64
	R      float64
}

var _ solver.HessianParty = (*FairParty)(nil)

// Rows implements solver.Sized: the party's rows of both groups.
func (p *FairParty) Rows() int { return p.G0.N() + p.G1.N() }

// Cone implements solver.Party: two inequalities.
func (p *FairParty) Cone() solver.Cone { return solver.NonNeg(2) }

// weights are the shares of the two groups in the party's rows.
func (p *FairParty) weights() (float64, float64) {
	n := float64(p.G0.N() + p.G1.N())
	return float64(p.G0.N()) / n, float64(p.G1.N()) / n
}

// Eval implements solver.Party with one pass over each group's rows.
func (p *FairParty) Eval(w, grad, c, jac []float64) float64 {
	d := len(w)
	var g0, g1 []float64
	if grad != nil || jac != nil {
		if jac != nil {
			g0, g1 = jac[:d], jac[d:2*d]
		} else {
			g0, g1 = make([]float64, d), make([]float64, d)
		}
		clear(g0)
		clear(g1)
	}
	l0 := p.G0.meanLoss(w, 1, g0)
	l1 := p.G1.meanLoss(w, 1, g1)
	a0, a1 := p.weights()
	if grad != nil {
		for j := range grad {
			grad[j] = p.Scale * (a0*g0[j] + a1*g1[j])
		}
	}
	if g0 != nil {
		for j := range g0 {
			g0[j] -= g1[j] // ∇(L_0 - L_1)
			g1[j] = -g0[j]
		}
	}
	c[0] = l0 - l1 - p.R
	c[1] = -(l0 - l1) - p.R
	return p.Scale * (a0*l0 + a1*l1)
}

// Hessian implements solver.HessianParty: ∇²f + y_0∇²c_0 + y_1∇²c_1 =
// (Scale·a_0 + y_0 - y_1)∇²L_0 + (Scale·a_1 - y_0 + y_1)∇²L_1.
func (p *FairParty) Hessian(dst *mat.SymDense, w, y []float64) {
	a0, a1 := p.weights()
	p.G0.addHessian(dst, w, p.Scale*a0+y[0]-y[1])
	p.G1.addHessian(dst, w, p.Scale*a1-y[0]+y[1])
}

// Loss is the party's mean logistic loss over all its rows.
func (p *FairParty) Loss(w []float64) float64 {
	a0, a1 := p.weights()
	return a0*p.G0.meanLoss(w, 0, nil) + a1*p.G1.meanLoss(w, 0, nil)
}

// Disparity is |L_0 - L_1|, Table 2's feasibility measure.
func (p *FairParty) Disparity(w []float64) float64 {
	d := p.G0.meanLoss(w, 0, nil) - p.G1.meanLoss(w, 0, nil)
	if d < 0 {
		return -d
	}
	return d
}
