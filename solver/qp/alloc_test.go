package qp

import (
	"context"
	"testing"
)

// TestNoPerIterationAllocation checks that the ADMM loop allocates nothing:
// a Solve of 200 iterations allocates as much as one of 20, on both paths,
// with ρ adaptation (and so refactorisations) on.
func TestNoPerIterationAllocation(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts: not in -short")
	}
	probs := map[LinearSolver]*Problem{
		LinearSolverDense: denseQP(3, 60, 20),
	}
	probs[LinearSolverSparse], _ = arrowQPlp(3, 8, 12, 4, 0)
	ctx := context.Background()
	for ls, p := range probs {
		allocs := func(iters int) float64 {
			set := settingsFor(ls)
			set.Polish = false
			set.EpsAbs, set.EpsRel = 1e-30, 1e-30 // never converge
			set.MaxIterations = iters
			set.AdaptiveRhoInterval = 5
			set.AdaptiveRhoFactor = 1.01 // refactor at nearly every estimate
			s, err := NewSolver(p, set)
			if err != nil {
				t.Fatal(err)
			}
			var refac int
			a := testing.AllocsPerRun(3, func() {
				res, err := s.Solve(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				refac = res.Stats.Refactorizations
			})
			if iters > 20 && refac == 0 {
				t.Errorf("%v: no refactorisation in %d iterations; the test should cover them", ls, iters)
			}
			return a
		}
		if few, many := allocs(20), allocs(200); many > few {
			t.Errorf("%v: %v allocations for 200 iterations, %v for 20", ls, many, few)
		}
	}
}
