// Package qp solves convex quadratic programs
//
//	minimise ½xᵀPx + qᵀx  subject to  l ≤ Ax ≤ u
//
// with the operator-splitting (ADMM) method of OSQP: Stellato, Banjac,
// Goulart, Bemporad and Boyd, "OSQP: an operator splitting solver for
// quadratic programs", Math. Prog. Comp. 12 (2020) 637–672. It is written
// from the paper, in pure Go, with no cgo.
//
// # Algorithm
//
// The problem is first equilibrated by Ruiz scaling of the KKT matrix
// [P Aᵀ; A 0] plus a cost scaling (Section 5.1). Each iteration solves one
// linear system with the matrix P + σI + AᵀρA (Algorithm 1, eq. (18)), then
// applies relaxation α, projection onto [l, u] and the dual update. The
// matrix is factored once and refactored only when the adaptive step size ρ
// (eq. (31)) moves by more than Settings.AdaptiveRhoFactor. Rows with l = u
// use a ρ a thousand times larger, free rows a tiny one (Section 5.2).
//
// Two linear-algebra paths exist (Settings.LinearSolver):
//
//   - dense: a Cholesky factorisation of the n×n positive definite matrix
//     P + σI + AᵀρA, used by default for n < 500;
//   - sparse: an LDLᵀ factorisation of the quasi-definite KKT matrix
//     [P+σI, Aᵀ; A, −diag(1/ρ)] in the manner of QDLDL (elimination tree,
//     symbolic analysis once, numeric refactorisation on ρ changes) under a
//     fill-reducing ordering: Settings.Ordering if given (see
//     ArrowOrdering for block problems), else an exact minimum-degree
//     ordering that postpones dense rows and columns as AMD does.
//
// Every CheckInterval iterations the unscaled residuals are compared with
// EpsAbs and EpsRel, and the primal and dual infeasibility certificates of
// eqs. (26)–(27) are tested.
//
// Polishing (Section 4.3) guesses the active set from the iterate, solves
// the equality-constrained QP on it through a regularised KKT system with
// iterative refinement (started from the current point, which makes it a
// proximal-point iteration), and accepts the result only if it passes the
// convergence test with the multipliers projected onto the normal cone.
// Unlike OSQP, which polishes once after convergence, the solver also
// polishes early, once the residuals are within PolishTrigger of the
// tolerances and the guessed active set has settled, and repeats the step
// on the active set read off each polished point (a primal-dual
// active-set, i.e. semismooth Newton, step; PolishMaxSteps). A successful
// polish ends the solve with residuals at rounding level, long before ADMM
// alone would reach 1e-7; with a warm start it is tried before the first
// iteration, so a nearby problem often needs no ADMM iteration at all. The
// dense path lets active single-entry rows (bounds) fix their variables
// exactly and factors only the block of the free ones.
//
// ADMM converges linearly and slowly on degenerate, LP-like problems; there
// the early polishing is what reaches 1e-7, and the number of iterations
// depends strongly on Settings.Rho (see docs/qp.md).
//
// # Usage
//
// Solve handles a single problem. For many problems that share P and A,
// NewSolver sets up once, Solver.Update changes q, l and u, and
// Solver.Solve runs from a warm Start (typically the previous X and Y);
// the factorisation and the adapted ρ are reused.
//
// # Invariants
//
// Solve, NewSolver and Update never modify their arguments and keep no
// references to them. Invalid input gives an *InputError naming the field
// and never a panic. Results without a solution (Status.HasSolution false)
// carry NaN vectors, never a stale iterate. Runs are deterministic: a fresh
// Solver given the same input produces bit-identical results; a Solver
// reused across Solve calls keeps its adapted ρ, so its later runs may take
// a different path. A Solver is not safe for concurrent use.
package qp
