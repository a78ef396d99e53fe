package ssca

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"golang.org/x/sync/errgroup"

	"github.com/fedcon/fedcon/experiments"
)

// SGDGrid is configs/ssca/sgd-grid.yaml: the learning-rate grid of the SGD
// baselines, r_t = a/t^beta, and the tuning seeds Seed..Seed+Seeds-1,
// disjoint from the reporting seeds.
type SGDGrid struct {
	A     []float64 `mapstructure:"a" json:"a" yaml:"a"`
	Beta  []float64 `mapstructure:"beta" json:"beta" yaml:"beta"`
	Seed  uint64    `mapstructure:"seed" json:"seed" yaml:"seed"`
	Seeds int       `mapstructure:"seeds" json:"seeds" yaml:"seeds"`
}

// Validate checks the grid and that its seeds miss the reporting ones.
func (g *SGDGrid) Validate(cfg *Config) error {
	switch {
	case len(g.A) == 0 || len(g.Beta) == 0:
		return &experiments.ConfigError{Field: "a/beta", Value: fmt.Sprint(g.A, g.Beta), Reason: "need at least one value each"}
	case g.Seeds < 1:
		return &experiments.ConfigError{Field: "seeds", Value: g.Seeds, Reason: "must be >= 1"}
	case g.Seed < cfg.Seed+uint64(cfg.Runs) && cfg.Seed < g.Seed+uint64(g.Seeds):
		return &experiments.ConfigError{Field: "seed", Value: g.Seed, Reason: fmt.Sprintf("tuning seeds overlap the reporting seeds %d..%d", cfg.Seed, cfg.Seed+uint64(cfg.Runs)-1)}
	}
	for _, a := range g.A {
		if err := (SGDRate{A: a}).validate(); err != nil {
			return &experiments.ConfigError{Field: "a", Value: a, Reason: "must be a finite number > 0"}
		}
	}
	for _, b := range g.Beta {
		if err := (SGDRate{A: 1, Beta: b}).validate(); err != nil {
			return &experiments.ConfigError{Field: "beta", Value: b, Reason: "must be in [0, 1]"}
		}
	}
	return nil
}

// TuneResult is the outcome of the grid search: the chosen rate per
// baseline and the table of every grid point's mean final cost.
type TuneResult struct {
	Info   *experiments.RunInfo `json:"info"`
	Grid   *SGDGrid             `json:"grid"`
	Chosen map[string]SGDRate   `json:"chosen"`
	Table  *experiments.Table   `json:"table"`
}

// SGDBaselines are the SGD specs of Figures 2-3 (with λ of the config).
func (c *Config) SGDBaselines() []Spec {
	var out []Spec
	for _, s := range append(c.figureSpecs("figure2"), c.figureSpecs("figure3")...) {
		if !s.ssca() {
			s.FinalOnly = true
			out = append(out, s)
		}
	}
	return out
}

// RunSGDTune picks, per SGD baseline, the grid point with the lowest mean
// F(w^T) over the grid's seeds (a diverged run counts as +Inf).
func RunSGDTune(ctx context.Context, cfg *Config, data *Data, grid *SGDGrid, opt experiments.RunOptions) (*TuneResult, error) {
	specs := cfg.SGDBaselines()
	type point struct {
		spec Spec
		rate SGDRate
		cost []float64
	}
	var pts []*point
	for _, s := range specs {
		for _, a := range grid.A {
			for _, b := range grid.Beta {
				pts = append(pts, &point{spec: s, rate: SGDRate{A: a, Beta: b}, cost: make([]float64, grid.Seeds)})
			}
		}
	}
	pc := experiments.NewProgressCounter(len(pts)*grid.Seeds, opt.Progress)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opt.NumWorkers())
	for _, p := range pts {
		c := *cfg
		c.Seed = grid.Seed
		run := p.spec
		run.Rate = p.rate
		for r := 0; r < grid.Seeds; r++ {
			g.Go(func() error {
				if err := gctx.Err(); err != nil {
					return err
				}
				key := fmt.Sprintf("tune-%s-t%02d", run.Key(), r)
				tr, err := experiments.Cached(opt.Store, key, c.Seed+uint64(r), func() (Trial, error) { return RunTrial(gctx, &c, data, run, r) })
				if err != nil {
					return fmt.Errorf("%s a=%g beta=%g run %d: %w", p.spec.Label(), p.rate.A, p.rate.Beta, r, err)
				}
				p.cost[r] = math.Inf(1)
				if tr.Status != statusDiverged && len(tr.T) > 0 && tr.T[len(tr.T)-1] == cfg.Rounds {
					p.cost[r] = tr.TrainCost[len(tr.TrainCost)-1]
				}
				pc.Tick(key)
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	res := &TuneResult{Grid: grid, Chosen: map[string]SGDRate{},
		Table: &experiments.Table{Title: fmt.Sprintf("SGD learning rates r_t = a/t^beta: mean F(w^T) over seeds %d..%d (%s)", grid.Seed, grid.Seed+uint64(grid.Seeds)-1, evalNote(cfg)+" training set"+map[bool]string{true: ", float32 first layer"}[cfg.EvalPrecision == "float32"]),
			Header: []string{"baseline", "a", "beta", "mean F(w^T)", "chosen"}}}
	best := map[string]float64{}
	for _, p := range pts {
		var m float64
		for _, v := range p.cost {
			m += v / float64(len(p.cost))
		}
		k := p.spec.rateKey()
		if b, ok := best[k]; !ok || m < b {
			best[k], res.Chosen[k] = m, p.rate
		}
	}
	for _, p := range pts {
		var m float64
		for _, v := range p.cost {
			m += v / float64(len(p.cost))
		}
		mark, ms := "", "diverged"
		if res.Chosen[p.spec.rateKey()] == p.rate {
			mark = "*"
		}
		if !math.IsInf(m, 0) {
			ms = fmt.Sprintf("%.4f", m)
		}
		res.Table.Rows = append(res.Table.Rows, []string{p.spec.rateKey(), strconv.FormatFloat(p.rate.A, 'g', -1, 64), strconv.FormatFloat(p.rate.Beta, 'g', -1, 64), ms, mark})
	}
	return res, nil
}
