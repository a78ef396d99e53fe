package proxal

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	"gonum.org/v1/gonum/mat"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/internal/numpyrand"
	"github.com/fedcon/fedcon/problems"
	"github.com/fedcon/fedcon/solver"
)

// QPConfig configures the LCQP experiment of eq. (84) (Table 4). Every field
// is a YAML key of configs/table4.yaml.
type QPConfig struct {
	experiments.TrialConfig `mapstructure:",squash"`
	Cells                   [][]int `mapstructure:"cells" json:"cells"`
	MethodConfig            `mapstructure:",squash"`
}

// Validate reports the first invalid value as a *ConfigError.
func (c *QPConfig) Validate() error {
	if err := experiments.ValidateAll(c.TrialConfig.ValidateTrials, c.MethodConfig.ValidateMethod); err != nil {
		return err
	}
	switch {
	case len(c.Cells) == 0:
		return &experiments.ConfigError{Field: "cells", Value: c.Cells, Reason: "need at least one [n, d, m] cell"}
	}
	for _, cell := range c.Cells {
		switch {
		case len(cell) != 3:
			return &experiments.ConfigError{Field: "cells", Value: cell, Reason: "each cell is [n, d, m]"}
		case cell[0] < 1 || cell[0] >= 1<<20:
			return &experiments.ConfigError{Field: "clients", Value: cell[0], Reason: "must be in [1, 2^20)"}
		case cell[1] < 1 || cell[1] >= 1<<20:
			return &experiments.ConfigError{Field: "dim", Value: cell[1], Reason: "must be in [1, 2^20)"}
		case cell[2] < 1 || cell[2] >= 1<<20:
			return &experiments.ConfigError{Field: "constraints", Value: cell[2], Reason: "must be in [1, 2^20)"}
		case (cell[0]+1)*cell[2] >= cell[1]:
			return &experiments.ConfigError{Field: "constraints", Value: cell[2], Reason: fmt.Sprintf("(clients+1)·constraints = %d equality rows must be < dim = %d: "+
				"the stacked constraints of the server and %d clients must stay independent", (cell[0]+1)*cell[2], cell[1], cell[0])}
		}
	}
	return nil
}

// QPAlg is one algorithm's outcome in one trial.
type QPAlg struct {
	Objective float64 `json:"objective"`
	Violation float64 `json:"feasibility_violation"`
	DistOpt   float64 `json:"dist_to_optimum_inf"`
	// ObjBand bounds |f(w) - f*| from the KKT residuals at w by convexity:
	// ||r||₂·||w - w*||₂ + max(||μ||₁, ||ν*||₁)·||Cw + d||_∞ with r = ∇f + Cᵀμ.
	ObjBand float64 `json:"objective_kkt_band"`
	// Status is the certificate at the returned point; Test is what the
	// run's own test said (see solver.Result).
	Status    solver.Status    `json:"status"`
	Test      solver.Status    `json:"test_status"`
	Residuals solver.Residuals `json:"kkt_residuals"`
	Stats     solver.Stats     `json:"stats"`
	Wall      float64          `json:"wall_seconds"`
	Trace     []QPTraceEntry   `json:"-"`
	// W is the returned point and Mu its multipliers, one block per party
	// (index 0 the server's): what `fedcon check` recomputes the
	// residuals, objective, violation and status of a trial from. Table 4
	// requires them; conic Table 1 files of an older fedcon lack them
	// (omitted), and the gate says it did not check those runs.
	W  []float64   `json:"w,omitempty"`
	Mu [][]float64 `json:"mu,omitempty"`
	// Participation is who answered each round of Algorithm 1 under
	// partial participation (absent under full participation).
	Participation *solver.ParticipationLog `json:"participation,omitempty"`
	// InnerCapped is solver.Result.LastCapped, as ClassAlg's (nil in
	// older files).
	InnerCapped *bool `json:"inner_capped,omitempty"`
}

// QPTraceEntry is kept for figures; not serialised per trial.
type QPTraceEntry = solver.OuterRecord

// QPRuns are both algorithms' runs of one QP trial, from the same w0: the
// part of a trial shared by Table 4 (QPTrial) and the conic paper's Table 1
// (conic.QPTrial).
type QPRuns struct {
	Alg1    QPAlg   `json:"alg1"`
	CProx   QPAlg   `json:"cprox"`
	RelDiff float64 `json:"reldiff"` // |f_A1 - f_cP| / |f_cP|
}

// QPTrial is one (cell, trial): both algorithms from the same w0.
type QPTrial struct {
	N     int     `json:"n"`
	D     int     `json:"d"`
	M     int     `json:"m"`
	Trial int     `json:"trial"`
	FStar float64 `json:"f_star"`     // the cell's exact optimum
	Nu1   float64 `json:"nu_star_l1"` // ||ν*||₁ of the cell's exact multipliers
	QPRuns
}

// TrialSchema is the trial file format of a QP trial: it stores each
// algorithm's point and multipliers.
func (QPTrial) TrialSchema() int { return experiments.PointTrialSchema }

// QPStats aggregates the QPRuns of one cell over its trials (mean and
// population std, maxima of the KKT residuals, status flags; diverged runs
// only in the cost columns): the columns shared by Table 4 (QPRow) and the
// conic paper's Table 1 (conic.QPRow).
type QPStats struct {
	Obj1    experiments.MeanStd `json:"objective_alg1"`
	ObjC    experiments.MeanStd `json:"objective_cprox"`
	RelDiff experiments.MeanStd `json:"reldiff"`
	Viol1   experiments.MeanStd `json:"feasviol_alg1"`
	ViolC   experiments.MeanStd `json:"feasviol_cprox"`
	Outer1  experiments.MeanStd `json:"outer_alg1"`
	OuterC  experiments.MeanStd `json:"outer_cprox"`
	Inner1  experiments.MeanStd `json:"inner_alg1"`
	Rounds1 experiments.MeanStd `json:"rounds_alg1"`
	MBytes1 experiments.MeanStd `json:"mbytes_alg1"`
	Wall1   experiments.MeanStd `json:"wall_alg1"`
	WallC   experiments.MeanStd `json:"wall_cprox"`
	Dist1   experiments.MeanStd `json:"dist_opt_alg1"`
	DistC   experiments.MeanStd `json:"dist_opt_cprox"`
	KKT1    [2]float64          `json:"kkt_max_alg1"` // max stationarity, feasibility
	KKTC    [2]float64          `json:"kkt_max_cprox"`
	Flags   string              `json:"flags"`
	experiments.Divergence
	Published experiments.PublishedRow `json:"published,omitzero"`
}

// QPRow aggregates one cell over its trials.
type QPRow struct {
	N, D, M int
	FStar   float64 `json:"f_star"`
	QPStats
	Nu1   float64 `json:"nu_star_l1"`
	Band1 float64 `json:"objective_kkt_band_alg1"`
	BandC float64 `json:"objective_kkt_band_cprox"`
}

// QPResultFile is the layout of a QP experiment's result file: the run
// record, one row per cell, every trial.
type QPResultFile[R, T any] struct {
	Info   *experiments.RunInfo `json:"run"`
	Rows   []R                  `json:"rows"`
	Trials []T                  `json:"trials"`
}

// QPResult is the whole experiment: what the result files hold.
type QPResult QPResultFile[QPRow, QPTrial]

// QPInstance builds cell (n, d, m): our stream or the authors' numpy one.
func QPInstance(cfg *QPConfig, n, d, m int) (*problems.LCQP, error) {
	if cfg.RNG == "numpy" {
		return fromNumpy(numpyrand.GenerateLCQP(d, n, m)), nil
	}
	stream := uint64(n)<<40 | uint64(d)<<20 | uint64(m)
	return problems.NewLCQP(rand.New(rand.NewPCG(cfg.Seed, stream)), d, n, m)
}

// QPStart returns trial t's w0, shared by both algorithms.
func QPStart(cfg *QPConfig, t, d int) []float64 {
	if cfg.RNG == "numpy" {
		return numpyrand.TrialStart(t, d)
	}
	return problems.UnitSphere(rand.New(rand.NewPCG(cfg.Seed, 1<<62|uint64(t))), d)
}

// fromNumpy converts the authors' layout (server = last block, zeroed A, b, d).
func fromNumpy(in *numpyrand.LCQPInstance) *problems.LCQP {
	q := &problems.LCQP{Dim: in.D, N: in.N, M: in.M}
	for i := 0; i <= in.N; i++ {
		c := mat.NewDense(in.M, in.D, append([]float64(nil), in.C[i]...))
		dv := append([]float64(nil), in.Dv[i]...)
		if i == in.N {
			q.Server = &problems.QPParty{C: c, D: dv}
			continue
		}
		q.Clients = append(q.Clients, &problems.QPParty{
			A: mat.NewSymDense(in.D, append([]float64(nil), in.A[i]...)),
			B: append([]float64(nil), in.B[i]...), C: c, D: dv,
		})
	}
	return q
}

// QPMethods are the methods with a shared factorisation cache.
func (cfg *QPConfig) QPMethods(cache *solver.QuadCache) (*solver.ProxAL, *solver.CProxAL) {
	a1, cp := cfg.Methods()
	a1.Cache, cp.Cache = cache, cache
	return a1, cp
}

// TrialHash is what one trial depends on: all keys but those choosing the cells and trials.
func (c *QPConfig) TrialHash() string { return experiments.TrialHash(c, "trials", "cells") }

// RunQP runs every cell and trial of cfg with opt.Workers trials at a time.
// Results are identical for any workers. On cancellation it returns the
// finished cells with an error wrapping ctx.Err().
func RunQP(ctx context.Context, cfg *QPConfig, opt experiments.RunOptions) (*QPResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	workers, progress := opt.NumWorkers(), opt.Progress
	// All (cell, trial) jobs share one pool, so that building a cell's
	// instance and factorisations (serial work) overlaps other trials.
	type cellState struct {
		once   sync.Once
		ready  chan struct{} // closed when the fields below are set
		inst   *problems.LCQP
		wstar  []float64
		nu1    float64 // ||ν*||₁
		fstar  float64
		cache  *solver.QuadCache
		err    error
		trials []QPTrial
	}
	cells := make([]*cellState, len(cfg.Cells))
	for i := range cells {
		cells[i] = &cellState{ready: make(chan struct{}), trials: make([]QPTrial, cfg.Trials)}
	}
	total := len(cfg.Cells) * cfg.Trials
	done := 0
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	// Trials, not clients, share the cores: one trial's per-iteration
	// synchronisation made client-level parallelism 1.7x slower here.
	g.SetLimit(workers)
	for ci, cell := range cfg.Cells {
		n, d, m := cell[0], cell[1], cell[2]
		cs := cells[ci]
		for t := 0; t < cfg.Trials; t++ {
			g.Go(func() error {
				if err := gctx.Err(); err != nil {
					return err
				}
				key := experiments.TrialKey(fmt.Sprintf("n%d-d%d-m%d", n, d, m), t)
				tr, err := experiments.Cached(opt.Store, key, cfg.Seed, func() (QPTrial, error) {
					// The build (minutes at d = 3000) runs apart, so that an
					// interrupt stops the waiting trials at once.
					cs.once.Do(func() {
						go func() {
							defer close(cs.ready)
							cs.inst, cs.err = QPInstance(cfg, n, d, m)
							if cs.err == nil {
								var nu []float64
								cs.wstar, nu, cs.fstar, cs.err = cs.inst.ExactKKT()
								for _, v := range nu {
									cs.nu1 += math.Abs(v)
								}
							}
							cs.cache = solver.NewQuadCache()
						}()
					})
					select {
					case <-cs.ready:
					case <-gctx.Done():
						return QPTrial{}, gctx.Err()
					}
					if cs.err != nil {
						return QPTrial{}, cs.err
					}
					return qpTrial(gctx, cfg, cs.inst, cs.cache, cs.wstar, cs.fstar, cs.nu1, t, 1)
				})
				if err != nil {
					return fmt.Errorf("cell n=%d d=%d m=%d trial %d: %w", n, d, m, t, err)
				}
				cs.trials[t] = tr
				mu.Lock()
				done++
				if progress != nil {
					progress(done, total, fmt.Sprintf("n=%d d=%d m=%d trial %d", n, d, m, t))
				}
				mu.Unlock()
				return nil
			})
		}
	}
	err := g.Wait()
	res := &QPResult{}
	for ci, cell := range cfg.Cells {
		cs := cells[ci]
		complete := true
		for _, tr := range cs.trials {
			complete = complete && tr.N != 0
		}
		if !complete {
			continue // interrupted: only finished cells are aggregated
		}
		res.Trials = append(res.Trials, cs.trials...)
		row := QPRowOf(cell[0], cell[1], cell[2], cs.trials[0].FStar, cs.trials, [2]float64{cfg.Eps1, cfg.Eps2})
		row.Nu1 = cs.trials[0].Nu1
		res.Rows = append(res.Rows, row)
	}
	return res, err
}

// ObjBand bounds |f(w) - f*| at the returned point of an equality-
// constrained convex QP (QPAlg.ObjBand): by convexity, with g = ∇f(w) + Cᵀμ
// and Cw* + d = 0, f(w) - f* <= gᵀ(w - w*) - μᵀ(Cw + d) and
// f* - f(w) <= ν*ᵀ(Cw + d); ||g||₂ <= √d·||g||_∞. nu1 is ||ν*||₁ and
// violation ||Cw + d||_∞.
func ObjBand(r *solver.Result, wstar []float64, nu1, violation float64) float64 {
	var mu1, dist2 float64
	for _, mi := range r.Mu {
		for _, v := range mi {
			mu1 += math.Abs(v)
		}
	}
	for j := range r.W {
		dist2 += (r.W[j] - wstar[j]) * (r.W[j] - wstar[j])
	}
	return math.Sqrt(float64(len(r.W)))*r.Residuals.Stationarity*math.Sqrt(dist2) + math.Max(mu1, nu1)*violation
}

func qpTrial(ctx context.Context, cfg *QPConfig, inst *problems.LCQP, cache *solver.QuadCache, wstar []float64, fstar, nu1 float64, t, workers int) (QPTrial, error) {
	n, d, m := inst.N, inst.Dim, inst.M
	w0 := QPStart(cfg, t, d)
	a1, cp := cfg.QPMethods(cache)
	rows := make([]float64, n) // a QP client holds one block: equal weights
	for i := range rows {
		rows[i] = 1
	}
	a1.Participation = cfg.ParticipationFor(cfg.Seed, t, rows)
	a1.Straggler = cfg.StragglerFor(cfg.Seed, t, rows)
	tr := QPTrial{N: n, D: d, M: m, Trial: t, FStar: fstar, Nu1: nu1}
	for _, run := range []struct {
		dst *QPAlg
		m   solver.Method
	}{{&tr.Alg1, a1}, {&tr.CProx, cp}} {
		start := time.Now()
		r, err := experiments.Interruptible(ctx, func() (*solver.Result, error) {
			return solver.Solve(ctx, inst.Problem(), w0, cfg.Settings(workers), run.m)
		})
		if err != nil {
			return tr, err
		}
		*run.dst = QPAlg{
			Objective: inst.Objective(r.W), Violation: inst.Violation(r.W),
			DistOpt: DistInf(r.W, wstar), Status: r.Status, Test: r.Test, Residuals: r.Residuals,
			Stats: r.Stats, Wall: time.Since(start).Seconds(), Trace: r.Trace, W: r.W, Mu: r.Mu,
			Participation: r.Participation,
			InnerCapped:   new(r.LastCapped()),
		}
		run.dst.ObjBand = ObjBand(r, wstar, nu1, run.dst.Violation)
	}
	tr.RelDiff = experiments.RelDiff(tr.Alg1.Objective, tr.CProx.Objective)
	return tr, nil
}

// DistInf is ||a - b||_inf.
func DistInf(a, b []float64) float64 {
	var s float64
	for i := range a {
		s = math.Max(s, math.Abs(a[i]-b[i]))
	}
	return s
}

// QPRowOf aggregates the trials of cell (n, d, m) into its row.
func QPRowOf(n, d, m int, fstar float64, trials []QPTrial, eps [2]float64) QPRow {
	runs := make([]*QPRuns, len(trials))
	for i := range trials {
		runs[i] = &trials[i].QPRuns
	}
	row := QPRow{N: n, D: d, M: m, FStar: fstar, QPStats: QPStatsOf(runs, eps)}
	for _, t := range trials {
		if t.Alg1.Status != solver.Diverged {
			row.Band1 = math.Max(row.Band1, t.Alg1.ObjBand)
		}
		if t.CProx.Status != solver.Diverged {
			row.BandC = math.Max(row.BandC, t.CProx.ObjBand)
		}
	}
	row.Published = experiments.PublishedRowIn("published", "table4", fmt.Sprintf("%d,%d,%d", n, d, m))
	return row
}

// QPStatsOf aggregates one cell's runs; Published is left to the caller.
// Diverged runs count in the cost columns only (Divergence).
func QPStatsOf(runs []*QPRuns, eps [2]float64) QPStats {
	all := func(*QPRuns) bool { return true }
	ok1 := func(r *QPRuns) bool { return r.Alg1.Status != solver.Diverged }
	okC := func(r *QPRuns) bool { return r.CProx.Status != solver.Diverged }
	both := func(r *QPRuns) bool { return ok1(r) && okC(r) }
	col := func(keep func(*QPRuns) bool, f func(*QPRuns) float64) experiments.MeanStd {
		var x []float64
		for _, r := range runs {
			if keep(r) {
				x = append(x, f(r))
			}
		}
		return experiments.MeanStdOf(x)
	}
	s := QPStats{
		Obj1:    col(ok1, func(r *QPRuns) float64 { return r.Alg1.Objective }),
		ObjC:    col(okC, func(r *QPRuns) float64 { return r.CProx.Objective }),
		RelDiff: col(both, func(r *QPRuns) float64 { return r.RelDiff }),
		Viol1:   col(ok1, func(r *QPRuns) float64 { return r.Alg1.Violation }),
		ViolC:   col(okC, func(r *QPRuns) float64 { return r.CProx.Violation }),
		Outer1:  col(all, func(r *QPRuns) float64 { return float64(r.Alg1.Stats.OuterIterations) }),
		OuterC:  col(all, func(r *QPRuns) float64 { return float64(r.CProx.Stats.OuterIterations) }),
		Inner1:  col(all, func(r *QPRuns) float64 { return float64(r.Alg1.Stats.InnerIterations) }),
		Rounds1: col(all, func(r *QPRuns) float64 { return float64(r.Alg1.Stats.Rounds) }),
		MBytes1: col(all, func(r *QPRuns) float64 {
			return float64(r.Alg1.Stats.BytesDown()+r.Alg1.Stats.BytesUp()) / 1e6
		}),
		Wall1:      col(all, func(r *QPRuns) float64 { return r.Alg1.Wall }),
		WallC:      col(all, func(r *QPRuns) float64 { return r.CProx.Wall }),
		Dist1:      col(ok1, func(r *QPRuns) float64 { return r.Alg1.DistOpt }),
		DistC:      col(okC, func(r *QPRuns) float64 { return r.CProx.DistOpt }),
		Divergence: experiments.Divergence{Trials: len(runs)},
	}
	flags := map[string]int{}
	for _, r := range runs {
		if both(r) {
			s.RelDiffTrials++
		}
		Tally(flags, "A1", r.Alg1.Status, r.Alg1.Stats, r.Alg1.Residuals, eps, &s.KKT1, &s.Diverged1)
		Tally(flags, "cP", r.CProx.Status, r.CProx.Stats, r.CProx.Residuals, eps, &s.KKTC, &s.DivergedC)
	}
	s.Flags = experiments.FlagString(flags)
	return s
}

// Quick shrinks c to the smoke run: 2 trials, the cells with n in {1, 5}.
func (c *QPConfig) Quick() {
	c.Trials = experiments.QuickTrials
	c.Cells = slices.DeleteFunc(c.Cells, func(cell []int) bool { return len(cell) == 0 || !slices.Contains(experiments.QuickClients, cell[0]) })
}
