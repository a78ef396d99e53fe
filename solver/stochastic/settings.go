package stochastic

import (
	"fmt"
	"math"
	"time"

	"github.com/fedcon/fedcon/solver"
)

// Defaults of Settings (Section VI unless noted).
const (
	DefaultRounds      = 100  // T
	DefaultTau         = 0.1  // τ of (7), (11)
	DefaultC           = 1e5  // c of Problem 4; the OCR reads "10%": we read 10^5
	DefaultGammaOffset = 0.05 // γ_t = a2/t^(α+0.05); exponent garbled in the OCR
)

// Schedule is the step-size rule ρ_t = A1/t^Alpha, γ_t = A2/t^(Alpha+GammaOffset).
// GammaOffset > 0 keeps γ_t/ρ_t → 0 as (6) requires.
type Schedule struct {
	A1, A2, Alpha, GammaOffset float64
}

// Rho is ρ_t of (3), (4).
func (s Schedule) Rho(t int) float64 { return s.A1 / math.Pow(float64(t), s.Alpha) }

// Gamma is γ_t of (5), (6).
func (s Schedule) Gamma(t int) float64 {
	return s.A2 / math.Pow(float64(t), s.Alpha+s.GammaOffset)
}

// Problem selects the formulation solved by the SSCA algorithms.
type Problem struct {
	// Constrained selects (37): min ‖w‖² s.t. F(w) ≤ U (Algorithms 2, 4);
	// otherwise (27): min F(w) + λ‖w‖² (Algorithms 1, 3).
	Constrained bool
	// Lambda is λ of (27), >= 0.
	Lambda float64
	// U is the cost limit of (37), > 0.
	U float64
}

// Settings are the parameters of one SSCA run.
type Settings struct {
	// Rounds is T: the server runs t = 1..T-1 and returns w^T. Default DefaultRounds.
	Rounds int
	// Batch is B: samples per client (sample-based) or in all (feature-based).
	Batch int
	// Tau is τ of the surrogates (7), (11). Default DefaultTau.
	Tau float64
	// C is the slack penalty c of Problem 4 (Algorithms 2, 4). Default DefaultC.
	C float64
	// Schedule are the step sizes; required.
	Schedule Schedule
	// Seed selects the mini-batch streams.
	Seed uint64
	// Recorder, if not nil, is called with w^t (read-only, valid during the
	// call) for t = 1..T where Record(t); its error stops the run. Its time
	// is excluded from Stats.Runtime.
	Recorder func(t int, w []float64) error
	// Record selects the rounds passed to Recorder; nil means all.
	Record func(t int) bool
}

// SGDSettings are the parameters of the SGD baselines.
type SGDSettings struct {
	Rounds int // T, default DefaultRounds
	Batch  int // B
	// LocalSteps is E, FedAvg's local SGD steps per round (default 1).
	LocalSteps int
	// LR and Beta give the learning rate r_t = LR/t^Beta.
	LR, Beta float64
	// Lambda is λ of (27): the step uses ∇F + 2λw.
	Lambda   float64
	Seed     uint64
	Recorder func(t int, w []float64) error
	Record   func(t int) bool
}

// SettingError signifies an invalid setting or a size the data cannot meet.
type SettingError struct {
	Field  string
	Value  any
	Reason string
}

func (e *SettingError) Error() string {
	return fmt.Sprintf("stochastic: %s = %v: %s", e.Field, e.Value, e.Reason)
}

func (s *Settings) withDefaults() Settings {
	out := *s
	if out.Rounds == 0 {
		out.Rounds = DefaultRounds
	}
	if out.Tau == 0 {
		out.Tau = DefaultTau
	}
	if out.C == 0 {
		out.C = DefaultC
	}
	return out
}

func finitePos(x float64) bool { return x > 0 && !math.IsInf(x, 0) }

// validate checks s (after defaults) and p; n is the smallest client's
// sample count (sample-based) or N (feature-based).
func (s *Settings) validate(p Problem, n int) error {
	sc := s.Schedule
	switch {
	case s.Rounds < 1:
		return &SettingError{"rounds", s.Rounds, "must be >= 1"}
	case s.Batch < 1 || s.Batch > n:
		return &SettingError{"batch", s.Batch, fmt.Sprintf("must be in [1, %d] (samples available)", n)}
	case !finitePos(s.Tau):
		return &SettingError{"tau", s.Tau, "must be a finite number > 0"}
	case !finitePos(s.C):
		return &SettingError{"c", s.C, "must be a finite number > 0"}
	case !(sc.A1 > 0 && sc.A1 <= 1):
		return &SettingError{"a1", sc.A1, "must be in (0, 1] (ρ_t ∈ (0, 1])"}
	case !(sc.A2 > 0 && sc.A2 <= 1):
		return &SettingError{"a2", sc.A2, "must be in (0, 1] (γ_t ∈ (0, 1])"}
	case !(sc.Alpha > 0 && sc.Alpha <= 1):
		return &SettingError{"alpha", sc.Alpha, "must be in (0, 1]"}
	case !(sc.GammaOffset >= 0) || math.IsInf(sc.GammaOffset, 0):
		return &SettingError{"gamma_offset", sc.GammaOffset, "must be >= 0"}
	case !(p.Lambda >= 0) || math.IsInf(p.Lambda, 0):
		return &SettingError{"lambda", p.Lambda, "must be a finite number >= 0"}
	case p.Constrained && !finitePos(p.U):
		return &SettingError{"U", p.U, "must be a finite number > 0"}
	}
	return nil
}

// Stats are what a run cost.
type Stats struct {
	Rounds int `json:"rounds"`
	// BytesDown, BytesUp and BytesClient are the bytes sent server→clients,
	// clients→server and client→client in all rounds (float64 8, index 4).
	BytesDown   int64 `json:"bytes_down"`
	BytesUp     int64 `json:"bytes_up"`
	BytesClient int64 `json:"bytes_client"`
	// Runtime is the wall time of the rounds, without the Recorder's.
	Runtime time.Duration `json:"runtime_ns"`
}

// Result is the outcome of a run.
type Result struct {
	W      []float64     `json:"-"`
	Status solver.Status `json:"status"`
	Stats  Stats         `json:"stats"`
	// Nu and Slack are ν* (39) and s of the last subproblem (38) (Algorithms 2, 4).
	Nu    float64 `json:"nu"`
	Slack float64 `json:"slack"`
}
