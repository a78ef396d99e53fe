package ssca

import (
	"fmt"
	"math"
	"strconv"

	"github.com/fedcon/fedcon/experiments"
)

// Result is one SSCA figure's output: every trial (each point with its
// seed), the figure data and the summary table.
type Result struct {
	Info       *experiments.RunInfo `json:"info"`
	Name       string               `json:"name"`
	Dataset    string               `json:"dataset"`
	DataSHA256 string               `json:"data_sha256"`
	DataPaths  []string             `json:"data_paths"`
	EvalTrainN int                  `json:"eval_train_n"`
	EvalTestN  int                  `json:"eval_test_n"`
	Curves     []Curve              `json:"curves"`
	Figure     experiments.Figure   `json:"figure"`
	Summary    *experiments.Table   `json:"summary"`
	// Rounds is the per-iteration summary (RoundsTable) and Claims the
	// paired comparisons of Section VI's claims (Claims), written
	// beside the figure as <name>-rounds.{csv,md} and <name>-claims.*.
	Rounds *experiments.Table `json:"-"`
	Claims []ClaimRow         `json:"-"`
}

// datasetTitle is the data set's name in titles.
// meanOver names what a curve is: one run is drawn as is, not as a mean.
func meanOver(runs int, std bool) string {
	switch {
	case runs == 1:
		return "one run"
	case std:
		return fmt.Sprintf("mean ± std over %d runs", runs)
	}
	return fmt.Sprintf("mean over %d runs", runs)
}

func datasetTitle(name string) string {
	if name == "mnist" {
		return "MNIST"
	}
	return "Fashion-MNIST"
}

// NewResult aggregates curves into figure fig ("figure2".."figure4").
func NewResult(fig string, cfg *Config, data *Data, curves []Curve) *Result {
	r := &Result{Name: "ssca-" + fig, Dataset: cfg.Dataset, DataSHA256: data.Set.SHA256, DataPaths: data.Set.Paths,
		EvalTrainN: data.EvalTrain.N, EvalTestN: data.EvalTest.N, Curves: curves}
	ds := datasetTitle(cfg.Dataset)
	sub := ""
	if data.EvalTrain.N < data.Set.Train.N {
		sub = fmt.Sprintf(", evaluated on %d/%d-image subsets", data.EvalTrain.N, data.EvalTest.N)
	}
	runs := 0
	if len(curves) > 0 {
		runs = len(curves[0].Trials)
	}
	switch fig {
	case "figure2", "figure3":
		kind, un, con := "sample", "alg1", "alg2"
		if fig == "figure3" {
			kind, un, con = "feature", "alg3", "alg4"
		}
		r.Figure.Title = fmt.Sprintf("Figure %s: %s-based FL on %s (%s%s)", fig[6:], kind, ds, meanOver(runs, true), sub)
		base, name := "FedAvg", "Algorithm 1 or 2"
		if fig == "figure3" {
			base, name = "feature SGD", "Algorithm 3 or 4"
		}
		r.Figure.Caption = fmt.Sprintf("Curves: the mean over the %d runs (seeds) at each evaluated iteration; shaded band: ± one standard deviation over the runs. Solid: SSCA (%s); dashed: the SGD baselines (%s); colour: the batch size B, the same in every panel.", runs, name, base)
		var unc, cons []Curve
		for _, c := range curves {
			if c.Spec.Algo == con {
				cons = append(cons, c)
			} else {
				unc = append(unc, c)
			}
		}
		u := cfg.UValue()
		r.Figure.Panels = []experiments.Panel{
			curvePanel("(a) training cost, Alg. "+un[3:]+" vs SGD", "training cost F(w)", unc, func(t Trial) []float64 { return t.TrainCost }),
			curvePanel("(b) test accuracy", "test accuracy", unc, func(t Trial) []float64 { return t.TestAcc }),
			curvePanel(fmt.Sprintf("(c) training cost, Alg. %s (U = %g)", con[3:], u), "training cost F(w)", cons, func(t Trial) []float64 { return t.TrainCost }),
			curvePanel("(d) test accuracy, Alg. "+con[3:], "test accuracy", cons, func(t Trial) []float64 { return t.TestAcc }),
		}
		r.Figure.Panels[2].HLines = []experiments.HLine{{Name: fmt.Sprintf("U = %g", u), Y: u}}
		// Cost axes in log scale: τ = 0.1's early overshoot is drawn whole
		// without flattening the rest; accuracy axes are [0, 1].
		r.Figure.Panels[0].YLog, r.Figure.Panels[2].YLog = true, true
		r.Figure.Panels[1].YUnit, r.Figure.Panels[3].YUnit = true, true
		if bandBelowZero(r.Figure.Panels[0]) || bandBelowZero(r.Figure.Panels[2]) {
			r.Figure.Caption += " Where the std exceeds the mean (runs that blow up transiently), the band runs to the bottom of the log cost axis."
		}
	case "figure4":
		r.Figure.Title = fmt.Sprintf("Figure 4: ‖w‖² vs training cost at t = T on %s (%s%s)", ds, meanOver(runs, false), sub)
		tradeoff := experiments.Panel{Title: "(a) ‖w‖² vs training cost (U or λ swept)", XLabel: "training cost F(w^T)", YLabel: "‖w^T‖² (log scale)", YLog: true}
		acc := experiments.Panel{Title: "(b) test accuracy vs U", XLabel: "U", YLabel: "test accuracy", YUnit: true}
		// The sample- and feature-based algorithm of each pair give the same
		// curve: the second is dashed over the first, and the markers (ring
		// against cross) show both. The first of each pair names its points
		// with the value swept.
		for k, algo := range []string{"alg2", "alg4", "alg1", "alg3"} {
			dash, marker := "", [...]string{"ring", "cross", "triangle", "plus"}[k]
			if k%2 == 1 {
				dash = "dash"
			}
			s := experiments.Series{Name: "Alg. " + algo[3:], Color: k, Dash: dash, Marker: marker}
			a := experiments.Series{Name: "Alg. " + algo[3:], Color: k, Dash: dash, Marker: marker}
			for _, c := range curves {
				if c.Spec.Algo != algo {
					continue
				}
				s.Name = fmt.Sprintf("Alg. %s B=%d", algo[3:], c.Spec.Batch)
				cost := experiments.MeanStdOf(lastOf(c.Trials, func(t Trial) []float64 { return t.TrainCost }))
				n2 := experiments.MeanStdOf(lastOf(c.Trials, func(t Trial) []float64 { return t.Norm2 }))
				s.X, s.Y = append(s.X, cost.Mean), append(s.Y, n2.Mean)
				if k%2 == 0 {
					if c.Spec.constrained() {
						s.Labels = append(s.Labels, fmt.Sprintf("U=%g", c.Spec.U))
					} else {
						s.Labels = append(s.Labels, fmt.Sprintf("λ=%g", c.Spec.Lambda))
					}
				}
				if c.Spec.constrained() {
					ac := experiments.MeanStdOf(lastOf(c.Trials, func(t Trial) []float64 { return t.TestAcc }))
					a.Name = s.Name
					a.X, a.Y = append(a.X, c.Spec.U), append(a.Y, ac.Mean)
					a.Lo, a.Hi = append(a.Lo, ac.Mean-ac.Std), append(a.Hi, ac.Mean+ac.Std)
				}
			}
			if algo == "alg1" || algo == "alg3" {
				s.Name += " (λ swept)"
			} else {
				s.Name += " (U swept)"
			}
			if len(s.X) > 0 {
				tradeoff.Series = append(tradeoff.Series, s)
			}
			if len(a.X) > 0 {
				acc.Series = append(acc.Series, a)
			}
		}
		r.Figure.Panels = []experiments.Panel{tradeoff, acc}
	}
	r.Summary = sscaSummary(r.Figure.Title, cfg, curves)
	r.Rounds = RoundsTable(r.Figure.Title, curves)
	return r
}

// bandBelowZero reports whether a band of p reaches 0 or below.
func bandBelowZero(p experiments.Panel) bool {
	for _, s := range p.Series {
		for _, lo := range s.Lo {
			if lo <= 0 {
				return true
			}
		}
	}
	return false
}

// batchColor is the palette index of batch size b: 1 (sample-based) or 10
// (feature-based) is 0, then 10/100, 100/1000, and FedAvg's B = 5 and
// B = 50 (E = 2) their own colours, so a batch size has one colour in
// every panel of a figure and SSCA and its baseline at the same B share it.
func batchColor(b int) int {
	for k, v := range []int{1, 10, 100, 5, 50} {
		if b == v {
			return k
		}
	}
	return 5
}

// curvePanel draws mean ± std of val over each curve's trials against t,
// coloured by batch size (feature-based figures shift by one decade: 10,
// 100, 1000 get the colours of 1, 10, 100).
func curvePanel(title, ylabel string, curves []Curve, val func(Trial) []float64) experiments.Panel {
	p := experiments.Panel{Title: title, XLabel: "iteration t", YLabel: ylabel}
	for k, c := range curves {
		col := batchColor(c.Spec.Batch)
		if c.Spec.feature() {
			col = batchColor(c.Spec.Batch / 10)
		}
		if col == 5 {
			col = k
		}
		s := experiments.Series{Name: c.Spec.Label(), Color: col}
		if !c.Spec.ssca() {
			s.Dash = "dash"
		}
		n := commonLen(c.Trials)
		for i := 0; i < n; i++ {
			var xs []float64
			for _, t := range c.Trials {
				xs = append(xs, val(t)[i])
			}
			m := experiments.MeanStdOf(xs)
			s.X = append(s.X, float64(c.Trials[0].T[i]))
			s.Y, s.Lo, s.Hi = append(s.Y, m.Mean), append(s.Lo, m.Mean-m.Std), append(s.Hi, m.Mean+m.Std)
		}
		p.Series = append(p.Series, s)
	}
	return p
}

// commonLen is the number of points every trial has (a diverged run stops early).
func commonLen(ts []Trial) int {
	if len(ts) == 0 {
		return 0
	}
	n := len(ts[0].T)
	for _, t := range ts {
		n = min(n, len(t.T))
	}
	return n
}

// lastOf collects each trial's last value of val.
func lastOf(ts []Trial, val func(Trial) []float64) []float64 {
	var out []float64
	for _, t := range ts {
		if v := val(t); len(v) > 0 {
			out = append(out, v[len(v)-1])
		}
	}
	return out
}

// sscaSummary is the table: final cost, accuracy, rounds to the target
// cost, bytes and ms per round.
func sscaSummary(title string, cfg *Config, curves []Curve) *experiments.Table {
	t := &experiments.Table{Title: title, Header: []string{"method", "λ / U", "runs", "F(w^T)", "test acc.", "‖w^T‖²",
		fmt.Sprintf("t: F ≤ %g", cfg.TargetCost), "slack", "MB down/round", "MB up/round", "MB client/round", "ms/round", "diverged"}}
	for _, c := range curves {
		cost := experiments.MeanStdOf(lastOf(c.Trials, func(t Trial) []float64 { return t.TrainCost }))
		acc := experiments.MeanStdOf(lastOf(c.Trials, func(t Trial) []float64 { return t.TestAcc }))
		n2 := experiments.MeanStdOf(lastOf(c.Trials, func(t Trial) []float64 { return t.Norm2 }))
		par := "λ=" + strconv.FormatFloat(c.Spec.Lambda, 'g', -1, 64)
		if c.Spec.constrained() {
			par = "U=" + strconv.FormatFloat(c.Spec.U, 'g', -1, 64)
		}
		var down, upB, cl, ms, slack []float64
		div := 0
		for _, tr := range c.Trials {
			r := float64(max(1, tr.Stats.Rounds))
			down = append(down, float64(tr.Stats.BytesDown)/r/1e6)
			upB = append(upB, float64(tr.Stats.BytesUp)/r/1e6)
			cl = append(cl, float64(tr.Stats.BytesClient)/r/1e6)
			ms = append(ms, float64(tr.Stats.Runtime)/1e6/r)
			slack = append(slack, tr.Slack)
			if tr.Status == statusDiverged {
				div++
			}
		}
		target := "—"
		n := commonLen(c.Trials)
		for i := 0; i < n && !c.Spec.FinalOnly; i++ {
			var xs []float64
			for _, tr := range c.Trials {
				xs = append(xs, tr.TrainCost[i])
			}
			if experiments.MeanStdOf(xs).Mean <= cfg.TargetCost {
				target = strconv.Itoa(c.Trials[0].T[i])
				break
			}
		}
		sl := "—"
		if c.Spec.constrained() {
			sl = experiments.Sci(experiments.MeanStdOf(slack).Mean)
		}
		t.Rows = append(t.Rows, []string{c.Spec.Label(), par, strconv.Itoa(len(c.Trials)), ms4(cost), ms4(acc), fmt.Sprintf("%.1f (%.1f)", n2.Mean, n2.Std),
			target, sl, fmt.Sprintf("%.3f", experiments.MeanStdOf(down).Mean), fmt.Sprintf("%.3f", experiments.MeanStdOf(upB).Mean),
			fmt.Sprintf("%.3f", experiments.MeanStdOf(cl).Mean), fmt.Sprintf("%.1f", experiments.MeanStdOf(ms).Mean), strconv.Itoa(div)})
	}
	t.Notes = []string{
		"F(w^T): cross-entropy (25) on the " + evalNote(cfg) + " training set at t = T; mean (std) over runs. " +
			"t: first evaluated iteration whose mean cost is at most the target. Bytes: float64 8, index 4.",
		"ms/round: wall time of the rounds without evaluation, on this machine (clients are goroutines).",
	}
	if n := precisionNote(cfg); n != "" {
		t.Notes = append(t.Notes, n)
	}
	t.Keys = 2
	t.Brief = t.Pick("runs", "F(w^T)", "test acc.", "slack", "diverged")
	return t
}

// precisionNote says how F was computed when not in float64.
func precisionNote(cfg *Config) string {
	if cfg.EvalPrecision != "float32" {
		return ""
	}
	return "F: a float32 first layer (within 1e-7 relative of float64; eval_precision: float64 for it); accuracy: float64."
}

func ms4(v experiments.MeanStd) string { return fmt.Sprintf("%.4f (%.4f)", v.Mean, v.Std) }

func evalNote(cfg *Config) string {
	if cfg.EvalSubset > 0 {
		return fmt.Sprintf("%d-image subset of the", cfg.EvalSubset)
	}
	return "full"
}

// Points is every evaluated point of every trial, one row each (the CSV).
func (r *Result) Points() *experiments.Table {
	t := &experiments.Table{Header: []string{"figure", "dataset", "data_sha256", "fedcon_version", "config_hash", "method", "key", "run", "seed", "t", "train_cost", "objective", "test_acc", "norm2"}}
	var version, hash string
	if r.Info != nil {
		version, hash = r.Info.Version, r.Info.ConfigHash
	}
	for _, c := range r.Curves {
		for _, tr := range c.Trials {
			for i, it := range tr.T {
				t.Rows = append(t.Rows, []string{r.Name, r.Dataset, r.DataSHA256, version, hash, c.Spec.Label(), c.Spec.Key(), strconv.Itoa(tr.Run),
					strconv.FormatUint(tr.Seed, 10), strconv.Itoa(it), g17(tr.TrainCost[i]), g17(tr.Objective[i]), g17(tr.TestAcc[i]), g17(tr.Norm2[i])})
			}
		}
	}
	return t
}

func g17(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', 17, 64)
}

// ClaimsTitle is the title of figure fig's claims table.
func (r *Result) ClaimsTitle(fig string) string {
	runs := 0
	if len(r.Curves) > 0 {
		runs = len(r.Curves[0].Trials)
	}
	return fmt.Sprintf("Section VI's claims, Figure %s on %s: paired comparisons over %d runs", fig[len("figure"):], datasetTitle(r.Dataset), runs)
}

// ProvenanceNote says what the statistics were computed from: the data,
// the fedcon version and configuration hash of r.Info, the runs and seeds.
// Times are the manifest's: a rerun over stored runs takes seconds.
func (r *Result) ProvenanceNote() string {
	var version, hash string
	if r.Info != nil {
		version, hash = r.Info.Version, r.Info.ConfigHash
	}
	runs, lo, hi := 0, uint64(0), uint64(0)
	for _, c := range r.Curves {
		runs = max(runs, len(c.Trials))
		for _, t := range c.Trials {
			if lo == 0 || t.Seed < lo {
				lo = t.Seed
			}
			hi = max(hi, t.Seed)
		}
	}
	return fmt.Sprintf("Computed from %d runs per curve (seeds %d-%d) on %s (data SHA-256 %s), fedcon %s, configuration hash %s.",
		runs, lo, hi, datasetTitle(r.Dataset), r.DataSHA256, version, hash)
}

// Figures are the reproducible SSCA figures.
var Figures = []string{"figure2", "figure3", "figure4"}

// FigureRuns is the number of runs of fig under cfg (figure 4: 1 when quick).
func (c *Config) FigureRuns(fig string) int {
	if c.QuickRun && fig == "figure4" {
		return 1
	}
	return c.Runs
}
