package qp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// dense returns the m×n matrix a as a *mat.Dense (nil for nil).
func dense(a mat.Matrix) *mat.Dense {
	if a == nil {
		return nil
	}
	return mat.DenseCopyOf(a)
}

// fullP returns the symmetric n×n matrix of the problem's P, completing an
// upper-triangular *CSC; nil P gives zero.
func fullP(p *Problem) *mat.Dense {
	n := len(p.Q)
	P := mat.NewDense(n, n, nil)
	if p.P == nil {
		return P
	}
	if c, ok := p.P.(*CSC); ok {
		for j := 0; j < c.N; j++ {
			for k := c.P[j]; k < c.P[j+1]; k++ {
				P.Set(c.I[k], j, c.X[k])
				P.Set(j, c.I[k], c.X[k])
			}
		}
		return P
	}
	P.Copy(p.P)
	return P
}

// kktErrors recomputes, independently of the solver and from the unscaled
// data, the violations of the KKT conditions at (x, y): primal
// infeasibility max(l − Ax, Ax − u, 0), stationarity ‖Px + q + Aᵀy‖∞ and
// complementarity max over rows of min(|yᵢ|, distance of (Ax)ᵢ to the bound
// that the sign of yᵢ selects).
func kktErrors(p *Problem, x, y []float64) (prim, stat, comp float64) {
	n := len(p.Q)
	P := fullP(p)
	g := mat.NewVecDense(n, append([]float64(nil), p.Q...))
	g.AddVec(g, mat.NewVecDense(n, nil))
	var px mat.VecDense
	px.MulVec(P, mat.NewVecDense(n, x))
	g.AddVec(g, &px)
	if p.A != nil && len(p.L) > 0 {
		A := dense(p.A)
		var ax, aty mat.VecDense
		ax.MulVec(A, mat.NewVecDense(n, x))
		aty.MulVec(A.T(), mat.NewVecDense(len(y), y))
		g.AddVec(g, &aty)
		for i := range p.L {
			v := ax.AtVec(i)
			prim = math.Max(prim, math.Max(p.L[i]-v, v-p.U[i]))
			switch {
			case y[i] > 0:
				comp = math.Max(comp, math.Min(y[i], math.Abs(p.U[i]-v)))
			case y[i] < 0:
				comp = math.Max(comp, math.Min(-y[i], math.Abs(v-p.L[i])))
			}
		}
	}
	stat = mat.Norm(g, math.Inf(1))
	return prim, stat, comp
}

// objective returns ½xᵀPx + qᵀx computed with gonum.
func objective(p *Problem, x []float64) float64 {
	n := len(p.Q)
	xv := mat.NewVecDense(n, x)
	var px mat.VecDense
	px.MulVec(fullP(p), xv)
	return 0.5*mat.Dot(xv, &px) + mat.Dot(mat.NewVecDense(n, p.Q), xv)
}

// maxDiff returns max |a[i] − b[i]|, counting equal values (also equal
// infinities) as 0 and any NaN as +Inf.
func maxDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var d float64
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		v := math.Abs(a[i] - b[i])
		if math.IsNaN(v) {
			return math.Inf(1)
		}
		d = math.Max(d, v)
	}
	return d
}

func settingsFor(ls LinearSolver) *Settings {
	s := DefaultSettings()
	s.LinearSolver = ls
	return s
}

var bothPaths = []LinearSolver{LinearSolverDense, LinearSolverSparse}

// checkInvariants verifies the properties every Result must have, whatever
// the problem: HasSolution ⇔ finite X and Y, Objective recomputed, and the
// reported residuals equal an independent recomputation.
func checkInvariants(t *testing.T, p *Problem, res *Result) {
	t.Helper()
	if !res.Status.HasSolution() {
		for _, v := range append(append([]float64(nil), res.X...), res.Y...) {
			if !math.IsNaN(v) {
				t.Fatalf("status %v: solution vectors must be NaN, found %v", res.Status, v)
			}
		}
		if !math.IsNaN(res.Objective) {
			t.Fatalf("status %v: objective %v, want NaN", res.Status, res.Objective)
		}
		return
	}
	// The objective is evaluated on the scaled data by the solver and on the
	// original data here: agreement to 1e-9 relative allows for the
	// rounding of ~n products of O(1) scaled quantities.
	f := objective(p, res.X)
	if math.Abs(f-res.Objective) > 1e-9*math.Max(1, math.Abs(f)) {
		t.Errorf("objective %v, recomputed %v", res.Objective, f)
	}
	prim, stat, _ := kktErrors(p, res.X, res.Y)
	// The reported primal residual is ‖Ax − z‖∞ for some z ∈ [l, u], so it
	// bounds the bound violation computed here; the dual residual uses the
	// returned Y and must match. Both are computed in the scaled space and
	// unscaled, which agrees with the direct computation up to rounding:
	// 1e-9 absolute for the O(1) data of these tests.
	if prim > res.Stats.PrimalResidual+1e-9 {
		t.Errorf("bound violation %v exceeds reported primal residual %v", prim, res.Stats.PrimalResidual)
	}
	if math.Abs(stat-res.Stats.DualResidual) > 1e-9 {
		t.Errorf("dual residual %v, recomputed %v", res.Stats.DualResidual, stat)
	}
}
