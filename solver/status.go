package solver

import "fmt"

// Status is how a run ended. The zero value is NotTerminated.
type Status int

// Statuses, in the order of the table below.
const (
	// NotTerminated: the run has not ended.
	NotTerminated Status = iota
	// Converged: Definition 1's residuals, recomputed at the returned
	// point, are within (ε1, ε2), and the subproblem that produced it met
	// its test (10) (or the point came from the KKT polish, which has no
	// subproblem). The status is the certificate: nothing else sets it.
	Converged
	// ConvergedInaccurate: the run stopped without test (11) (a cap) and the
	// recomputed residuals are within 10·(ε1, ε2), not within (ε1, ε2).
	ConvergedInaccurate
	// OuterIterationLimit: Settings.MaxOuter outer iterations, and the
	// recomputed residuals are above 10·(ε1, ε2).
	OuterIterationLimit
	// InnerIterationLimit: the last subproblem stopped at its inner cap
	// without certificate (10); the residuals say how far the point is.
	InnerIterationLimit
	// RuntimeLimit: Settings.Runtime elapsed.
	RuntimeLimit
	// Diverged: an iterate or a value became NaN or ±Inf, or an outer
	// iterate left the box ||w||_∞ <= Settings.MaxNorm.
	Diverged
	// Canceled: the context was canceled.
	Canceled
	// Uncertified: the run's own test (11) stopped it, but Definition 1's
	// residuals recomputed at the returned point exceed (ε1, ε2).
	Uncertified
)

var statusTable = [...]struct {
	name  string
	early bool // stopped before an (ε1, ε2)-optimal point was certified
}{
	NotTerminated:       {"NotTerminated", true},
	Converged:           {"Converged", false},
	ConvergedInaccurate: {"ConvergedInaccurate", true},
	OuterIterationLimit: {"OuterIterationLimit", true},
	InnerIterationLimit: {"InnerIterationLimit", true},
	RuntimeLimit:        {"RuntimeLimit", true},
	Diverged:            {"Diverged", true},
	Canceled:            {"Canceled", true},
	Uncertified:         {"Uncertified", true},
}

func (s Status) String() string {
	if s < 0 || int(s) >= len(statusTable) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusTable[s].name
}

// Early reports whether the run stopped before certifying an (ε1, ε2)-optimal point.
func (s Status) Early() bool {
	if s < 0 || int(s) >= len(statusTable) {
		return true
	}
	return statusTable[s].early
}

// Err returns nil for Converged and an error naming the status otherwise.
func (s Status) Err() error {
	if !s.Early() {
		return nil
	}
	return fmt.Errorf("solver: %v", s)
}

// MarshalText writes the status name (JSON results carry names, not numbers).
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a status name.
func (s *Status) UnmarshalText(b []byte) error {
	for i, e := range statusTable {
		if e.name == string(b) {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("solver: unknown status %q", b)
}
