package qp

import "time"

// Start is a warm start for Solve: an approximate primal solution X
// (length n) and dual solution Y (length m), for example the X and Y of a
// Result of a nearby problem. A nil slice means zero. Solve copies them.
type Start struct {
	X, Y []float64
}

// Result is the outcome of a solve.
type Result struct {
	// X is the primal solution (length n) and Y the constraint multipliers
	// (length m), with the sign convention of OSQP: the Lagrangian is
	// ½xᵀPx + qᵀx + yᵀ(Ax − z), so Y[i] > 0 only when row i is at its upper
	// bound and Y[i] < 0 only at its lower bound. Both are filled with NaN
	// unless Status.HasSolution().
	X, Y []float64
	// Objective is ½XᵀPX + qᵀX, or NaN without a solution.
	Objective float64
	// Status is the outcome; see Status.
	Status Status
	// PrimalCertificate (Status PrimalInfeasible, else nil) is a vector δy,
	// scaled to ‖δy‖∞ = 1, with ‖Aᵀδy‖∞ ≤ EpsPrimalInf and
	// uᵀmax(δy, 0) + lᵀmin(δy, 0) < −EpsPrimalInf (OSQP eq. (26)); terms
	// with an infinite bound have δy of the sign that makes them vanish.
	PrimalCertificate []float64
	// DualCertificate (Status DualInfeasible, else nil) is a vector δx,
	// scaled to ‖δx‖∞ = 1, with ‖Pδx‖∞ ≤ EpsDualInf, qᵀδx < −EpsDualInf and
	// (Aδx)ᵢ within EpsDualInf of [0, 0], [0, ∞), (−∞, 0] or ℝ according as
	// row i has both, only a lower, only an upper or no finite bound
	// (OSQP eq. (27)).
	DualCertificate []float64
	// Stats reports the cost of the solve and the quality of the result.
	Stats Stats
}

// Stats reports the work done by a solve and the residuals of its result.
type Stats struct {
	// Iterations is the number of ADMM iterations.
	Iterations int
	// Refactorizations counts numeric refactorisations of the ADMM matrix
	// in this call after setup (ρ updates, and changes of row type by
	// Solver.Update).
	Refactorizations int
	// Rho is the scalar ρ in force at the end (inequality rows, scaled
	// problem).
	Rho float64
	// PolishAttempts counts polishing attempts and PolishSteps the
	// active-set steps they took (each one linear solve, and one
	// factorisation unless the active set repeats); Polished reports
	// whether the returned solution is the polished one.
	PolishAttempts, PolishSteps int
	Polished                    bool
	// PrimalResidual ‖Ax − z‖∞ and DualResidual ‖Px + q + Aᵀy‖∞, unscaled,
	// at the returned point, or for a Result without a solution at the last
	// iterate checked (so that a capped run shows how close it got; zero if
	// no check was reached).
	PrimalResidual, DualResidual float64
	// LinearSolver is the path used, LinearSolverDense or
	// LinearSolverSparse, and FactorNonzeros the number of stored entries
	// of its factor (n(n+1)/2 for dense, nnz(L) + n + m for sparse).
	LinearSolver   LinearSolver
	FactorNonzeros int
	// SetupTime is the time spent by NewSolver (validation, scaling,
	// ordering, first factorisation); it is reported by the package-level
	// Solve and is zero in results of Solver.Solve.
	SetupTime time.Duration
	// IterationTime is the time spent in ADMM iterations, including
	// refactorisations; PolishTime the time spent polishing (including
	// polishing attempts during the iteration).
	IterationTime, PolishTime time.Duration
	// Runtime is the wall time of the call that returned the Result.
	Runtime time.Duration
}
