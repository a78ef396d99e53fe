package proxal

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/problems"
	"github.com/fedcon/fedcon/solver"
)

// FairConfig configures the fairness experiment (Table 2, Figure 2).
type FairConfig struct {
	experiments.TrialConfig `mapstructure:",squash"`
	Dataset                 string  `mapstructure:"dataset" json:"dataset"`
	Clients                 []int   `mapstructure:"clients" json:"clients"`
	R                       float64 `mapstructure:"r" json:"r"`
	// W0 is the starting point: sphere (also when empty: the core paper),
	// zeros (the conic paper's Section 5.3) or ones.
	W0 experiments.W0 `mapstructure:"w0" json:"w0,omitempty"`
	// Data, when set, is a user's data file solved instead of Dataset: it
	// needs a sensitive column and a server fraction.
	Data     *DataSource `mapstructure:"data" json:"data,omitempty"`
	ALConfig `mapstructure:",squash"`
}

// DataSets names the registry data set the run reads (none for a user's
// file), so a command can find it missing before it creates anything.
func (c *FairConfig) DataSets() []string {
	if c.Data != nil {
		return nil
	}
	return []string{c.Dataset}
}

// Validate reports the first invalid value as a *ConfigError.
func (c *FairConfig) Validate() error {
	if err := experiments.ValidateAll(c.TrialConfig.ValidateTrials, c.ALConfig.validate); err != nil {
		return err
	}
	switch {
	case !(c.R > 0) || math.IsInf(c.R, 0):
		return &experiments.ConfigError{Field: "r", Value: c.R, Reason: "must be a finite number > 0"}
	case c.Data == nil && c.Dataset != "adult-b":
		return &experiments.ConfigError{Field: "dataset", Value: c.Dataset, Reason: "the fairness experiment needs a sensitive attribute and server rows: adult-b"}
	case len(c.Clients) == 0:
		return &experiments.ConfigError{Field: "clients", Value: c.Clients, Reason: "need at least one client count"}
	case c.Data != nil && c.Data.Sensitive == "":
		return &experiments.ConfigError{Field: "sensitive", Value: `""`, Reason: "the fairness experiment needs --sensitive COLUMN of " + c.Data.File}
	case c.Data != nil && !(c.Data.ServerFraction > 0 && c.Data.ServerFraction < 1):
		return &experiments.ConfigError{Field: "server-fraction", Value: c.Data.ServerFraction, Reason: "must be in (0, 1): the fairness problem's server needs rows"}
	}
	if err := validateData(c.Data, c.Dataset != "", c.Clients); err != nil {
		return err
	}
	for _, n := range c.Clients {
		if n < 1 && (n != 0 || c.Data == nil) {
			return &experiments.ConfigError{Field: "clients", Value: n, Reason: "must be >= 1"}
		}
	}
	return validateW0(c.W0)
}

// name is the dataset's name in tables and trial files.
func (c *FairConfig) name() string {
	if c.Data != nil {
		return c.Data.Name()
	}
	return c.Dataset
}

// fairCell is one n: the server and the client parties.
type fairCell struct {
	n, d    int
	server  *problems.FairParty
	clients []*problems.FairParty
	dropped int
	uncons  []float64 // disparities of plain logistic regression, server first
}

// FairParty is the fairness party of rows idx of ds, whose sensitive
// attribute is group (0 or 1 per row).
func FairParty(ds *datasets.Dataset, group, idx []int, scale, r float64) *problems.FairParty {
	var g0, g1 []int
	for _, i := range idx {
		if group[i] == 0 {
			g0 = append(g0, i)
		} else {
			g1 = append(g1, i)
		}
	}
	return &problems.FairParty{
		G0: problems.NewLabeled(ds.X, ds.Y, g0), G1: problems.NewLabeled(ds.X, ds.Y, g1),
		Scale: scale, R: r,
	}
}

// fairFolds is the rows of each client of a fairness cell, the rows the
// partition dropped and the number of clients (from the data when
// partitioned by a column).
func fairFolds(ds *datasets.Dataset, n int, cfg *FairConfig) ([][]int, int, int, error) {
	if ds.Server == nil || ds.Group == nil || ds.Server.Group == nil {
		return nil, 0, 0, fmt.Errorf("experiments: dataset %s has no sensitive group or server rows", ds.Name)
	}
	if cfg.Data != nil {
		if err := cfg.Data.checkServerGroups(ds); err != nil {
			return nil, 0, 0, err
		}
		return cfg.Data.partition(ds, n, cfg.Seed, true)
	}
	rows, _ := ds.X.Dims()
	folds, dropped, err := datasets.PartitionFolds(rows, n, datasets.PartitionRand(cfg.Seed))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%s with %d clients: %w", ds.Name, n, err)
	}
	return folds, dropped, n, nil
}

func buildFairCell(ds *datasets.Dataset, n int, cfg *FairConfig) (*fairCell, error) {
	folds, dropped, n, err := fairFolds(ds, n, cfg)
	if err != nil {
		return nil, err
	}
	_, d := ds.X.Dims()
	srvRows, _ := ds.Server.X.Dims()
	all := make([]int, srvRows)
	for i := range all {
		all[i] = i
	}
	cell := &fairCell{n: n, d: d, dropped: dropped,
		server: FairParty(ds.Server, ds.Server.Group, all, 0, cfg.R)}
	for _, idx := range folds {
		cell.clients = append(cell.clients, FairParty(ds, ds.Group, idx, 1/float64(n), cfg.R))
	}
	// Plain logistic regression on the clients' rows: its disparities show
	// whether the constraints are active.
	var used []int
	for _, f := range folds {
		used = append(used, f...)
	}
	y := make([]float64, len(used))
	for k, i := range used {
		y[k] = ds.Y[i]
	}
	w := problems.LogisticFit(problems.NewRows(ds.X, used), y, 1e-10, 100)
	cell.uncons = append(cell.uncons, cell.server.Disparity(w))
	for _, c := range cell.clients {
		cell.uncons = append(cell.uncons, c.Disparity(w))
	}
	return cell, nil
}

func (c *fairCell) problem() *solver.Problem {
	p := &solver.Problem{Dim: c.d, Server: c.server}
	for _, cl := range c.clients {
		p.Clients = append(p.Clients, cl)
	}
	return p
}

// FairResult is the whole experiment.
type FairResult struct {
	Info   *experiments.RunInfo `json:"run"`
	Rows   []ClassRow           `json:"rows"`
	Trials []ClassTrial         `json:"trials"`
}

// TrialHash is what one trial depends on: all keys but those choosing the cells and trials.
// A data file enters through its checksum and settings, not its path.
func (c *FairConfig) TrialHash() string {
	cc := *c
	cc.Data = cc.Data.forHash()
	return experiments.TrialHash(&cc, "trials", "clients")
}

// RunFair runs every (n, trial) of cfg.
func RunFair(ctx context.Context, cfg *FairConfig, dirs []string, opt experiments.RunOptions) (*FairResult, error) {
	return runFair(ctx, cfg, dirs, opt, false)
}

func runFair(ctx context.Context, cfg *FairConfig, dirs []string, opt experiments.RunOptions, keepTrace bool) (*FairResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ds, err := experiments.Interruptible(ctx, func() (*datasets.Dataset, error) {
		if cfg.Data != nil {
			return cfg.Data.Load(cfg.Seed)
		}
		return datasets.Load(cfg.Dataset, dirs)
	})
	if err != nil {
		return nil, err
	}
	name := cfg.name()
	res := &FairResult{}
	pc := experiments.NewProgressCounter(len(cfg.Clients)*cfg.Trials, opt.Progress)
	for _, n := range cfg.Clients {
		cell, err := experiments.Interruptible(ctx, func() (*fairCell, error) { return buildFairCell(ds, n, cfg) })
		if err != nil {
			return res, err
		}
		n := cell.n // by-column: from the data
		trials, err := experiments.RunTrials(ctx, cfg.Trials, opt, pc, fmt.Sprintf("%s n=%d", name, n), fmt.Sprintf("%s-n%d", name, n), cfg.Seed,
			func(ctx context.Context, t int) (ClassTrial, error) { return fairTrial(ctx, cfg, cell, t, keepTrace) })
		if err != nil {
			return res, err
		}
		res.Trials = append(res.Trials, trials...)
		row := ClassRowOf(name, n, trials, cfg.R, cfg.Eps1, cfg.Eps2)
		row.Dropped = cell.dropped
		row.Uncons1 = experiments.MeanStdOf(cell.uncons)
		row.Uncons1Max = experiments.MaxOf(cell.uncons)
		if cfg.Data == nil {
			row.Published = experiments.PublishedRowIn("published", "table2", fmt.Sprint(n))
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

func fairTrial(ctx context.Context, cfg *FairConfig, cell *fairCell, t int, keepTrace bool) (ClassTrial, error) {
	w0 := experiments.StartPoint(cfg.W0, cfg.RNG, cfg.Seed, t, cell.d)
	a1, cp := cfg.Methods()
	rows := make([]float64, len(cell.clients))
	for i, c := range cell.clients {
		rows[i] = float64(c.Rows())
	}
	a1.Participation = cfg.ParticipationFor(cfg.Seed, t, rows)
	a1.Straggler = cfg.StragglerFor(cfg.Seed, t, rows)
	tr := ClassTrial{Dataset: cfg.name(), N: cell.n, Trial: t}
	for _, run := range []struct {
		dst *ClassAlg
		m   solver.Method
	}{{&tr.Alg1, a1}, {&tr.CProx, cp}} {
		start := time.Now()
		r, err := experiments.Interruptible(ctx, func() (*solver.Result, error) {
			return solver.Solve(ctx, cell.problem(), w0, cfg.Settings(1), run.m)
		})
		if err != nil {
			return tr, err
		}
		a := ClassAlg{Status: r.Status, Test: r.Test, Residuals: r.Residuals, Stats: r.Stats, Wall: time.Since(start).Seconds(), W: r.W, Mu: r.Mu,
			Participation: r.Participation, InnerCapped: new(r.LastCapped())}
		// Loss1 holds the disparities of the server, then the clients.
		a.Loss1 = append(a.Loss1, cell.server.Disparity(r.W))
		for _, c := range cell.clients {
			a.Loss0 = append(a.Loss0, c.Loss(r.W))
			a.Loss1 = append(a.Loss1, c.Disparity(r.W))
		}
		a.Objective = experiments.MeanStdOf(a.Loss0).Mean
		if keepTrace {
			for _, rec := range r.Trace {
				tp := TracePoint{K: rec.K}
				for i, pv := range rec.Parties {
					tp.Loss1 = append(tp.Loss1, math.Abs(pv.C[0]+cfg.R))
					if i > 0 {
						tp.Loss0 = append(tp.Loss0, pv.F*float64(cell.n))
					}
				}
				a.Trace = append(a.Trace, tp)
			}
			if r.Polished { // the returned point is not the last iterate
				a.Trace = append(a.Trace, TracePoint{K: len(r.Trace), Loss0: a.Loss0, Loss1: a.Loss1})
			}
		}
		*run.dst = a
	}
	tr.RelDiff = experiments.RelDiff(tr.Alg1.Objective, tr.CProx.Objective)
	return tr, nil
}

// Tables renders Table 2.
func (r *FairResult) Tables() []*experiments.Table {
	rr := 0.1
	var al *ALConfig
	title := "Table 2: fairness, eq. (32), adult-b — mean loss (objective), loss disparity |L(sex=0) - L(sex=1)| over clients and server (feasibility)"
	if cfg, ok := r.Info.Config.(*FairConfig); ok {
		rr, al = cfg.R, &cfg.ALConfig
		if d := cfg.Data; d != nil {
			title = fmt.Sprintf("Fairness, eq. (32), %s — mean loss (objective), loss disparity |L(%s=0) - L(%s=1)| over clients and server (feasibility)",
				d.Name(), d.Sensitive, d.Sensitive)
		}
	}
	return WithAlgorithm2Note(ClassTables(title,
		"disparity", r.Rows, false, rr, func(row ClassRow) []float64 { return row.Published.Values }), al)
}

// Figure2Result is Figure 2: one trial per n.
type Figure2Result struct {
	Info   *experiments.RunInfo `json:"run"`
	Figure experiments.Figure   `json:"figure"`
	Trials []ClassTrial         `json:"trials"`
}

// RunFigure2 runs one trial per n of cfg and returns per outer iteration of
// Algorithm 1: the mean and min-max over clients of the local disparity, the
// server's global disparity, the threshold, and the objective.
func RunFigure2(ctx context.Context, cfg *FairConfig, dirs []string, opt experiments.RunOptions) (*Figure2Result, error) {
	c := *cfg
	c.Trials = 1
	res, err := runFair(ctx, &c, dirs, opt, true)
	if err != nil {
		return nil, err
	}
	out := &Figure2Result{Trials: res.Trials, Figure: experiments.Figure{
		Title:   fmt.Sprintf("Figure 2: Algorithm 1 on fairness-constrained classification, %s, %s (one trial)", c.Dataset, c.rhoLabel()),
		Caption: "Curves: the mean over the n clients at each outer iteration; shaded band: their minimum to maximum. Dash-dot: the server's global disparity; dashed: the threshold r. One trial per panel."}}
	for _, t := range res.Trials {
		var local, obj [][]float64
		srv := experiments.Series{Name: "global disparity (server)", Color: 0, Dash: "dashdot"}
		for k, tp := range t.Alg1.Trace {
			local = append(local, tp.Loss1[1:])
			obj = append(obj, tp.Loss0)
			srv.X = append(srv.X, float64(k+1))
			srv.Y = append(srv.Y, tp.Loss1[0])
		}
		out.Figure.Panels = append(out.Figure.Panels, experiments.Panel{
			Title: fmt.Sprintf("n = %d", t.N), XLabel: "outer iteration", YLabel: "loss / disparity",
			Series: []experiments.Series{experiments.BandSeries("objective (mean loss)", 0, obj), experiments.BandSeries("local disparity", 1, local), srv},
			HLines: []experiments.HLine{{Name: fmt.Sprintf("threshold r = %g", c.R), Y: c.R}},
		})
		if len(t.Alg1.Trace) > t.Alg1.Stats.OuterIterations && !strings.Contains(out.Figure.Caption, polishedNote) {
			out.Figure.Caption += " " + polishedNote
		}
	}
	return out, nil
}

// polishedNote explains a trace one point longer than the outer iterations.
const polishedNote = "A polished run's last point is the KKT polish's point it returned."

// Quick shrinks c to the smoke run: at most 2 trials, n in {1, 5}.
func (c *FairConfig) Quick() {
	c.Trials = min(c.Trials, experiments.QuickTrials)
	c.Clients = experiments.KeepQuickClients(c.Clients)
}
