package qp

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// eqKKT solves the equality-constrained QP min ½xᵀPx + qᵀx s.t. Ax = b
// through its KKT system [P Aᵀ; A 0][x; y] = [−q; b] with gonum's dense LU:
// an oracle independent of the solver.
func eqKKT(t *testing.T, P *mat.Dense, q []float64, A *mat.Dense, b []float64) (x, y []float64) {
	t.Helper()
	n, m := len(q), len(b)
	K := mat.NewDense(n+m, n+m, nil)
	K.Slice(0, n, 0, n).(*mat.Dense).Copy(P)
	K.Slice(0, n, n, n+m).(*mat.Dense).Copy(A.T())
	K.Slice(n, n+m, 0, n).(*mat.Dense).Copy(A)
	rhs := mat.NewVecDense(n+m, nil)
	for j := range q {
		rhs.SetVec(j, -q[j])
	}
	for i := range b {
		rhs.SetVec(n+i, b[i])
	}
	var sol mat.VecDense
	if err := sol.SolveVec(K, rhs); err != nil {
		t.Fatalf("KKT oracle: %v", err)
	}
	raw := sol.RawVector().Data
	return raw[:n], raw[n:]
}

// TestKnownAnswers solves problems whose optimum is derived by hand or
// from their KKT system, on both linear-algebra paths.
func TestKnownAnswers(t *testing.T) {
	inf := math.Inf(1)
	// Equality-constrained QP with a non-diagonal P: oracle from its KKT
	// system (it has no inequality, so the KKT system is the whole story).
	eqP := mat.NewDense(3, 3, []float64{4, 1, 0, 1, 3, 1, 0, 1, 2})
	eqA := mat.NewDense(2, 3, []float64{1, 1, 1, 1, -1, 2})
	eqq, eqb := []float64{1, -2, 3}, []float64{1, 0.5}
	eqX, eqY := eqKKT(t, eqP, eqq, eqA, eqb)

	// Box-constrained QP with P = diag(d): xⱼ = clamp(−qⱼ/dⱼ, lⱼ, uⱼ) and
	// yⱼ = −(dⱼxⱼ + qⱼ) (stationarity), by hand.
	bd := []float64{1, 2, 4, 0.5}
	bq := []float64{-3, 1, -2, 0.25}
	bl := []float64{0, 0, -1, -1}
	bu := []float64{1, 10, 1, 1}
	bX := make([]float64, 4)
	bY := make([]float64, 4)
	for j := range bX {
		bX[j] = math.Min(math.Max(-bq[j]/bd[j], bl[j]), bu[j])
		bY[j] = -(bd[j]*bX[j] + bq[j])
	}

	tests := []struct {
		name string
		prob *Problem
		x, y []float64
		f    float64
	}{
		{
			// x = (2, 3) unconstrained; x₁ ≤ 1 binds: x = (1, 3),
			// y₁ = −(1·1 − 2) = 1, f = ½(1 + 18) − 2 − 18 = −10.5.
			name: "box 2-var",
			prob: &Problem{P: mat.NewDense(2, 2, []float64{1, 0, 0, 2}), Q: []float64{-2, -6},
				A: mat.NewDense(2, 2, []float64{1, 0, 0, 1}), L: []float64{0, 0}, U: []float64{1, 10}},
			x: []float64{1, 3}, y: []float64{1, 0}, f: -10.5,
		},
		{
			name: "box diag",
			prob: &Problem{P: mat.NewDiagDense(4, bd), Q: bq, A: eye(4), L: bl, U: bu},
			x:    bX, y: bY, f: math.NaN(),
		},
		{
			// min ½‖x‖² s.t. x₁+x₂+x₃ = 3: x = (1, 1, 1), y = −1, f = 1.5.
			name: "sum equality",
			prob: &Problem{P: eye(3), Q: make([]float64, 3), A: mat.NewDense(1, 3, []float64{1, 1, 1}), L: []float64{3}, U: []float64{3}},
			x:    []float64{1, 1, 1}, y: []float64{-1}, f: 1.5,
		},
		{
			name: "equality KKT",
			prob: &Problem{P: eqP, Q: eqq, A: eqA, L: eqb, U: eqb},
			x:    eqX, y: eqY, f: math.NaN(),
		},
		{
			// LP: min −x₁ − x₂ s.t. x₁+2x₂ ≤ 4, 3x₁+x₂ ≤ 6, x ≥ 0. Vertex of
			// the two rows: x = (8/5, 6/5), f = −14/5; y solves
			// y₁ + 3y₂ = 1, 2y₁ + y₂ = 1: y = (2/5, 1/5).
			name: "LP vertex",
			prob: &Problem{Q: []float64{-1, -1},
				A: mat.NewDense(4, 2, []float64{1, 2, 3, 1, 1, 0, 0, 1}),
				L: []float64{-inf, -inf, 0, 0}, U: []float64{4, 6, inf, inf}},
			x: []float64{1.6, 1.2}, y: []float64{0.4, 0.2, 0, 0}, f: -2.8,
		},
		{
			// Unconstrained: x = −P⁻¹q = (−1, 1) for P = [2 1; 1 2],
			// q = (1, −1): 2x₁ + x₂ = −1, x₁ + 2x₂ = 1.
			name: "unconstrained",
			prob: &Problem{P: mat.NewSymDense(2, []float64{2, 1, 1, 2}), Q: []float64{1, -1}},
			x:    []float64{-1, 1}, y: []float64{}, f: -1,
		},
		{
			// A free row (both bounds infinite) and a one-sided row:
			// min ½(x₁² + x₂²) − x₁ − x₂ s.t. x₁ + x₂ ≤ 1, −∞ ≤ x₁ − x₂ ≤ ∞.
			// Symmetry gives x = (½, ½), y₁ = 1 − ½ = ½, y₂ = 0, f = −3/4.
			name: "free and one-sided rows",
			prob: &Problem{P: eye(2), Q: []float64{-1, -1}, A: mat.NewDense(2, 2, []float64{1, 1, 1, -1}),
				L: []float64{-inf, -inf}, U: []float64{1, inf}},
			x: []float64{0.5, 0.5}, y: []float64{0.5, 0}, f: -0.75,
		},
	}
	for _, tc := range tests {
		for _, ls := range bothPaths {
			t.Run(tc.name+"/"+ls.String(), func(t *testing.T) {
				res, err := Solve(context.Background(), tc.prob, settingsFor(ls), nil)
				if err != nil {
					t.Fatal(err)
				}
				if res.Status != Solved {
					t.Fatalf("status %v", res.Status)
				}
				if res.Stats.LinearSolver != ls {
					t.Errorf("path %v, want %v", res.Stats.LinearSolver, ls)
				}
				checkInvariants(t, tc.prob, res)
				// The tolerances are EpsAbs = EpsRel = 1e-7 on residuals of
				// O(1) data with well-conditioned P (eigenvalues ≥ 0.5) or a
				// nondegenerate LP vertex, so x and y are accurate to a small
				// multiple of 1e-7; 1e-6 leaves room for that multiple.
				const tol = 1e-6
				if d := maxDiff(res.X, tc.x); d > tol {
					t.Errorf("x = %v, want %v (diff %g)", res.X, tc.x, d)
				}
				if d := maxDiff(res.Y, tc.y); d > tol {
					t.Errorf("y = %v, want %v (diff %g)", res.Y, tc.y, d)
				}
				if !math.IsNaN(tc.f) && math.Abs(res.Objective-tc.f) > tol {
					t.Errorf("objective %v, want %v", res.Objective, tc.f)
				}
			})
		}
	}
}

func eye(n int) *mat.Dense {
	d := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		d.Set(i, i, 1)
	}
	return d
}

// TestSparseInput checks that CSC and dense inputs give the same answer,
// including a CSC P given in full (both triangles) rather than upper only.
func TestSparseInput(t *testing.T) {
	Pd := mat.NewDense(3, 3, []float64{4, 1, 0, 1, 3, 1, 0, 1, 2})
	Ad := mat.NewDense(2, 3, []float64{1, 1, 1, 1, 0, -1})
	q := []float64{1, -1, 2}
	l, u := []float64{-1, -0.5}, []float64{1, 0.5}
	up, _ := NewCSC(3, 3, []int{0, 0, 1, 1, 2}, []int{0, 1, 1, 2, 2}, []float64{4, 1, 3, 1, 2})
	full, _ := NewCSC(3, 3, []int{0, 1, 0, 1, 2, 1, 2}, []int{0, 0, 1, 1, 1, 2, 2}, []float64{4, 1, 1, 3, 1, 1, 2})
	As, _ := NewCSC(2, 3, []int{0, 1, 0, 0, 1}, []int{0, 0, 1, 2, 2}, []float64{1, 1, 1, 1, -1})
	ref, err := Solve(context.Background(), &Problem{P: Pd, Q: q, A: Ad, L: l, U: u}, nil, nil)
	if err != nil || ref.Status != Solved {
		t.Fatal(err, ref.Status)
	}
	for name, p := range map[string]*Problem{
		"upper CSC": {P: up, Q: q, A: As, L: l, U: u},
		"full CSC":  {P: full, Q: q, A: As, L: l, U: u},
	} {
		res, err := Solve(context.Background(), p, nil, nil)
		if err != nil || res.Status != Solved {
			t.Fatal(name, err, res.Status)
		}
		// Same data, same path, same arithmetic up to summation order in
		// the conversion: 1e-12.
		if d := maxDiff(res.X, ref.X); d > 1e-12 {
			t.Errorf("%s: x differs by %g", name, d)
		}
	}
}
