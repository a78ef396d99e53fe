package qp

import (
	"context"
	"time"
)

// Solve solves prob with the given settings (nil: DefaultSettings()) from
// the warm start warm (nil: cold start). It is NewSolver followed by
// Solver.Solve; use a Solver directly to re-solve with new q, l or u without
// refactoring.
//
// Solve returns an *InputError, and a nil Result, for invalid input
// (dimension mismatches, NaN or infinite data, L > U, a non-symmetric or
// not positive semidefinite P, invalid settings or start). Infeasibility,
// unboundedness and the iteration and time caps are reported in
// Result.Status with a nil error. On cancellation of ctx it returns the
// partial Result (Status Canceled) and an error wrapping ctx.Err().
func Solve(ctx context.Context, prob *Problem, settings *Settings, warm *Start) (*Result, error) {
	t0 := time.Now()
	s, err := NewSolver(prob, settings)
	if err != nil {
		return nil, err
	}
	res, err := s.Solve(ctx, warm)
	if res != nil {
		res.Stats.SetupTime = s.setupTime
		res.Stats.Runtime = time.Since(t0)
	}
	return res, err
}
