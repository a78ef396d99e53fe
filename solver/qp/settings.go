package qp

import (
	"fmt"
	"math"
	"time"
)

// Default values of Settings, as filled in by DefaultSettings. The ADMM
// parameters follow Stellato et al. (2020), "OSQP: an operator splitting
// solver for quadratic programs", Section 5 and Table 2 (the OSQP defaults);
// the tolerances are tighter than OSQP's 1e-3 because fedcon reports
// solutions to 1e-7.
const (
	DefaultRho                 = 0.1   // initial step size ρ (OSQP default)
	DefaultSigma               = 1e-6  // regularisation σ of the x-update (OSQP default)
	DefaultAlpha               = 1.6   // over-relaxation α ∈ (0, 2) (OSQP default)
	DefaultEqualityRhoScale    = 1e3   // ρ multiplier for rows with l = u (OSQP's RHO_EQ_OVER_RHO_INEQ)
	DefaultAdaptiveRhoInterval = 25    // iterations between ρ estimates
	DefaultAdaptiveRhoFactor   = 5     // refactor only when ρ changes by more than this factor (OSQP default)
	DefaultScalingIterations   = 10    // Ruiz equilibration passes (OSQP default)
	DefaultMaxIterations       = 10000 // iteration cap, status IterationLimit (OSQP: 4000, for looser tolerances)
	DefaultEpsAbs              = 1e-7  // absolute tolerance (issue 9)
	DefaultEpsRel              = 1e-7  // relative tolerance (issue 9)
	DefaultEpsPrimalInf        = 1e-6  // primal infeasibility certificate tolerance (OSQP: 1e-4)
	DefaultEpsDualInf          = 1e-6  // dual infeasibility certificate tolerance (OSQP: 1e-4)
	DefaultCheckInterval       = 5     // iterations between residual checks (OSQP: 25)
	DefaultPolish              = true  // polish the solution on the guessed active set
	DefaultPolishDelta         = 1e-6  // regularisation δ of the polishing system (OSQP default)
	DefaultPolishRefine        = 3     // iterative refinement steps in polishing (OSQP default)
	DefaultPolishMaxSteps      = 10    // active-set steps per polishing attempt
	DefaultPolishStable        = 2     // checks with an unchanged active set before early polishing
	DefaultPolishTrigger       = 1e6   // start polishing when residuals are within this factor of the tolerances
	DefaultDenseThreshold      = 500   // LinearSolverAuto uses the dense path below this many variables
)

// Bounds of the automatic ρ and limits on Ruiz scaling factors (OSQP's
// RHO_MIN, RHO_MAX, MIN_SCALING, MAX_SCALING).
const (
	rhoMin     = 1e-6
	rhoMax     = 1e6
	minScaling = 1e-4
	maxScaling = 1e4
)

// Infinity is the magnitude at or above which a bound in L or U counts as
// infinite (OSQP_INFTY); math.Inf values are accepted as well.
const Infinity = 1e30

// LinearSolver selects how the ADMM linear system is solved.
type LinearSolver int

const (
	// LinearSolverAuto uses LinearSolverDense when the problem has fewer than
	// Settings.DenseThreshold variables and LinearSolverSparse otherwise.
	LinearSolverAuto LinearSolver = iota
	// LinearSolverDense factors the reduced matrix P + σI + AᵀρA (n×n,
	// positive definite) with a dense Cholesky decomposition. Its cost is
	// O(n³) per factorisation and O(n²) per iteration, independent of
	// sparsity; best for n up to a few hundred or for dense P.
	LinearSolverDense
	// LinearSolverSparse factors the quasi-definite KKT matrix
	// [P+σI, Aᵀ; A, −diag(1/ρ)] ((n+m)×(n+m)) with a sparse LDLᵀ
	// decomposition (the QDLDL algorithm) under a fill-reducing ordering
	// (Settings.Ordering, or automatic minimum degree). Its cost follows the
	// fill of the factor; best for large sparse problems.
	LinearSolverSparse
)

// String returns "auto", "dense" or "sparse".
func (l LinearSolver) String() string {
	switch l {
	case LinearSolverAuto:
		return "auto"
	case LinearSolverDense:
		return "dense"
	case LinearSolverSparse:
		return "sparse"
	}
	return fmt.Sprintf("LinearSolver(%d)", int(l))
}

// Settings control the ADMM iteration of Solve. DefaultSettings fills every
// field; a nil *Settings means DefaultSettings(). The zero Settings value is
// not valid (Rho = 0); start from DefaultSettings and change fields.
//
// The iteration is OSQP's (Stellato et al. 2020, Algorithm 1) on the
// Ruiz-scaled problem; tolerances apply to the unscaled residuals
//
//	r_prim = ‖Ax − z‖∞,  r_dual = ‖Px + q + Aᵀy‖∞,
//
// and the solve stops with Solved when r_prim ≤ EpsAbs + EpsRel·max(‖Ax‖∞, ‖z‖∞)
// and r_dual ≤ EpsAbs + EpsRel·max(‖Px‖∞, ‖Aᵀy‖∞, ‖q‖∞) (OSQP eq. (24)).
type Settings struct {
	// Rho is the initial ADMM step size ρ > 0 for inequality rows. Default
	// DefaultRho. Rows with l = u use Rho·EqualityRhoScale and rows with
	// both bounds infinite use 1e-6.
	Rho float64
	// Sigma is the regularisation σ > 0 of the x-update; P + σI must be
	// positive definite for setup to succeed (see NewSolver). Default
	// DefaultSigma.
	Sigma float64
	// Alpha is the relaxation parameter α ∈ (0, 2). Default DefaultAlpha.
	Alpha float64
	// EqualityRhoScale ≥ 1 multiplies ρ on equality rows (l = u). Default
	// DefaultEqualityRhoScale; 1 treats equalities like inequalities.
	EqualityRhoScale float64
	// AdaptiveRhoInterval is the number of iterations between estimates of ρ
	// from the ratio of scaled residuals (OSQP eq. (31)). Default
	// DefaultAdaptiveRhoInterval; 0 disables adaptation.
	AdaptiveRhoInterval int
	// AdaptiveRhoFactor > 1: the matrix is refactored only when the
	// estimated ρ differs from the current one by more than this factor.
	// Default DefaultAdaptiveRhoFactor.
	AdaptiveRhoFactor float64
	// ScalingIterations is the maximum number of Ruiz equilibration passes
	// over the KKT matrix, each followed by cost scaling (OSQP Section 5.1);
	// the passes stop early once one would change no scaling factor by more
	// than 1%. Default DefaultScalingIterations; 0 disables scaling.
	ScalingIterations int
	// MaxIterations caps ADMM iterations; reaching it gives
	// SolvedInaccurate or IterationLimit. Default DefaultMaxIterations;
	// 0 means no cap.
	MaxIterations int
	// TimeLimit caps the wall time of one Solve call (setup excluded);
	// reaching it gives TimeLimit. It is checked every CheckInterval
	// iterations. Default 0, meaning no limit.
	TimeLimit time.Duration
	// EpsAbs ≥ 0 and EpsRel ≥ 0 are the absolute and relative tolerances
	// of the convergence test above; they may not both be zero. Default
	// DefaultEpsAbs and DefaultEpsRel.
	EpsAbs, EpsRel float64
	// EpsPrimalInf > 0 and EpsDualInf > 0 are the tolerances of the primal
	// and dual infeasibility certificates (OSQP eqs. (26), (27)). Default
	// DefaultEpsPrimalInf and DefaultEpsDualInf.
	EpsPrimalInf, EpsDualInf float64
	// CheckInterval ≥ 1 is the number of iterations between residual and
	// certificate checks (and context, time-limit and polish checks).
	// Default DefaultCheckInterval.
	CheckInterval int
	// Polish enables solution polishing (OSQP Section 4.3): an
	// equality-constrained QP on the active set guessed from (z, y) is
	// solved with a regularised KKT system and iterative refinement. A
	// polished point is accepted only if it passes the convergence test
	// with y projected onto the normal cone, so polishing can end the solve
	// early (see PolishTrigger) but never degrades it. Default
	// DefaultPolish.
	Polish bool
	// PolishDelta > 0 is the regularisation δ of the polishing system.
	// Default DefaultPolishDelta.
	PolishDelta float64
	// PolishRefine ≥ 0 is the number of iterative refinement steps after
	// the first solve of each polishing system (fewer if the correction
	// falls below 1e-15 relative). Default DefaultPolishRefine.
	PolishRefine int
	// PolishMaxSteps ≥ 1 is the number of primal-dual active-set steps per
	// polishing attempt: each step re-solves on the active set read off the
	// previous polished point, which corrects a slightly wrong guess. 1 is
	// OSQP's single polish. Default DefaultPolishMaxSteps.
	PolishMaxSteps int
	// PolishStable ≥ 0: early polishing waits until the active set guessed
	// from the iterate has been the same at this many consecutive checks
	// (0: no wait). Default DefaultPolishStable.
	PolishStable int
	// PolishTrigger ≥ 1: polishing is attempted during the iteration, at a
	// check, when both residuals are within PolishTrigger times their
	// tolerances, the guessed active set has been stable for PolishStable
	// checks and differs from the one of the last attempt, and the
	// iterations since a failed attempt have cost about as much as that
	// attempt. With a warm start it is also attempted before the first
	// iteration. 1 disables early polishing: the solution is polished only
	// after ADMM converged (OSQP's behaviour). Default DefaultPolishTrigger.
	PolishTrigger float64
	// LinearSolver selects the dense or sparse path. Default
	// LinearSolverAuto.
	LinearSolver LinearSolver
	// DenseThreshold: LinearSolverAuto uses the dense path when the number
	// of variables n < DenseThreshold. Default DefaultDenseThreshold.
	DenseThreshold int
	// Ordering, if non-nil, is the elimination order of the sparse KKT
	// factorisation: a permutation of 0..n+m−1 where index j < n is
	// variable j and index n+i is constraint row i, listing the index
	// eliminated first, second, .... See ArrowOrdering for the arrow
	// ordering of block problems. nil selects the automatic minimum-degree
	// ordering. Ignored by the dense path. Default nil.
	Ordering []int
}

// DefaultSettings returns Settings with every field at its Default value.
func DefaultSettings() *Settings {
	return &Settings{
		Rho:                 DefaultRho,
		Sigma:               DefaultSigma,
		Alpha:               DefaultAlpha,
		EqualityRhoScale:    DefaultEqualityRhoScale,
		AdaptiveRhoInterval: DefaultAdaptiveRhoInterval,
		AdaptiveRhoFactor:   DefaultAdaptiveRhoFactor,
		ScalingIterations:   DefaultScalingIterations,
		MaxIterations:       DefaultMaxIterations,
		EpsAbs:              DefaultEpsAbs,
		EpsRel:              DefaultEpsRel,
		EpsPrimalInf:        DefaultEpsPrimalInf,
		EpsDualInf:          DefaultEpsDualInf,
		CheckInterval:       DefaultCheckInterval,
		Polish:              DefaultPolish,
		PolishDelta:         DefaultPolishDelta,
		PolishRefine:        DefaultPolishRefine,
		PolishMaxSteps:      DefaultPolishMaxSteps,
		PolishStable:        DefaultPolishStable,
		PolishTrigger:       DefaultPolishTrigger,
		LinearSolver:        LinearSolverAuto,
		DenseThreshold:      DefaultDenseThreshold,
	}
}

// Validate returns an *InputError naming the first invalid field, or nil.
// It does not check Ordering against a problem; NewSolver does.
func (s *Settings) Validate() error {
	pos := func(name string, v float64) error {
		if !(v > 0) || math.IsInf(v, 1) {
			return inputErrorf("Settings."+name, "must be positive and finite, got %v", v)
		}
		return nil
	}
	nonneg := func(name string, v float64) error {
		if !(v >= 0) || math.IsInf(v, 1) {
			return inputErrorf("Settings."+name, "must be non-negative and finite, got %v", v)
		}
		return nil
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"Rho", s.Rho}, {"Sigma", s.Sigma}, {"EpsPrimalInf", s.EpsPrimalInf}, {"EpsDualInf", s.EpsDualInf}, {"PolishDelta", s.PolishDelta}} {
		if err := pos(c.name, c.v); err != nil {
			return err
		}
	}
	if err := nonneg("EpsAbs", s.EpsAbs); err != nil {
		return err
	}
	if err := nonneg("EpsRel", s.EpsRel); err != nil {
		return err
	}
	if s.EpsAbs == 0 && s.EpsRel == 0 {
		return inputErrorf("Settings.EpsAbs", "EpsAbs and EpsRel are both zero")
	}
	if !(s.Alpha > 0 && s.Alpha < 2) {
		return inputErrorf("Settings.Alpha", "must be in (0, 2), got %v", s.Alpha)
	}
	if !(s.EqualityRhoScale >= 1) || math.IsInf(s.EqualityRhoScale, 1) {
		return inputErrorf("Settings.EqualityRhoScale", "must be finite and ≥ 1, got %v", s.EqualityRhoScale)
	}
	if !(s.AdaptiveRhoFactor > 1) || math.IsInf(s.AdaptiveRhoFactor, 1) {
		return inputErrorf("Settings.AdaptiveRhoFactor", "must be finite and > 1, got %v", s.AdaptiveRhoFactor)
	}
	if !(s.PolishTrigger >= 1) || math.IsInf(s.PolishTrigger, 1) {
		return inputErrorf("Settings.PolishTrigger", "must be finite and ≥ 1, got %v", s.PolishTrigger)
	}
	ints := []struct {
		name string
		v    int
		min  int
	}{
		{"AdaptiveRhoInterval", s.AdaptiveRhoInterval, 0},
		{"ScalingIterations", s.ScalingIterations, 0},
		{"MaxIterations", s.MaxIterations, 0},
		{"CheckInterval", s.CheckInterval, 1},
		{"PolishRefine", s.PolishRefine, 0},
		{"PolishMaxSteps", s.PolishMaxSteps, 1},
		{"PolishStable", s.PolishStable, 0},
		{"DenseThreshold", s.DenseThreshold, 0},
	}
	for _, c := range ints {
		if c.v < c.min {
			return inputErrorf("Settings."+c.name, "must be ≥ %d, got %d", c.min, c.v)
		}
	}
	if s.TimeLimit < 0 {
		return inputErrorf("Settings.TimeLimit", "must be ≥ 0, got %v", s.TimeLimit)
	}
	switch s.LinearSolver {
	case LinearSolverAuto, LinearSolverDense, LinearSolverSparse:
	default:
		return inputErrorf("Settings.LinearSolver", "unknown value %d", int(s.LinearSolver))
	}
	return nil
}
