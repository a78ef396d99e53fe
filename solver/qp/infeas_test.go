package qp

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestPrimalInfeasible checks that infeasible constraints end with
// PrimalInfeasible and a certificate that satisfies OSQP eq. (26),
// recomputed here from the unscaled data.
func TestPrimalInfeasible(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name string
		prob *Problem
	}{
		{"box vs sum", &Problem{P: eye(2), Q: []float64{1, 1},
			A: mat.NewDense(3, 2, []float64{1, 1, 1, 0, 0, 1}),
			L: []float64{3, -inf, -inf}, U: []float64{inf, 1, 1}}},
		{"parallel equalities", &Problem{Q: []float64{1, 0},
			A: mat.NewDense(3, 2, []float64{1, 1, 1, 1, 1, -1}),
			L: []float64{1, 2, -10}, U: []float64{1, 2, 10}}},
	}
	for _, tc := range tests {
		for _, ls := range bothPaths {
			t.Run(tc.name+"/"+ls.String(), func(t *testing.T) {
				set := settingsFor(ls)
				res, err := Solve(context.Background(), tc.prob, set, nil)
				if err != nil {
					t.Fatal(err)
				}
				if res.Status != PrimalInfeasible {
					t.Fatalf("status %v, want PrimalInfeasible", res.Status)
				}
				checkInvariants(t, tc.prob, res)
				if res.Status.Err() != ErrPrimalInfeasible {
					t.Errorf("Err() = %v", res.Status.Err())
				}
				dy := res.PrimalCertificate
				if len(dy) != len(tc.prob.L) || res.DualCertificate != nil {
					t.Fatalf("certificate lengths %d, %d", len(dy), len(res.DualCertificate))
				}
				A := dense(tc.prob.A)
				var aty mat.VecDense
				aty.MulVec(A.T(), mat.NewVecDense(len(dy), dy))
				var sup, norm float64
				for i, v := range dy {
					norm = math.Max(norm, math.Abs(v))
					if v > 0 {
						sup += tc.prob.U[i] * v
					} else if v < 0 {
						sup += tc.prob.L[i] * v
					}
				}
				// The certificate is normalised to ‖δy‖∞ = 1 (rounding 1e-12)
				// and must satisfy eq. (26) with EpsPrimalInf, plus rounding
				// of the unscaling (1e-12).
				if math.Abs(norm-1) > 1e-12 {
					t.Errorf("‖δy‖∞ = %v, want 1", norm)
				}
				if r := mat.Norm(&aty, math.Inf(1)); r > set.EpsPrimalInf+1e-12 {
					t.Errorf("‖Aᵀδy‖∞ = %g > EpsPrimalInf", r)
				}
				if !(sup < -set.EpsPrimalInf) || math.IsNaN(sup) {
					t.Errorf("uᵀδy₊ + lᵀδy₋ = %v, want < −%g", sup, set.EpsPrimalInf)
				}
			})
		}
	}
}

// TestDualInfeasible checks that unbounded problems end with DualInfeasible
// and a certificate satisfying OSQP eq. (27), recomputed here.
func TestDualInfeasible(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name string
		prob *Problem
	}{
		// min −x₁ s.t. x ≥ 0: unbounded along (1, 0).
		{"LP ray", &Problem{Q: []float64{-1, 0}, A: eye(2), L: []float64{0, 0}, U: []float64{inf, inf}}},
		// min ½x₁² − x₂ s.t. x₂ ≥ −1, −1 ≤ x₁ ≤ 1: unbounded along (0, 1).
		{"QP flat direction", &Problem{P: mat.NewDiagDense(2, []float64{1, 0}), Q: []float64{0, -1},
			A: eye(2), L: []float64{-1, -1}, U: []float64{1, inf}}},
		// Unconstrained LP.
		{"no constraints", &Problem{Q: []float64{1, -2}}},
	}
	for _, tc := range tests {
		for _, ls := range bothPaths {
			t.Run(tc.name+"/"+ls.String(), func(t *testing.T) {
				set := settingsFor(ls)
				res, err := Solve(context.Background(), tc.prob, set, nil)
				if err != nil {
					t.Fatal(err)
				}
				if res.Status != DualInfeasible {
					t.Fatalf("status %v, want DualInfeasible", res.Status)
				}
				checkInvariants(t, tc.prob, res)
				dx := res.DualCertificate
				n := len(tc.prob.Q)
				if len(dx) != n || res.PrimalCertificate != nil {
					t.Fatalf("certificate lengths %d, %d", len(dx), len(res.PrimalCertificate))
				}
				var pd mat.VecDense
				pd.MulVec(fullP(tc.prob), mat.NewVecDense(n, dx))
				// Tolerances: eq. (27) with EpsDualInf, ‖δx‖∞ = 1, plus
				// rounding of the unscaling (1e-12).
				if r := mat.Norm(&pd, math.Inf(1)); r > set.EpsDualInf+1e-12 {
					t.Errorf("‖Pδx‖∞ = %g", r)
				}
				if qd := mat.Dot(mat.NewVecDense(n, tc.prob.Q), mat.NewVecDense(n, dx)); !(qd < -set.EpsDualInf) {
					t.Errorf("qᵀδx = %v, want < −%g", qd, set.EpsDualInf)
				}
				if tc.prob.A != nil {
					var ad mat.VecDense
					ad.MulVec(dense(tc.prob.A), mat.NewVecDense(n, dx))
					for i := range tc.prob.L {
						v := ad.AtVec(i)
						if (!math.IsInf(tc.prob.U[i], 1) && v > set.EpsDualInf+1e-12) ||
							(!math.IsInf(tc.prob.L[i], -1) && v < -set.EpsDualInf-1e-12) {
							t.Errorf("(Aδx)[%d] = %g outside the recession cone", i, v)
						}
					}
				}
			})
		}
	}
}
