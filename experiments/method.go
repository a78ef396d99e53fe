package experiments

import (
	"context"
	"fmt"
	"math"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/fedcon/fedcon/solver"
)

// TrialConfig is what every experiment draws its randomness from: YAML keys
// seed, trials and rng.
type TrialConfig struct {
	Seed   uint64 `mapstructure:"seed" json:"seed"`
	Trials int    `mapstructure:"trials" json:"trials"`
	// RNG is "fedcon" (our PCG streams) or "numpy" (the authors' legacy
	// RandomState stream for instances and w0).
	RNG string `mapstructure:"rng" json:"rng"`
}

// ValidateTrials checks the keys of TrialConfig.
func (c *TrialConfig) ValidateTrials() error {
	switch {
	case c.Trials < 1 || c.Trials > MaxTrials:
		return &ConfigError{"trials", c.Trials, fmt.Sprintf("must be in [1, %d]", MaxTrials)}
	case c.RNG != "fedcon" && c.RNG != "numpy":
		return &ConfigError{"rng", c.RNG, "must be fedcon or numpy"}
	}
	return nil
}

// ValidateAll returns the first error of validators.
func ValidateAll(vs ...func() error) error {
	for _, v := range vs {
		if err := v(); err != nil {
			return err
		}
	}
	return nil
}

// MethodConfig holds the parameters of Algorithms 1-3 that every experiment
// shares; each field is a YAML key.
type MethodConfig struct {
	Beta      float64 `mapstructure:"beta" json:"beta"`
	SBar      float64 `mapstructure:"sbar" json:"sbar"`
	Rho       float64 `mapstructure:"rho" json:"rho"`
	Q         float64 `mapstructure:"q" json:"q"`
	EpsFloor  float64 `mapstructure:"eps_floor" json:"eps_floor"`
	Eps1      float64 `mapstructure:"eps1" json:"eps1"`
	Eps2      float64 `mapstructure:"eps2" json:"eps2"`
	MaxOuter  int     `mapstructure:"max_outer" json:"max_outer"`
	MaxInner  int     `mapstructure:"max_inner" json:"max_inner"`
	InnerTest string  `mapstructure:"inner_test" json:"inner_test"`
	// OuterRelax caps λ of the relaxed proximal point step of the outer
	// iteration (solver.ProxAL.OuterRelax, docs/rho-rules.md); 0: the
	// paper's plain step. Omitted from hashes when 0, so the paper's
	// configurations keep their trial files.
	OuterRelax float64 `mapstructure:"outer_relax" json:"outer_relax,omitempty"`
	// Polish finishes Algorithms 1 and 3 with the KKT polish on the
	// identified active set (solver.ProxAL.Polish): any tolerance, reached
	// super-linearly, the status still from the audit. Omitted from hashes
	// when false (the paper).
	Polish bool `mapstructure:"polish" json:"polish,omitempty"`
	// ParticipationConfig: partial participation (docs/participation.md).
	ParticipationConfig `mapstructure:",squash"`
}

// ValidateMethod checks the keys of MethodConfig.
func (c *MethodConfig) ValidateMethod() error {
	for _, p := range []struct {
		name string
		v    float64
	}{{"beta", c.Beta}, {"sbar", c.SBar}, {"rho", c.Rho}, {"eps1", c.Eps1}, {"eps2", c.Eps2}} {
		if !(p.v > 0) || math.IsInf(p.v, 0) {
			return &ConfigError{p.name, p.v, "must be a finite number > 0"}
		}
	}
	switch {
	case !(c.Q > 0 && c.Q < 1):
		return &ConfigError{"q", c.Q, "must be in (0, 1)"}
	case !(c.EpsFloor >= 0) || math.IsInf(c.EpsFloor, 0):
		return &ConfigError{"eps_floor", c.EpsFloor, "must be a finite number >= 0"}
	case c.Eps1 >= 1 || c.Eps2 >= 1:
		return &ConfigError{"eps1/eps2", fmt.Sprint(c.Eps1, ", ", c.Eps2), "must be < 1"}
	case c.MaxOuter < 1 || c.MaxOuter > MaxIter:
		return &ConfigError{"max_outer", c.MaxOuter, fmt.Sprintf("must be in [1, %d]", MaxIter)}
	case c.MaxInner < 1 || c.MaxInner > MaxIter:
		return &ConfigError{"max_inner", c.MaxInner, fmt.Sprintf("must be in [1, %d]", MaxIter)}
	case c.InnerTest != "paper" && c.InnerTest != "measured":
		return &ConfigError{"inner_test", c.InnerTest, "must be paper or measured"}
	case !(c.OuterRelax >= 0 && c.OuterRelax < 2):
		return &ConfigError{"outer_relax", c.OuterRelax, "must be in [0, 2) (0 or 1: the paper's plain outer step)"}
	}
	return c.ValidateParticipation()
}

// Settings are the solver settings of c, workers clients at a time.
func (c *MethodConfig) Settings(workers int) *solver.Settings {
	return &solver.Settings{MaxOuter: c.MaxOuter, MaxInner: c.MaxInner, Eps1: c.Eps1, Eps2: c.Eps2, Workers: workers}
}

// Methods returns Algorithm 1 and cProx-AL with these parameters.
func (c *MethodConfig) Methods() (*solver.ProxAL, *solver.CProxAL) {
	test := solver.InnerTestPaper
	if c.InnerTest == "measured" {
		test = solver.InnerTestMeasured
	}
	return &solver.ProxAL{Beta: c.Beta, SBar: c.SBar, Rho: c.Rho, Q: c.Q, EpsFloor: c.EpsFloor, Test: test, OuterRelax: c.OuterRelax, Polish: c.Polish},
		&solver.CProxAL{Beta: c.Beta, SBar: c.SBar, OuterRelax: c.OuterRelax, Polish: c.Polish}
}

// ProgressCounter reports finished trials across the cells of a run.
type ProgressCounter struct {
	mu          sync.Mutex
	done, total int
	fn          Progress
}

// NewProgressCounter counts total trials, reporting each to fn (may be nil).
func NewProgressCounter(total int, fn Progress) *ProgressCounter {
	return &ProgressCounter{total: total, fn: fn}
}

// Tick reports one more finished trial, labelled label.
func (p *ProgressCounter) Tick(label string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if p.fn != nil {
		p.fn(p.done, p.total, label)
	}
}

// RunOptions are how an experiment runs; none of them changes its results.
type RunOptions struct {
	// Workers is how many trials run at a time (at least 1).
	Workers int
	// Progress, if not nil, is called once per finished trial.
	Progress Progress
	// Store, if not nil, keeps every finished trial and supplies those
	// already computed under the same configuration.
	Store *Store
}

// NumWorkers is Workers, at least 1.
func (o RunOptions) NumWorkers() int { return max(1, o.Workers) }

// TrialKey names trial t of a cell in a Store.
func TrialKey(cell string, t int) string { return fmt.Sprintf("%s-t%02d", cell, t) }

// RunTrials runs trial(ctx, t) for t = 0..n-1 of the cell named key, at most
// opt.Workers at a time, reusing stored trials, and returns the trials in
// order (a pure function of the inputs, whatever the scheduling).
func RunTrials[T any](ctx context.Context, n int, opt RunOptions, pc *ProgressCounter, label, key string, seed uint64,
	trial func(ctx context.Context, t int) (T, error)) ([]T, error) {
	out := make([]T, n)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opt.NumWorkers())
	for t := 0; t < n; t++ {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			tr, err := Cached(opt.Store, TrialKey(key, t), seed, func() (T, error) { return trial(gctx, t) })
			if err != nil {
				return fmt.Errorf("%s trial %d: %w", label, t, err)
			}
			out[t] = tr
			pc.Tick(fmt.Sprintf("%s trial %d", label, t))
			return nil
		})
	}
	return out, g.Wait()
}
