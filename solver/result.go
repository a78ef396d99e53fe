package solver

import "time"

// Result is a run's outcome: the solution, how the run ended, what it cost,
// and the KKT residuals recomputed at the returned point.
type Result struct {
	// W is the returned w^{k+1}.
	W []float64
	// Mu are the multipliers μ^{k+1}: Mu[0] the server's, Mu[i] client i's.
	Mu [][]float64
	// Objective is f(W) = Σ_i f_i(W).
	Objective float64
	// Parties are f_i(W) and c_i(W) per party (index 0 = server).
	Parties []PartyValue
	// Status is the certificate: what holds at W by the recomputed
	// Residuals (see certify); Test is what the run's own stopping test
	// said before that audit.
	Status Status
	// Test is the status the iteration itself reached: Converged when test
	// (11) stopped it, else the cap or interruption that did.
	Test Status
	// Polished reports that W and Mu come from the KKT polish (ProxAL.Polish).
	Polished bool
	// Residuals are the KKT residuals of Definition 1 at (W, Mu).
	Residuals Residuals
	// Stats are the run's costs.
	Stats Stats
	// Trace has one record per outer iteration.
	Trace []OuterRecord
	// Participation records who answered each round under partial
	// participation (ProxAL.Participation); nil under full participation.
	Participation *ParticipationLog
}

// LastCapped reports whether the subproblem that produced W stopped at
// Settings.MaxInner without its test (10): false for a polished point,
// which no subproblem produced. Such a point is InnerIterationLimit, never
// Converged (certify).
func (r *Result) LastCapped() bool {
	return !r.Polished && len(r.Trace) > 0 && r.Trace[len(r.Trace)-1].Capped
}

// PartyValue is one party's objective and constraint values at a point.
type PartyValue struct {
	F float64   `json:"f"`
	C []float64 `json:"c"`
}

// Residuals are the two residuals of Definition 1, in the ∞-norm:
// Stationarity = dist_∞(0, ∇f(w) + ∇c(w)μ) and
// Feasibility = dist_∞(c(w), N_{K*}(μ)) (max over all parties).
type Residuals struct {
	Stationarity float64 `json:"stationarity"`
	Feasibility  float64 `json:"feasibility"`
}

// Stats are a run's counts. Communication counts floats (8 bytes each) that
// cross the federation boundary; Algorithm 3 is centralized and has none.
type Stats struct {
	OuterIterations int `json:"outer_iterations"`
	// InnerIterations is the total over all outer iterations: ADMM iterations
	// for Algorithm 1, smooth-solver iterations for Algorithm 3 (0 when exact).
	InnerIterations int `json:"inner_iterations"`
	// InnerCapHits counts subproblems that stopped at Settings.MaxInner.
	InnerCapHits int `json:"inner_cap_hits"`
	// LocalMisses counts Algorithm 1's smooth local solves, the clients'
	// (19) and the server's (18), that stopped short of their tolerance
	// ε_{t+1} (iteration cap or no further progress). The run goes on; the
	// final KKT audit is recomputed either way. cProx-AL counts such a
	// subproblem in InnerCapHits.
	LocalMisses int `json:"local_misses"`
	// PolishIterations counts the KKT polish's Newton iterations (one
	// round each for Algorithm 1; ProxAL.Polish).
	PolishIterations int `json:"polish_iterations,omitempty"`
	// Restarts counts Algorithm 2 calls restarted from their best iterate
	// after the certificate diverged (RhoHessian's safeguard).
	Restarts int `json:"admm_restarts,omitempty"`
	// LocalIterations sums the iterations of the clients' and server's own
	// smooth solvers (0 for exact solves).
	LocalIterations int `json:"local_iterations"`
	// Evaluations counts passes over the parties' data: Party.Eval calls
	// and Hessians (HessianParty.Hessian).
	Evaluations int64 `json:"evaluations"`
	// Rounds counts server↔clients communication rounds.
	Rounds int `json:"rounds"`
	// FloatsDown/FloatsUp count algorithm floats sent server→clients and
	// clients→server, summed over clients.
	FloatsDown int64 `json:"floats_down"`
	FloatsUp   int64 `json:"floats_up"`
	// DiagFloatsUp counts diagnostic floats (f_i, c_i for traces and the final
	// KKT audit) that the algorithm itself does not need.
	DiagFloatsUp int64 `json:"diag_floats_up"`
	// SimWall is the simulated wall time in seconds under ProxAL.Straggler
	// (0 without): the sum of its rounds' durations.
	SimWall float64 `json:"sim_wall_s,omitempty"`
	// Runtime is the wall time of Solve.
	Runtime time.Duration `json:"runtime_ns"`
}

// BytesDown and BytesUp are the algorithm's traffic in bytes (float64).
func (s Stats) BytesDown() int64 { return 8 * s.FloatsDown }
func (s Stats) BytesUp() int64   { return 8 * s.FloatsUp }

// OuterRecord describes outer iteration k (from w^k to w^{k+1}).
type OuterRecord struct {
	K      int     `json:"k"`
	Tau    float64 `json:"tau"`    // τ_k = s̄/(k+1)²
	Inner  int     `json:"inner"`  // inner iterations of this subproblem
	Capped bool    `json:"capped"` // the subproblem hit MaxInner without (10)
	// Certificate is the last left-hand side of eq. (23) (Algorithm 1) or
	// ||∇ℓ_k||_∞ (Algorithm 3): a bound on dist_∞(0, ∂ℓ_k(w^{k+1})); NaN
	// when no inner test was evaluated.
	Certificate float64 `json:"certificate"`
	// StepW = ||w^{k+1} - w^k||_∞ and StepMu = max_i ||μ_i^{k+1} - μ_i^k||_∞, test (11).
	StepW  float64 `json:"step_w"`
	StepMu float64 `json:"step_mu"`
	// Relax is λ of a relaxed step (the next centre moved λ times the
	// step; ProxAL.OuterRelax); 0 for a plain step.
	Relax float64 `json:"relax,omitempty"`
	// Parties are f_i and c_i at w^{k+1} (index 0 = server).
	Parties []PartyValue `json:"parties"`
	// Rounds, FloatsDown, FloatsUp are cumulative through this iteration.
	Rounds     int   `json:"rounds"`
	FloatsDown int64 `json:"floats_down"`
	FloatsUp   int64 `json:"floats_up"`
}

// Recorder receives progress, one record per outer iteration. It is called
// from the solving goroutine; it must not retain rec's slices.
type Recorder interface {
	Record(rec *OuterRecord)
}
