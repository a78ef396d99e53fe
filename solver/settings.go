package solver

import (
	"fmt"
	"math"
	"runtime"
	"time"
)

// Defaults of Settings, each cited where it is used.
const (
	// DefaultMaxOuter caps the outer iterations of Algorithms 1 and 3. Large:
	// the authors' QP code used 10,000; the NP presets set 100.
	DefaultMaxOuter = 10000
	// DefaultMaxInner caps the iterations of Algorithm 2 per outer iteration
	// (and of the smooth subproblem solver of Algorithm 3).
	DefaultMaxInner = 10000
	// DefaultEps1 and DefaultEps2 are the tolerances (ε1, ε2) of Definition 1
	// and test (11), as in all the paper's experiments.
	DefaultEps1 = 1e-3
	DefaultEps2 = 1e-3
	// DefaultMaxNorm bounds ||w||_∞ of the outer iterates: far beyond any
	// solution of the paper's problems (features in [-1, 1] or standardised,
	// optima of norm O(1)-O(100)), so only a run that is blowing up reaches
	// it (the authors' fairness preset, capped at 50 inner iterations, grew
	// ||w||_∞ about 4× per outer iteration on one adult-b trial).
	DefaultMaxNorm = 1e10
)

// Settings says when to stop and how to run; what to solve is the Problem
// and how is the Method. The zero value of a field means its default.
type Settings struct {
	// MaxOuter caps outer iterations (status OuterIterationLimit or
	// ConvergedInaccurate). Default DefaultMaxOuter; negative is invalid.
	MaxOuter int
	// MaxInner caps the inner iterations of one subproblem; a subproblem that
	// hits it is counted in Stats.InnerCapHits and the run goes on with the
	// last iterate. Default DefaultMaxInner.
	MaxInner int
	// Eps1 (stationarity) and Eps2 (feasibility) are the tolerances of test
	// (11) and Definition 1. Defaults DefaultEps1, DefaultEps2; must be in (0, 1).
	Eps1, Eps2 float64
	// Runtime caps wall time (status RuntimeLimit, no error); zero means no
	// limit. Algorithm 1 stops within one ADMM round, Algorithm 3 after the
	// current subproblem; the result is the last completed outer iterate,
	// audited.
	Runtime time.Duration
	// Workers bounds the goroutines running client steps concurrently;
	// zero means GOMAXPROCS. Results do not depend on it.
	Workers int
	// MaxNorm ends the run with status Diverged when an outer iterate has
	// ||w^{k+1}||_∞ > MaxNorm; the result keeps w^k. Default DefaultMaxNorm;
	// +Inf disables the test; negative or NaN is invalid.
	MaxNorm float64
	// Recorder, if non-nil, receives one record per outer iteration.
	Recorder Recorder
}

// DefaultSettings returns settings with every field at its default.
func DefaultSettings() *Settings {
	return &Settings{
		MaxOuter: DefaultMaxOuter, MaxInner: DefaultMaxInner,
		Eps1: DefaultEps1, Eps2: DefaultEps2, MaxNorm: DefaultMaxNorm,
		Workers: runtime.GOMAXPROCS(0),
	}
}

// withDefaults returns a copy of s (nil allowed) with zero fields defaulted.
func (s *Settings) withDefaults() *Settings {
	d := DefaultSettings()
	if s == nil {
		return d
	}
	c := *s
	if c.MaxOuter == 0 {
		c.MaxOuter = d.MaxOuter
	}
	if c.MaxInner == 0 {
		c.MaxInner = d.MaxInner
	}
	if c.Eps1 == 0 {
		c.Eps1 = d.Eps1
	}
	if c.Eps2 == 0 {
		c.Eps2 = d.Eps2
	}
	if c.MaxNorm == 0 {
		c.MaxNorm = d.MaxNorm
	}
	if c.Workers == 0 {
		c.Workers = d.Workers
	}
	return &c
}

// Validate reports the first invalid field, naming it and its value.
func (s *Settings) Validate() error {
	switch {
	case s.MaxOuter < 0:
		return fmt.Errorf("solver: Settings.MaxOuter = %d: must be >= 0", s.MaxOuter)
	case s.MaxInner < 0:
		return fmt.Errorf("solver: Settings.MaxInner = %d: must be >= 0", s.MaxInner)
	case !(s.Eps1 >= 0 && s.Eps1 < 1):
		return fmt.Errorf("solver: Settings.Eps1 = %v: must be in (0, 1)", s.Eps1)
	case !(s.Eps2 >= 0 && s.Eps2 < 1):
		return fmt.Errorf("solver: Settings.Eps2 = %v: must be in (0, 1)", s.Eps2)
	case s.Runtime < 0:
		return fmt.Errorf("solver: Settings.Runtime = %v: must be >= 0", s.Runtime)
	case s.Workers < 0:
		return fmt.Errorf("solver: Settings.Workers = %d: must be >= 0", s.Workers)
	case !(s.MaxNorm >= 0):
		return fmt.Errorf("solver: Settings.MaxNorm = %v: must be >= 0 (0: the default)", s.MaxNorm)
	}
	return nil
}

// finite reports whether every entry of x is finite.
func finite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
