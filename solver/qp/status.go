package qp

// Status is the outcome of a solve. The zero value is NotTerminated.
type Status int

// The possible outcomes of Solve. See Status.HasSolution for which of them
// carry a solution vector.
const (
	// NotTerminated is the zero value; no solve produced it.
	NotTerminated Status = iota
	// Solved: the primal and dual residuals met Settings.EpsAbs and
	// Settings.EpsRel, either at an ADMM iterate or at the polished point.
	Solved
	// SolvedInaccurate: Settings.MaxIterations was reached and the residuals
	// met tolerances ten times looser than requested (as OSQP's "solved
	// inaccurate"). X and Y hold the last iterate.
	SolvedInaccurate
	// PrimalInfeasible: l ≤ Ax ≤ u has no solution; PrimalCertificate holds
	// δy with Aᵀδy ≈ 0 and uᵀmax(δy,0) + lᵀmin(δy,0) < 0.
	PrimalInfeasible
	// DualInfeasible: the objective is unbounded below; DualCertificate holds
	// δx with Pδx ≈ 0, qᵀδx < 0 and Aδx in the recession cone of [l, u].
	DualInfeasible
	// IterationLimit: Settings.MaxIterations was reached and even the ten
	// times looser tolerances were not met.
	IterationLimit
	// TimeLimit: Settings.TimeLimit elapsed before convergence.
	TimeLimit
	// NonConvex: a factorisation during the iteration lost definiteness or
	// the iterates became non-finite. A P that is not positive semidefinite
	// is normally caught earlier, as an *InputError from setup.
	NonConvex
	// Canceled: the context passed to Solve was canceled.
	Canceled
)

var statusTable = [...]struct {
	name        string
	early       bool
	hasSolution bool
	err         error
}{
	NotTerminated:    {"NotTerminated", false, false, ErrNotTerminated},
	Solved:           {"Solved", false, true, nil},
	SolvedInaccurate: {"SolvedInaccurate", true, true, nil},
	PrimalInfeasible: {"PrimalInfeasible", false, false, ErrPrimalInfeasible},
	DualInfeasible:   {"DualInfeasible", false, false, ErrDualInfeasible},
	IterationLimit:   {"IterationLimit", true, false, ErrIterationLimit},
	TimeLimit:        {"TimeLimit", true, false, ErrTimeLimit},
	NonConvex:        {"NonConvex", false, false, ErrNonConvex},
	Canceled:         {"Canceled", true, false, ErrCanceled},
}

func (s Status) valid() bool { return s >= 0 && int(s) < len(statusTable) }

// String returns the name of the status, e.g. "Solved".
func (s Status) String() string {
	if !s.valid() {
		return "Status(?)"
	}
	return statusTable[s].name
}

// Early reports whether the solve stopped on a cap (iterations, time or
// context) before its tolerance test passed: SolvedInaccurate,
// IterationLimit, TimeLimit and Canceled.
func (s Status) Early() bool { return s.valid() && statusTable[s].early }

// HasSolution reports whether Result.X and Result.Y hold a solution (Solved
// and SolvedInaccurate). For every other status they are filled with NaN.
func (s Status) HasSolution() bool { return s.valid() && statusTable[s].hasSolution }

// Err returns nil for Solved and SolvedInaccurate and otherwise the sentinel
// error of the status (ErrPrimalInfeasible, ErrIterationLimit, ...), so that
// a caller who needs a solution can turn the status into an error in one
// call.
func (s Status) Err() error {
	if !s.valid() {
		return ErrNotTerminated
	}
	return statusTable[s].err
}
