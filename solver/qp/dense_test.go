package qp

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestDensePolishPinned exercises the reduced polishing system of the dense
// path: active single-entry rows pin their variables, including duplicated
// bounds on one variable (only one may pin it), a single-entry equality and
// rows whose only entry is too small to pin. Without scaling the small entry
// stays small. The polished x must agree with the sparse path's (y is not
// unique with duplicated rows; the KKT test checks it).
func TestDensePolishPinned(t *testing.T) {
	base := denseQP(7, 30, 8)
	A0 := base.A.(*mat.Dense)
	m0, n := A0.Dims()
	extra := 14
	A := mat.NewDense(m0+extra, n, nil)
	A.Slice(0, m0, 0, n).(*mat.Dense).Copy(A0)
	l := append(append([]float64(nil), base.L...), make([]float64, extra)...)
	u := append(append([]float64(nil), base.U...), make([]float64, extra)...)
	for k := 0; k < 10; k++ { // duplicates of box rows (rows 8..37 are x ∈ [−1, 1])
		A.Set(m0+k, k, 2)
		l[m0+k], u[m0+k] = -2, 2
	}
	A.Set(m0+10, 10, 1) // a single-entry equality
	l[m0+10], u[m0+10] = 0.3, 0.3
	A.Set(m0+11, 11, 1e-2) // a single entry too small to pin without scaling
	l[m0+11], u[m0+11] = -1e-3, 1e-3
	A.Set(m0+12, 12, -3)
	l[m0+12], u[m0+12] = -0.5, math.Inf(1)
	A.Set(m0+13, 13, 1)
	l[m0+13], u[m0+13] = math.Inf(-1), math.Inf(1)
	p := &Problem{P: base.P, Q: base.Q, A: A, L: l, U: u}
	for _, iters := range []int{DefaultScalingIterations, 0} {
		var res [2]*Result
		for k, ls := range bothPaths {
			set := settingsFor(ls)
			set.ScalingIterations = iters
			r, err := Solve(context.Background(), p, set, nil)
			if err != nil || r.Status != Solved || !r.Stats.Polished {
				t.Fatalf("scaling %d, %v: %v %v polished %v", iters, ls, err, r.Status, r.Stats.Polished)
			}
			checkInvariants(t, p, r)
			prim, stat, comp := kktErrors(p, r.X, r.Y)
			if prim > 1e-9 || stat > 1e-8 || comp > 1e-9 {
				t.Errorf("scaling %d, %v: KKT errors %g %g %g", iters, ls, prim, stat, comp)
			}
			res[k] = r
		}
		if d := maxDiff(res[0].X, res[1].X); d > 1e-9 {
			t.Errorf("scaling %d: x differs by %g", iters, d)
		}
	}
}
