package proxal

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/problems"
	"github.com/fedcon/fedcon/solver"
)

// ALConfig is MethodConfig plus what the classification experiments
// (Tables 1-2) choose: the smooth subproblem solver and Algorithm 2's ρ rule.
type ALConfig struct {
	MethodConfig `mapstructure:",squash"`
	Subsolver    Subsolver `mapstructure:"subsolver" json:"subsolver"`
	// RhoRule is fixed (the paper), balance (doubling/halving), adaptive
	// (per-client normalised residuals) or hessian (matrix penalties
	// M_i = ∇²P_i + metric_shift·I); see solver.RhoRule and docs/rho-rules.md.
	RhoRule solver.RhoRule `mapstructure:"rho_rule" json:"rho_rule"`
	// MetricShift is σ ≥ 0 in M_i = ∇²P_i + σI (rho_rule hessian only).
	MetricShift float64 `mapstructure:"metric_shift" json:"metric_shift"`
	// Relax is the over-relaxation α ∈ (0, 2) of Algorithm 2 (1: none, the paper).
	Relax float64 `mapstructure:"relax" json:"relax"`
	// EpsRel caps ε_{t+1} at eps_rel·(Σ_i ε̃_i)/n of the last round (0: the paper's q^t).
	EpsRel float64 `mapstructure:"eps_rel" json:"eps_rel"`
}

func (c *ALConfig) validate() error {
	if err := c.MethodConfig.ValidateMethod(); err != nil {
		return err
	}
	if c.Subsolver != "newton" && c.Subsolver != "lbfgs" {
		return &experiments.ConfigError{Field: "subsolver", Value: c.Subsolver, Reason: "must be newton or lbfgs"}
	}
	if _, err := c.RhoRule.MarshalText(); err != nil {
		return &experiments.ConfigError{Field: "rho_rule", Value: int(c.RhoRule), Reason: "must be fixed (the paper), balance, adaptive or hessian"}
	}
	switch {
	case !(c.MetricShift >= 0) || math.IsInf(c.MetricShift, 0):
		return &experiments.ConfigError{Field: "metric_shift", Value: c.MetricShift, Reason: "must be a finite number >= 0"}
	case !(c.Relax > 0 && c.Relax < 2):
		return &experiments.ConfigError{Field: "relax", Value: c.Relax, Reason: "must be in (0, 2) (1: no over-relaxation)"}
	case !(c.EpsRel >= 0) || math.IsInf(c.EpsRel, 0):
		return &experiments.ConfigError{Field: "eps_rel", Value: c.EpsRel, Reason: "must be a finite number >= 0 (0: the paper's q^t)"}
	}
	return nil
}

// algorithm2Note says which Algorithm 2 ran, for the tables' notes.
func (c *ALConfig) algorithm2Note() string {
	test := "the measured test"
	if c.InnerTest == solver.InnerTestPaper {
		test = "test (23)"
	}
	switch c.RhoRule {
	case solver.RhoHessian:
		return fmt.Sprintf("Algorithm 2: rho rule hessian (M_i = ∇²P_i + (σ/n)I, σ = %g, docs/rho-rules.md), %s, eps_rel %g.", c.MetricShift, test, c.EpsRel)
	case solver.RhoFixed:
		return fmt.Sprintf("Algorithm 2: rho rule fixed (the paper's, ρ_i = %g), %s, eps_rel %g.", c.Rho, test, c.EpsRel)
	}
	return fmt.Sprintf("Algorithm 2: rho rule %s (ρ_i from %g), %s, eps_rel %g.", c.RhoRule, c.Rho, test, c.EpsRel)
}

// rhoLabel names Algorithm 2's penalty rule for a figure title.
func (c *ALConfig) rhoLabel() string {
	if c.RhoRule == solver.RhoFixed {
		return "ρ_i = " + titleFloat(c.Rho) + " (fixed)"
	}
	if c.OuterRelax > 1 {
		return "rho rule " + c.RhoRule.String() + ", relaxed outer step"
	}
	return "rho rule " + c.RhoRule.String()
}

// titleFloat prints v as %g does, its exponent without sign padding
// ("1e8", "1e-5", not "1e+08", "1e-05"), as the docs write it.
func titleFloat(v float64) string {
	m, e, ok := strings.Cut(strconv.FormatFloat(v, 'g', -1, 64), "e")
	if !ok {
		return m
	}
	sign := ""
	if e[0] == '-' {
		sign = "-"
	}
	return m + "e" + sign + strings.TrimLeft(e[1:], "0")
}

// outerNote says whether the outer step was relaxed ("" for the paper's
// plain step, so the paper's configurations keep their notes).
func (c *ALConfig) outerNote() string {
	if c.OuterRelax == 0 || c.OuterRelax == 1 {
		return ""
	}
	return fmt.Sprintf("Outer step: relaxed proximal point, λ estimated per iteration in [1, %g] (outer_relax; docs/rho-rules.md); the returned point is a plain step's.", c.OuterRelax)
}

// WithAlgorithm2Note adds the notes to the first table.
func WithAlgorithm2Note(ts []*experiments.Table, c *ALConfig) []*experiments.Table {
	if len(ts) > 0 && c != nil {
		ts[0].Notes = append(ts[0].Notes, c.algorithm2Note())
		if n := c.outerNote(); n != "" {
			ts[0].Notes = append(ts[0].Notes, n)
		}
		if n := c.ParticipationNote(); n != "" {
			ts[0].Notes = append(ts[0].Notes, n)
		}
	}
	return ts
}

func (c *ALConfig) smooth() solver.SmoothSolver {
	if c.Subsolver == "lbfgs" {
		return solver.LBFGS{}
	}
	return &solver.Newton{}
}

// Methods are Algorithm 1 and cProx-AL with the settings of c.
func (c *ALConfig) Methods() (*solver.ProxAL, *solver.CProxAL) {
	a1, cp := c.MethodConfig.Methods()
	a1.Smooth = c.smooth()
	a1.Rule = c.RhoRule
	if a1.Rule == solver.RhoAdaptive {
		a1.RhoStart = solver.RhoStartCurvature
	}
	a1.MetricShift, a1.Relax, a1.EpsRel = c.MetricShift, c.Relax, c.EpsRel
	cp.Smooth = c.smooth()
	return a1, cp
}

// NPConfig configures the Neyman-Pearson experiment (Table 1, Figure 1).
type NPConfig struct {
	experiments.TrialConfig `mapstructure:",squash"`
	Datasets                []string `mapstructure:"datasets" json:"datasets"`
	Clients                 []int    `mapstructure:"clients" json:"clients"`
	R                       float64  `mapstructure:"r" json:"r"`
	// ADMMStart is where Algorithm 2 starts in outer iteration k: "wk" (the
	// paper, w̃0 = w^k) or "w0" (the authors' NP code restarts at w0).
	ADMMStart ADMMStart `mapstructure:"admm_start" json:"admm_start"`
	// W0 is the starting point: sphere (a uniform point on the unit sphere
	// per trial; also when empty: the core paper), ones (the conic paper's
	// Section 5.2) or zeros.
	W0 experiments.W0 `mapstructure:"w0" json:"w0,omitempty"`
	// Data, when set, is a user's data file solved instead of Datasets.
	Data     *DataSource `mapstructure:"data" json:"data,omitempty"`
	ALConfig `mapstructure:",squash"`
}

// DataSets names the registry data sets the run reads (none for a user's
// file), so a command can find them missing before it creates anything.
func (c *NPConfig) DataSets() []string {
	if c.Data != nil {
		return nil
	}
	return c.Datasets
}

// Validate reports the first invalid value as a *ConfigError.
func (c *NPConfig) Validate() error {
	if err := experiments.ValidateAll(c.TrialConfig.ValidateTrials, c.ALConfig.validate); err != nil {
		return err
	}
	switch {
	case !(c.R > 0) || math.IsInf(c.R, 0):
		return &experiments.ConfigError{Field: "r", Value: c.R, Reason: "must be a finite number > 0"}
	case len(c.Datasets) == 0 && c.Data == nil:
		return &experiments.ConfigError{Field: "datasets", Value: c.Datasets, Reason: "need at least one of " + fmt.Sprint(datasets.Names())}
	case len(c.Clients) == 0:
		return &experiments.ConfigError{Field: "clients", Value: c.Clients, Reason: "need at least one client count"}
	case c.ADMMStart != "wk" && c.ADMMStart != "w0":
		return &experiments.ConfigError{Field: "admm_start", Value: c.ADMMStart, Reason: "must be wk (paper) or w0 (authors' code)"}
	}
	if err := validateW0(c.W0); err != nil {
		return err
	}
	if err := validateData(c.Data, len(c.Datasets) > 0, c.Clients); err != nil {
		return err
	}
	for _, n := range c.Clients {
		if n < 1 && (n != 0 || c.Data == nil) {
			return &experiments.ConfigError{Field: "clients", Value: n, Reason: "must be >= 1"}
		}
	}
	for _, d := range c.Datasets {
		if !slices.Contains(datasets.Names(), d) {
			return &experiments.ConfigError{Field: "dataset", Value: d, Reason: fmt.Sprintf("unknown (valid: %v)", datasets.Names())}
		}
	}
	return nil
}

// ClassAlg is one algorithm's outcome in one classification trial.
type ClassAlg struct {
	// Loss0 and Loss1 are per client: the class-0 (objective) and class-1
	// (constraint) mean logistic losses at the returned w. For fairness,
	// Loss0 is the client's mean loss and Loss1 its loss disparity, index 0
	// then being the server.
	Loss0     []float64 `json:"loss0"`
	Loss1     []float64 `json:"loss1"`
	Objective float64   `json:"objective"`
	// Status is the certificate at the returned point (Definition 1's
	// residuals recomputed there); Test is what the run's own test said.
	Status    solver.Status    `json:"status"`
	Test      solver.Status    `json:"test_status"`
	Residuals solver.Residuals `json:"kkt_residuals"`
	Stats     solver.Stats     `json:"stats"`
	Wall      float64          `json:"wall_seconds"`
	// W is the returned point and Mu its multipliers, one block per party
	// (index 0 the server's, empty when it has no constraint): what
	// `fedcon check` recomputes the residuals, losses and status from.
	W  []float64   `json:"w"`
	Mu [][]float64 `json:"mu"`
	// InnerCapped is solver.Result.LastCapped: the subproblem that produced
	// W stopped at its inner cap without test (10), so the status cannot be
	// Converged. nil in files written before it was stored.
	InnerCapped *bool        `json:"inner_capped,omitempty"`
	Trace       []TracePoint `json:"trace,omitempty"`
	// Participation is who answered each round of Algorithm 1 under
	// partial participation (absent under full participation).
	Participation *solver.ParticipationLog `json:"participation,omitempty"`
}

// TracePoint is one outer iteration of a run, for figures; a polished
// run ends with one more, the polished point it returned.
type TracePoint struct {
	K     int       `json:"k"`
	Loss0 []float64 `json:"loss0"` // per client
	Loss1 []float64 `json:"loss1"` // per client (fairness: per party, server first)
}

// ClassTrial is one (dataset, n, trial) with both algorithms from one w0.
type ClassTrial struct {
	Dataset string   `json:"dataset"`
	N       int      `json:"n"`
	Trial   int      `json:"trial"`
	Alg1    ClassAlg `json:"alg1"`
	CProx   ClassAlg `json:"cprox"`
	RelDiff float64  `json:"reldiff"`
}

// TrialSchema is the trial file format of a classification trial: it
// stores each algorithm's point and multipliers.
func (ClassTrial) TrialSchema() int { return experiments.PointTrialSchema }

// npCell is one (dataset, n): the partitioned clients.
type npCell struct {
	dataset string
	n, d    int
	clients []*problems.NPClient
	dropped int
	uncons1 []float64 // class-1 loss of the unconstrained logistic fit, per client
}

func buildNPCell(ds *datasets.Dataset, name string, n int, cfg *NPConfig) (*npCell, error) {
	if ds.Regression {
		return nil, &experiments.ConfigError{Field: "dataset", Value: name, Reason: "is a regression dataset; Neyman-Pearson classification needs two classes (breast-cancer-wisc, adult-a, monks-1, ...)"}
	}
	parts, dropped, n, err := npParts(ds, name, n, cfg)
	if err != nil {
		return nil, err
	}
	_, d := ds.X.Dims()
	cell := &npCell{dataset: name, n: n, d: d, dropped: dropped}
	for _, idx := range parts {
		var i0, i1 []int
		for _, i := range idx {
			if ds.Y[i] == 1 {
				i1 = append(i1, i)
			} else {
				i0 = append(i0, i)
			}
		}
		cell.clients = append(cell.clients, &problems.NPClient{
			Class0: problems.NewRows(ds.X, i0), Class1: problems.NewRows(ds.X, i1),
			Scale: 1 / float64(n), R: cfg.R,
		})
	}
	return cell, nil
}

// npParts is the rows of each client of a Neyman-Pearson cell, the rows
// the partition dropped and the number of clients (from the data when
// partitioned by a column).
func npParts(ds *datasets.Dataset, name string, n int, cfg *NPConfig) ([][]int, int, int, error) {
	if cfg.Data != nil {
		return cfg.Data.partition(ds, n, cfg.Seed, false)
	}
	// The same stream as `fedcon data export --clients n --seed S`.
	parts, dropped, err := datasets.PartitionByClass(ds.Y, n, datasets.PartitionRand(cfg.Seed))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%s with %d clients: %w", name, n, err)
	}
	return parts, dropped, n, nil
}

// validateW0 checks the w0 key of the classification experiments.
func validateW0(w0 experiments.W0) error {
	switch w0 {
	case "", "sphere", "ones", "zeros":
		return nil
	}
	return &experiments.ConfigError{Field: "w0", Value: w0, Reason: "must be sphere, ones or zeros"}
}

// NPResult is the whole experiment.
type NPResult struct {
	Info   *experiments.RunInfo `json:"run"`
	Rows   []ClassRow           `json:"rows"`
	Trials []ClassTrial         `json:"trials"`
}

// RunNP runs every (dataset, n, trial) of cfg with data from dirs.
func RunNP(ctx context.Context, cfg *NPConfig, dirs []string, opt experiments.RunOptions) (*NPResult, error) {
	return runNP(ctx, cfg, dirs, opt, false)
}

// TrialHash is what one trial depends on: all keys but those choosing the cells and trials.
// A data file enters through its checksum and settings, not its path.
func (c *NPConfig) TrialHash() string {
	cc := *c
	cc.Data = cc.Data.forHash()
	return experiments.TrialHash(&cc, "trials", "datasets", "clients")
}

func runNP(ctx context.Context, cfg *NPConfig, dirs []string, opt experiments.RunOptions, keepTrace bool) (*NPResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	res := &NPResult{}
	names := cfg.Datasets
	if cfg.Data != nil {
		names = []string{cfg.Data.Name()}
	}
	pc := experiments.NewProgressCounter(len(names)*len(cfg.Clients)*cfg.Trials, opt.Progress)
	for _, name := range names {
		ds, err := experiments.Interruptible(ctx, func() (*datasets.Dataset, error) {
			if cfg.Data != nil {
				return cfg.Data.Load(cfg.Seed)
			}
			return datasets.Load(name, dirs)
		})
		if err != nil {
			return res, err
		}
		for _, n := range cfg.Clients {
			cell, err := experiments.Interruptible(ctx, func() (*npCell, error) {
				cell, err := buildNPCell(ds, name, n, cfg)
				if err == nil {
					cell.uncons1 = unconstrainedLoss1(ds, cell)
				}
				return cell, err
			})
			if err != nil {
				return res, err
			}
			n := cell.n // by-column: from the data
			inner := max(1, opt.NumWorkers()/cfg.Trials)
			trials, err := experiments.RunTrials(ctx, cfg.Trials, opt, pc, fmt.Sprintf("%s n=%d", name, n), fmt.Sprintf("%s-n%d", name, n), cfg.Seed,
				func(ctx context.Context, t int) (ClassTrial, error) {
					return npTrial(ctx, cfg, cell, t, inner, keepTrace)
				})
			if err != nil {
				return res, err
			}
			res.Trials = append(res.Trials, trials...)
			row := ClassRowOf(name, n, trials, cfg.R, cfg.Eps1, cfg.Eps2)
			row.Dropped = cell.dropped
			row.Uncons1 = experiments.MeanStdOf(cell.uncons1)
			row.Uncons1Max = experiments.MaxOf(cell.uncons1)
			if cfg.Data == nil {
				row.Published = experiments.PublishedRowIn("published", "table1", name, fmt.Sprint(n))
			}
			res.Rows = append(res.Rows, row)
		}
	}
	return res, nil
}

// rows are each client's rows: the weights of weighted participation.
func (cell *npCell) rows() []float64 {
	out := make([]float64, len(cell.clients))
	for i, c := range cell.clients {
		out[i] = float64(c.Rows())
	}
	return out
}

func npProblem(cell *npCell) *solver.Problem {
	p := &solver.Problem{Dim: cell.d}
	for _, c := range cell.clients {
		p.Clients = append(p.Clients, c)
	}
	return p
}

func npTrial(ctx context.Context, cfg *NPConfig, cell *npCell, t, workers int, keepTrace bool) (ClassTrial, error) {
	w0 := experiments.StartPoint(cfg.W0, cfg.RNG, cfg.Seed, t, cell.d)
	a1, cp := cfg.Methods()
	if cfg.ADMMStart == "w0" {
		a1.ADMMStart = w0
	}
	a1.Participation = cfg.ParticipationFor(cfg.Seed, t, cell.rows())
	a1.Straggler = cfg.StragglerFor(cfg.Seed, t, cell.rows())
	tr := ClassTrial{Dataset: cell.dataset, N: cell.n, Trial: t}
	for _, run := range []struct {
		dst *ClassAlg
		m   solver.Method
	}{{&tr.Alg1, a1}, {&tr.CProx, cp}} {
		start := time.Now()
		r, err := experiments.Interruptible(ctx, func() (*solver.Result, error) {
			return solver.Solve(ctx, npProblem(cell), w0, cfg.Settings(workers), run.m)
		})
		if err != nil {
			return tr, err
		}
		a := ClassAlg{Status: r.Status, Test: r.Test, Residuals: r.Residuals, Stats: r.Stats, Wall: time.Since(start).Seconds(), W: r.W, Mu: r.Mu,
			Participation: r.Participation, InnerCapped: new(r.LastCapped())}
		for _, c := range cell.clients {
			a.Loss0 = append(a.Loss0, c.Loss0(r.W))
			a.Loss1 = append(a.Loss1, c.Loss1(r.W))
		}
		a.Objective = experiments.MeanStdOf(a.Loss0).Mean
		if keepTrace {
			for _, rec := range r.Trace {
				tp := TracePoint{K: rec.K}
				for _, pv := range rec.Parties[1:] { // clients: f_i = L0/n, c_i = L1 - r
					tp.Loss0 = append(tp.Loss0, pv.F*float64(cell.n))
					tp.Loss1 = append(tp.Loss1, pv.C[0]+cfg.R)
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

// unconstrainedLoss1 fits plain logistic regression on all the cell's rows
// (both classes, centrally) and returns each client's class-1 loss there: a
// value above r shows that the constraint is active.
func unconstrainedLoss1(ds *datasets.Dataset, cell *npCell) []float64 {
	w := problems.LogisticFit(problems.NewRows(ds.X, nil), ds.Y, 1e-10, 100)
	out := make([]float64, len(cell.clients))
	for i, c := range cell.clients {
		out[i] = c.Loss1(w)
	}
	return out
}

// Quick shrinks c to the smoke run: at most 2 trials, n in {1, 5, 10}
// (one n = 10 cell, so that the gate sees Algorithm 2 with many clients).
func (c *NPConfig) Quick() {
	c.Trials = min(c.Trials, experiments.QuickTrials)
	ten := slices.Contains(c.Clients, 10)
	c.Clients = experiments.KeepQuickClients(c.Clients)
	if ten {
		c.Clients = append(c.Clients, 10)
	}
}
