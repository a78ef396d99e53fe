package qp

import (
	"errors"
	"fmt"
)

// InputError reports a problem, setting or start vector that Solve cannot
// accept. Field names the offending input ("P", "Q", "A", "L", "U",
// "Settings.Rho", "Settings.Ordering", "Start.X", ...) and Reason says what is
// wrong with it, including the index and value where there is one. Solve,
// NewSolver, Update and NewCSC return *InputError for every defect of user
// input and never panic on it.
type InputError struct {
	Field  string
	Reason string
}

// Error implements the error interface.
func (e *InputError) Error() string { return fmt.Sprintf("qp: %s: %s", e.Field, e.Reason) }

// Is reports whether target is ErrInput, so that errors.Is(err, ErrInput)
// matches any *InputError.
func (e *InputError) Is(target error) bool { return target == ErrInput }

func inputErrorf(field, format string, args ...any) error {
	return &InputError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

var (
	// ErrInput signifies invalid user input; every *InputError matches it
	// under errors.Is.
	ErrInput = errors.New("qp: invalid input")

	// ErrPrimalInfeasible signifies that the constraints l ≤ Ax ≤ u have no
	// solution; Result.PrimalCertificate holds the proof. Returned by
	// Status.Err for PrimalInfeasible.
	ErrPrimalInfeasible = errors.New("qp: problem is primal infeasible")

	// ErrDualInfeasible signifies that the objective is unbounded below on
	// the feasible set; Result.DualCertificate holds the proof. Returned by
	// Status.Err for DualInfeasible.
	ErrDualInfeasible = errors.New("qp: problem is dual infeasible (unbounded)")

	// ErrIterationLimit signifies that Settings.MaxIterations was reached
	// before the tolerances were met. Returned by Status.Err for
	// IterationLimit.
	ErrIterationLimit = errors.New("qp: iteration limit reached")

	// ErrTimeLimit signifies that Settings.TimeLimit elapsed first. Returned
	// by Status.Err for TimeLimit.
	ErrTimeLimit = errors.New("qp: time limit reached")

	// ErrNonConvex signifies that a factorisation during the iteration lost
	// definiteness or the iterates became non-finite, which happens only for
	// non-convex or numerically hopeless problems. Returned by Status.Err for
	// NonConvex.
	ErrNonConvex = errors.New("qp: problem is non-convex or numerically unstable")

	// ErrCanceled signifies that the context was canceled. Returned by
	// Status.Err for Canceled; Solve itself returns an error wrapping
	// ctx.Err().
	ErrCanceled = errors.New("qp: canceled")

	// ErrNotTerminated signifies a Result that no solve produced. Returned by
	// Status.Err for NotTerminated.
	ErrNotTerminated = errors.New("qp: not terminated")
)
