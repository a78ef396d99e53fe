package experiments

import (
	"context"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"
)

// TrialConfig is what every experiment draws its randomness from: YAML keys
// seed, trials and rng.
type TrialConfig struct {
	Seed   uint64 `mapstructure:"seed" json:"seed"`
	Trials int    `mapstructure:"trials" json:"trials"`
	// RNG is "fedcon" (our PCG streams) or "numpy" (the authors' legacy
	// RandomState stream for instances and w0).
	RNG RNG `mapstructure:"rng" json:"rng"`
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
