package conic

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/proxal"
	"github.com/fedcon/fedcon/problems"
	"github.com/fedcon/fedcon/solver"
)

// QPConfig configures the QP experiment of the conic paper (eq. (25),
// Table 1), optionally with a norm ball ||G_iw - h_i||₂ <= t_i per party (a
// second-order-cone constraint; not in the paper). Every field is a YAML key
// of configs/conic-table1.yaml.
type QPConfig struct {
	experiments.TrialConfig `mapstructure:",squash"`
	// Cells are [d, n, m̃], the paper's column order; each cell draws
	// `trials` independent instances (the paper's "10 instances").
	Cells [][]int `mapstructure:"cells" json:"cells"`
	// W0 is the starting point: ones (the paper), zeros, or sphere (a
	// uniform point on the unit sphere, drawn per trial).
	W0 experiments.W0 `mapstructure:"w0" json:"w0"`
	// BallRows is the number of rows of G_i (0: eq. (25) as published).
	BallRows int `mapstructure:"ball_rows" json:"ball_rows"`
	// BallParties selects who has a ball: server, clients or all.
	BallParties BallParties `mapstructure:"ball_parties" json:"ball_parties"`
	// BallRatio in (0, 1) sets each radius t_i (problems.NewConicQP).
	BallRatio float64 `mapstructure:"ball_ratio" json:"ball_ratio"`
	// Subsolver solves the subproblems of parties with a ball (not linear
	// systems any more): newton (semismooth, the cone's Jacobian) or lbfgs.
	Subsolver           proxal.Subsolver `mapstructure:"subsolver" json:"subsolver"`
	proxal.MethodConfig `mapstructure:",squash"`
}

// Validate reports the first invalid value as a *ConfigError.
func (c *QPConfig) Validate() error {
	if err := experiments.ValidateAll(c.TrialConfig.ValidateTrials, c.MethodConfig.ValidateMethod); err != nil {
		return err
	}
	switch {
	case c.RNG != "fedcon":
		return &experiments.ConfigError{Field: "rng", Value: c.RNG, Reason: "the conic QP has only fedcon's stream (the authors' generator is unpublished)"}
	case c.W0 != "ones" && c.W0 != "zeros" && c.W0 != "sphere":
		return &experiments.ConfigError{Field: "w0", Value: c.W0, Reason: "must be ones, zeros or sphere"}
	case c.BallRows < 0:
		return &experiments.ConfigError{Field: "ball_rows", Value: c.BallRows, Reason: "must be >= 0"}
	case c.BallRows > 0 && c.BallParties != "server" && c.BallParties != "clients" && c.BallParties != "all":
		return &experiments.ConfigError{Field: "ball_parties", Value: c.BallParties, Reason: "must be server, clients or all"}
	case c.BallRows > 0 && !(c.BallRatio > 0 && c.BallRatio < 1):
		return &experiments.ConfigError{Field: "ball_ratio", Value: c.BallRatio, Reason: "must be in (0, 1)"}
	case c.Subsolver != "newton" && c.Subsolver != "lbfgs":
		return &experiments.ConfigError{Field: "subsolver", Value: c.Subsolver, Reason: "must be newton or lbfgs"}
	case len(c.Cells) == 0:
		return &experiments.ConfigError{Field: "cells", Value: c.Cells, Reason: "need at least one [d, n, m̃] cell"}
	}
	for _, cell := range c.Cells {
		switch {
		case len(cell) != 3:
			return &experiments.ConfigError{Field: "cells", Value: cell, Reason: "each cell is [d, n, m̃]"}
		case cell[0] < 1 || cell[0] >= 1<<20:
			return &experiments.ConfigError{Field: "dim", Value: cell[0], Reason: "must be in [1, 2^20)"}
		case cell[1] < 1 || cell[1] >= 1<<10:
			return &experiments.ConfigError{Field: "clients", Value: cell[1], Reason: "must be in [1, 1024)"}
		case cell[2] < 0 || cell[2] >= 1<<10:
			return &experiments.ConfigError{Field: "constraints", Value: cell[2], Reason: "must be in [0, 1024)"}
		case (cell[1]+1)*cell[2] >= cell[0]:
			return &experiments.ConfigError{Field: "constraints", Value: cell[2], Reason: fmt.Sprintf("(n+1)·m̃ = %d must be < d = %d: the stacked equalities of eq. (25) must stay independent", (cell[1]+1)*cell[2], cell[0])}
		}
	}
	if c.Trials >= 1<<16 {
		return &experiments.ConfigError{Field: "trials", Value: c.Trials, Reason: "must be < 65536"}
	}
	return nil
}

// TrialHash is what one trial depends on: all keys but those choosing the cells and trials.
func (c *QPConfig) TrialHash() string { return experiments.TrialHash(c, "trials", "cells") }

func (c *QPConfig) ballSpec() problems.BallSpec {
	return problems.BallSpec{Rows: c.BallRows, Ratio: c.BallRatio,
		Server:  c.BallParties == "server" || c.BallParties == "all",
		Clients: c.BallParties == "clients" || c.BallParties == "all"}
}

// QPTrial is one instance of one cell, both algorithms from one w0.
type QPTrial struct {
	D     int  `json:"d"`
	N     int  `json:"n"`
	M     int  `json:"m"`
	Trial int  `json:"trial"`
	Balls int  `json:"balls"`
	Exact bool `json:"exact_reference"` // FStar and DistOpt are known
	// FStar is f(w*) of an independent solve: the KKT system of eq. (25)
	// without balls, ExactSingleBall with one; 0 when Exact is false.
	FStar float64 `json:"f_star"`
	proxal.QPRuns
}

// QPRow aggregates one cell over its instances: Table 4's columns
// (QPStats) with f* per instance, hence its mean and std.
type QPRow struct {
	D, N, M int
	Exact   bool                `json:"exact_reference"`
	FStar   experiments.MeanStd `json:"f_star"`
	proxal.QPStats
}

// QPResult is the whole experiment.
type QPResult proxal.QPResultFile[QPRow, QPTrial]

// conicInstance draws instance t of cell (d, n, m) from its own stream.
func conicInstance(cfg *QPConfig, d, n, m, t int) (*problems.ConicQP, error) {
	stream := uint64(0xC0)<<56 | uint64(d)<<36 | uint64(n)<<26 | uint64(m)<<16 | uint64(t)
	return problems.NewConicQP(rand.New(rand.NewPCG(cfg.Seed, stream)), d, n, m, cfg.ballSpec())
}

// RunQP runs every cell and instance of cfg, opt.Workers instances at a
// time; results are identical for any workers. On cancellation it returns
// the finished cells with an error wrapping ctx.Err().
func RunQP(ctx context.Context, cfg *QPConfig, opt experiments.RunOptions) (*QPResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	res := &QPResult{}
	pc := experiments.NewProgressCounter(len(cfg.Cells)*cfg.Trials, opt.Progress)
	for _, cell := range cfg.Cells {
		d, n, m := cell[0], cell[1], cell[2]
		label := fmt.Sprintf("d=%d n=%d m=%d", d, n, m)
		trials, err := experiments.RunTrials(ctx, cfg.Trials, opt, pc, label, fmt.Sprintf("d%d-n%d-m%d", d, n, m), cfg.Seed,
			func(ctx context.Context, t int) (QPTrial, error) { return conicQPTrial(ctx, cfg, d, n, m, t) })
		if err != nil {
			return res, err
		}
		res.Trials = append(res.Trials, trials...)
		res.Rows = append(res.Rows, conicQPRow(d, n, m, trials, [2]float64{cfg.Eps1, cfg.Eps2}))
	}
	return res, nil
}

func conicQPTrial(ctx context.Context, cfg *QPConfig, d, n, m, t int) (QPTrial, error) {
	inst, err := experiments.Interruptible(ctx, func() (*problems.ConicQP, error) { return conicInstance(cfg, d, n, m, t) })
	if err != nil {
		return QPTrial{}, err
	}
	tr := QPTrial{D: d, N: n, M: m, Trial: t, Balls: inst.NumBalls()}
	var wstar []float64
	var nu1 float64 // ||ν*||₁ of the exact multipliers, zero cones only
	if tr.Balls == 0 {
		// Zero cones only: the KKT system of eq. (25) gives w*, f* and the
		// multipliers ν* the objective band below needs (ExactSingleBall
		// solves the same system and drops ν*).
		type exact struct {
			w, nu []float64
			f     float64
		}
		ex, err := experiments.Interruptible(ctx, func() (exact, error) {
			w, nu, f, err := inst.ExactKKT()
			return exact{w, nu, f}, err
		})
		if err != nil {
			return tr, err
		}
		wstar, tr.FStar, tr.Exact = ex.w, ex.f, true
		for _, v := range ex.nu {
			nu1 += math.Abs(v)
		}
	} else if tr.Balls == 1 {
		type exact struct {
			w []float64
			f float64
		}
		ex, err := experiments.Interruptible(ctx, func() (exact, error) {
			w, _, f, err := inst.ExactSingleBall()
			return exact{w, f}, err
		})
		if err != nil {
			return tr, err
		}
		wstar, tr.FStar, tr.Exact = ex.w, ex.f, true
	}
	w0 := experiments.StartPoint(cfg.W0, cfg.RNG, cfg.Seed, t, d)
	a1, cp := cfg.Methods()
	var smooth solver.SmoothSolver = &solver.Newton{}
	if cfg.Subsolver == "lbfgs" {
		smooth = solver.LBFGS{}
	}
	a1.Smooth, cp.Smooth = smooth, smooth
	for _, run := range []struct {
		dst *proxal.QPAlg
		m   solver.Method
	}{{&tr.Alg1, a1}, {&tr.CProx, cp}} {
		start := time.Now()
		// One worker per trial: trials, not clients, share the cores (RunQP).
		r, err := experiments.Interruptible(ctx, func() (*solver.Result, error) {
			return solver.Solve(ctx, inst.Problem(), w0, cfg.Settings(1), run.m)
		})
		if err != nil {
			return tr, err
		}
		*run.dst = proxal.QPAlg{
			Objective: inst.Objective(r.W), Violation: inst.Violation(r.W),
			Status: r.Status, Test: r.Test, Residuals: r.Residuals, Stats: r.Stats, Wall: time.Since(start).Seconds(),
			W: r.W, Mu: r.Mu, InnerCapped: new(r.LastCapped()),
		}
		if tr.Exact {
			run.dst.DistOpt = proxal.DistInf(r.W, wstar)
		}
		if tr.Exact && tr.Balls == 0 {
			run.dst.ObjBand = proxal.ObjBand(r, wstar, nu1, run.dst.Violation)
		}
	}
	tr.RelDiff = experiments.RelDiff(tr.Alg1.Objective, tr.CProx.Objective)
	return tr, nil
}

func conicQPRow(d, n, m int, trials []QPTrial, eps [2]float64) QPRow {
	runs := make([]*proxal.QPRuns, len(trials))
	fstar := make([]float64, len(trials))
	row := QPRow{D: d, N: n, M: m, Exact: true}
	for i := range trials {
		runs[i], fstar[i] = &trials[i].QPRuns, trials[i].FStar
		row.Exact = row.Exact && trials[i].Exact
	}
	row.FStar, row.QPStats = experiments.MeanStdOf(fstar), proxal.QPStatsOf(runs, eps)
	row.Published = experiments.PublishedRowIn("conic-published", "table1", fmt.Sprintf("%d,%d,%d", d, n, m))
	return row
}

// Tables renders the conic paper's Table 1 with the published values beside
// ours, and a table of what the paper does not report.
func (r *QPResult) Tables() []*experiments.Table {
	balls := false
	if cfg, ok := r.Info.Config.(*QPConfig); ok {
		balls = cfg.BallRows > 0
	}
	title := "Conic paper, Table 1: QP eq. (25), Algorithm 1 vs cProx-AL — mean over instances (paper beside ours)"
	if balls {
		title = "Conic paper, Table 1 setting with norm-ball (second-order-cone) constraints — mean over instances; the paper has no ball, its values are shown for scale only"
	}
	main := &experiments.Table{Title: title, Keys: 3, Header: []string{"d", "n", "m̃",
		"objective Alg. 1", "objective cProx-AL", "paper objective Alg. 1 / cProx-AL",
		"feas. viol. ×1e-4 Alg. 1 / cProx-AL", "paper ×1e-4", "outer Alg. 1 / cProx-AL", "paper outer", "f* (independent)"}}
	brief := &experiments.Table{Title: title, Keys: 3, Header: []string{"d", "n", "m̃",
		"objective A1 / cP", "paper objective", "feas. viol. ×1e-4 A1 / cP", "paper ×1e-4", "f*", "flags"}}
	main.Brief = brief
	for _, row := range r.Rows {
		pObj, pViol, pOuter := "-", "-", "-"
		if p := row.Published.Values; len(p) >= 6 {
			pObj = fmt.Sprintf("%.4f / %.4f", p[0], p[1])
			pViol = fmt.Sprintf("%.4f / %.4f", p[2], p[3])
			pOuter = fmt.Sprintf("%.1f / %.1f", p[4], p[5])
		}
		fstar := "-"
		if row.Exact {
			fstar = fmt.Sprintf("%.4f", row.FStar.Mean)
		}
		brief.Rows = append(brief.Rows, []string{
			fmt.Sprint(row.D), fmt.Sprint(row.N), fmt.Sprint(row.M),
			row.SolCell(experiments.CellA1, fmt.Sprintf("%.4f", row.Obj1.Mean)) + " / " + row.SolCell(experiments.CellCP, fmt.Sprintf("%.4f", row.ObjC.Mean)), pObj,
			row.SolCell(experiments.CellA1, fmt.Sprintf("%.4f", 1e4*row.Viol1.Mean)) + " / " + row.SolCell(experiments.CellCP, fmt.Sprintf("%.4f", 1e4*row.ViolC.Mean)), pViol,
			fstar, row.Flags,
		})
		main.Rows = append(main.Rows, []string{
			fmt.Sprint(row.D), fmt.Sprint(row.N), fmt.Sprint(row.M),
			row.SolCell(experiments.CellA1, experiments.Ms(row.Obj1, 4)), row.SolCell(experiments.CellCP, experiments.Ms(row.ObjC, 4)), pObj,
			row.SolCell(experiments.CellA1, fmt.Sprintf("%.4f", 1e4*row.Viol1.Mean)) + " / " + row.SolCell(experiments.CellCP, fmt.Sprintf("%.4f", 1e4*row.ViolC.Mean)), pViol,
			fmt.Sprintf("%.1f / %.1f", row.Outer1.Mean, row.OuterC.Mean), pOuter, fstar,
		})
	}
	main.Notes = append(main.Notes,
		"Objective Σ_i ½wᵀA_iw + b_iᵀw, mean (population std) over instances. Feasibility violation = max over the server and the clients of dist_∞(c_i(w), -K_i): ||C_iw + d_i||_∞ for the equalities of eq. (25).",
		"Paper columns: not expected to match instance by instance: instances from fedcon's stream agree with the paper's (whose generator is unpublished) only in distribution (A_i eigenvalues U[5, 10], N(0, 1) entries), so objectives differ instance by instance; f* is the mean optimum of our instances by an independent solve (KKT system; bisection on the ball's multiplier with one ball; '-' with several balls).",
		proxal.QPDivergedNote)
	extra := &experiments.Table{
		Keys:  3,
		Title: "Conic Table 1, what the paper does not report — means over instances",
		Header: []string{"d", "n", "m̃", "inner A1", "rounds A1", "MB A1", "relative difference",
			"KKT stat / feas max A1", "KKT stat / feas max cP", "||w-w*||_inf A1 / cP", "wall s A1 / cP", "flags"},
	}
	for _, row := range r.Rows {
		dist := "-"
		if row.Exact {
			dist = row.SolCell(experiments.CellA1, experiments.Sci(row.Dist1.Mean)) + " / " + row.SolCell(experiments.CellCP, experiments.Sci(row.DistC.Mean))
		}
		extra.Rows = append(extra.Rows, []string{
			fmt.Sprint(row.D), fmt.Sprint(row.N), fmt.Sprint(row.M),
			fmt.Sprintf("%.0f", row.Inner1.Mean), fmt.Sprintf("%.0f", row.Rounds1.Mean),
			fmt.Sprintf("%.2f", row.MBytes1.Mean), row.SolCell(experiments.CellBoth, experiments.MsSci(row.RelDiff)),
			row.SolCell(experiments.CellA1, fmt.Sprintf("%s / %s", experiments.Sci(row.KKT1[0]), experiments.Sci(row.KKT1[1]))),
			row.SolCell(experiments.CellCP, fmt.Sprintf("%s / %s", experiments.Sci(row.KKTC[0]), experiments.Sci(row.KKTC[1]))),
			dist, fmt.Sprintf("%.3f / %.3f", row.Wall1.Mean, row.WallC.Mean), row.Flags,
		})
	}
	extra.Detail = true
	brief.Notes = append(brief.Notes, "Means over instances of Algorithm 1 (A1) and cProx-AL (cP); feasibility violation = max over the parties of dist_∞(c_i(w), -K_i); f* the mean optimum of our instances. Flags count runs that did not end Converged, hit a cap, or ended with KKT residuals above (ε1, ε2).",
		main.Notes[1])
	extra.Notes = append(extra.Notes, "KKT residuals are Definition 1's, recomputed at the returned (w, μ); flags count runs that did not end Converged, hit an inner cap, had a local solve stop short of its tolerance, or ended Converged with these residuals above (ε1, ε2) (KKT above ε).")
	return []*experiments.Table{main, extra}
}

// TrialSchema is the trial file format of a conic QP trial: schema 4
// stores each algorithm's point and multipliers, and requires them.
func (QPTrial) TrialSchema() int { return experiments.PointTrialSchema }

// OldestTrialSchema is the format still read: schema 3 files, of a fedcon
// that stored no point, are reused and the gate counts their runs as not
// checked.
func (QPTrial) OldestTrialSchema() int { return experiments.TrialSchema }

// CheckSchema validates a trial file of the given schema beyond the
// presence of its fields: from schema 4 on, each run has its w (d entries)
// and μ, so that a deleted point fails rather than reading as an old file;
// in any schema a run has w, μ and inner_capped all or none of them (a
// schema 3 file with some was written with all three).
func (t *QPTrial) CheckSchema(schema int) error {
	if t.N < 1 || t.D < 1 || t.M < 1 || t.Trial < 0 {
		return fmt.Errorf("trial: bad cell d=%d n=%d m=%d trial %d", t.D, t.N, t.M, t.Trial)
	}
	for _, a := range []struct {
		name string
		alg  *proxal.QPAlg
	}{{"alg1", &t.Alg1}, {"cprox", &t.CProx}} {
		g := a.alg
		switch {
		case schema >= experiments.PointTrialSchema && (len(g.W) != t.D || len(g.Mu) == 0 || g.InnerCapped == nil):
			return fmt.Errorf("trial.%s: schema %d stores w (d = %d entries), mu and inner_capped; the file has %d entries of w, %d blocks of mu", a.name, schema, t.D, len(g.W), len(g.Mu))
		case (len(g.W) == 0) != (len(g.Mu) == 0) || (g.InnerCapped != nil && len(g.W) == 0):
			// w, mu and inner_capped came into the files together:
			// a file with some of them and not the others was edited.
			return fmt.Errorf("trial.%s: %d entries of w, %d blocks of mu, inner_capped %v: no fedcon wrote some of them without the others", a.name, len(g.W), len(g.Mu), g.InnerCapped != nil)
		}
	}
	return proxal.CheckQPRuns(&t.QPRuns)
}

// Quick shrinks c to the smoke run: 2 instances, the cells with n in {1, 5}.
func (c *QPConfig) Quick() {
	c.Trials = min(c.Trials, experiments.QuickTrials)
	c.Cells = slices.DeleteFunc(c.Cells, func(cell []int) bool { return len(cell) < 2 || !slices.Contains(experiments.QuickClients, cell[1]) })
}

// BallParties selects the parties with a norm ball: server, clients or all.
type BallParties string

// The parties with a ball.
const (
	BallServer  BallParties = "server"
	BallClients BallParties = "clients"
	BallAll     BallParties = "all"
)

// UnmarshalText accepts server, clients or all.
func (b *BallParties) UnmarshalText(text []byte) error {
	return experiments.UnmarshalName(b, text, false, BallServer, BallClients, BallAll)
}

// MarshalText writes the name.
func (b BallParties) MarshalText() ([]byte, error) { return []byte(b), nil }
