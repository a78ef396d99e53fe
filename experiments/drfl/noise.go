package drfl

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/solver/adlpmm"
)

// NoiseFigure describes one row (dataset) of the paper's Figures 2-5:
// its split (imbalanced or not), and the fixed noise parameter of each of
// the three test-noise protocols (the preset's figure2..figure5 keys).
type NoiseFigure struct {
	Name       string `mapstructure:"-"`
	Dataset    string `mapstructure:"dataset"`
	Imbalanced bool   `mapstructure:"imbalanced"`
	// FixedSD (protocol A: mean varies), FixedMean (B: SD varies), Ratio
	// (C: mean = Ratio·SD, SD varies).
	FixedSD   float64 `mapstructure:"fixed_sd"`
	FixedMean float64 `mapstructure:"fixed_mean"`
	Ratio     float64 `mapstructure:"ratio"`
}

// NoiseConfig is the run of one noise figure.
type NoiseConfig struct {
	Figure NoiseFigure `json:"figure"`
	// Repetitions r = Seed, …, Seed+Repetitions−1 (10).
	Repetitions int    `json:"repetitions"`
	Seed        uint64 `json:"seed"`
	// Levels are the varied noise values (0, 0.2, …, 2).
	Levels []float64 `json:"levels"`
	// Params holds each model's parameters: fixed when CV is nil, else the
	// base whose tuned keys CV replaces.
	Params []Params `json:"params"`
	// CV, if set, selects each model's parameters per repetition by
	// Folds-fold cross-validation over this grid (CrossValidate).
	CV    *Grid `json:"cv,omitempty"`
	Folds int   `json:"folds,omitempty"`
	// Data is the split of every repetition.
	Data DataConfig `json:"data"`
	// C, Tol, MaxRounds: Algorithm 1's settings (0: solver/adlpmm's default).
	C         float64 `json:"c"`
	Tol       float64 `json:"tol"`
	MaxRounds int     `json:"max_rounds"`
	Workers   int     `json:"-"`
}

// TrialHash is the hash stored with each repetition: the configuration
// but the number of repetitions (a rerun with more reuses the stored
// ones), with P and Support spelled out (their fields are not JSON).
func (c NoiseConfig) TrialHash() string {
	c.Params = slices.Clone(c.Params)
	for k := range c.Params {
		c.Params[k].Spell()
	}
	return experiments.TrialHash(c, "repetitions")
}

// NoiseResult holds the pooled test metric (accuracy for the SVM, MSE
// for Huber regression) of every model, repetition, protocol and level,
// and the figure drawn from it.
type NoiseResult struct {
	Config NoiseConfig `json:"config"`
	// Metric is "accuracy" or "mse".
	Metric string `json:"metric"`
	// Score[model][protocol][level][repetition]; protocols A, B, C.
	Score [][][][]float64 `json:"score"`
	// WorstClient is the same for the worst client's score.
	WorstClient [][][][]float64 `json:"worst_client_score"`
	// ClientScore[model][protocol][level][repetition][client] is each
	// client's score on its own test rows.
	ClientScore [][][][][]float64 `json:"client_score"`
	// Runs are the trained models' summaries per model and repetition
	// (with the parameters CV chose), CVs the cross-validations.
	Runs   [][]*RunResult     `json:"runs"`
	CVs    [][]*CV            `json:"cross_validation,omitempty"`
	Figure experiments.Figure `json:"figure"`
}

// protocolNoise returns (mean, sd) of protocol k at level x.
func (f NoiseFigure) protocolNoise(k int, x float64) (float64, float64) {
	switch k {
	case 0:
		return x, f.FixedSD
	case 1:
		return f.FixedMean, x
	}
	return f.Ratio * x, x
}

// drflRep is one repetition's outcome, stored as one trial file: per
// model the fit, its cross-validation (if any), and the pooled, each
// client's and the worst client's score per protocol and level.
type drflRep struct {
	Runs  []*RunResult  `json:"runs"`
	CVs   []*CV         `json:"cross_validation,omitempty"`
	Acc   [][][]float64 `json:"score"`
	Worst [][][]float64 `json:"worst_client_score"`
	// Clients[model][protocol][level][client]; absent from repetitions
	// stored before it existed (RunNoise recomputes it from the fit).
	Clients [][][][]float64 `json:"client_score,omitempty"`
}

// noisyTests returns repetition seed's noisy test sets [protocol][level],
// shared by all models.
func noisyTests(sp *Split, cfg NoiseConfig, seed uint64) [][][][]float64 {
	tests := make([][][][]float64, 3)
	for k := range 3 {
		tests[k] = make([][][]float64, len(cfg.Levels))
		for l, x := range cfg.Levels {
			mean, sdv := cfg.Figure.protocolNoise(k, x)
			tests[k][l] = sp.NoisyTest(mean, sdv, rand.New(rand.NewPCG(seed, uint64(1000*k+l+1))))
		}
	}
	return tests
}

// noisyScores scores the model v on every noisy test set: pooled, per
// client and worst client, each [protocol][level].
func noisyScores(sp *Split, m Metric, tests [][][][]float64, v []float64) (acc [][]float64, clients [][][]float64, worst [][]float64) {
	acc, clients, worst = make([][]float64, 3), make([][][]float64, 3), make([][]float64, 3)
	for k := range 3 {
		L := len(tests[k])
		acc[k], clients[k], worst[k] = make([]float64, L), make([][]float64, L), make([]float64, L)
		for l := range L {
			acc[k][l], clients[k][l], worst[k][l] = sp.score(m, tests[k][l], v)
		}
	}
	return acc, clients, worst
}

// addClientScores fills the per-client scores of a repetition stored
// before they were kept, recomputing the noisy test sets from the seed;
// the pooled and worst-client scores it recomputes on the way must equal
// the stored ones bit for bit (same split, noise and fit).
func addClientScores(d *datasets.Dataset, cfg NoiseConfig, r int, seed uint64, rep *drflRep) error {
	sp, err := NewSplit(d, cfg.Data, seed)
	if err != nil {
		return err
	}
	tests := noisyTests(sp, cfg, seed)
	rep.Clients = make([][][][]float64, len(rep.Runs))
	for m, run := range rep.Runs {
		acc, clients, worst := noisyScores(sp, cfg.Params[m].Metric(), tests, run.V)
		if !slices.EqualFunc(acc, rep.Acc[m], slices.Equal) || !slices.EqualFunc(worst, rep.Worst[m], slices.Equal) {
			return fmt.Errorf("experiments: stored repetition %d, %s: scores recomputed from its fit differ from the stored ones (rerun with --force)", r+1, cfg.Params[m].Model)
		}
		rep.Clients[m] = clients
	}
	return nil
}

// RunNoise trains every model once per repetition (parameters fixed,
// or chosen by cross-validation) and scores it on fresh test noise per
// protocol and level, the same noise for all models. Each finished
// repetition is kept in store (nil: none) and reused by a rerun with the
// same configuration. progress, if non-nil, is called after each model fit
// that was computed.
func RunNoise(ctx context.Context, d *datasets.Dataset, cfg NoiseConfig, store *experiments.Store, progress func(Progress)) (*NoiseResult, error) {
	if cfg.Repetitions < 1 {
		return nil, &experiments.ConfigError{Field: "repetitions", Value: cfg.Repetitions, Reason: "want ≥ 1"}
	}
	cfg.Params = append([]Params(nil), cfg.Params...)
	for k, p := range cfg.Params {
		if p.Loss == "" && d.Regression {
			p.Loss = "huber" // abalone: Huber regression (Figure 2)
			cfg.Params[k].Loss = p.Loss
		}
		if err := p.Validate(); err != nil {
			return nil, err
		}
		cfg.Params[k].Spell()
	}
	M, L := len(cfg.Params), len(cfg.Levels)
	res := &NoiseResult{Config: cfg, Runs: make([][]*RunResult, M)}
	if cfg.CV != nil {
		res.CVs = make([][]*CV, M)
		if cfg.Folds < 2 {
			return nil, &experiments.ConfigError{Field: "folds", Value: cfg.Folds, Reason: "want ≥ 2"}
		}
	}
	alloc := func() [][][][]float64 {
		a := make([][][][]float64, M)
		for m := range a {
			a[m] = make([][][]float64, 3)
			for k := range 3 {
				a[m][k] = make([][]float64, L)
			}
		}
		return a
	}
	res.Score, res.WorstClient = alloc(), alloc()
	res.ClientScore = make([][][][][]float64, M)
	for m := range M {
		res.ClientScore[m] = make([][][][]float64, 3)
		for k := range 3 {
			res.ClientScore[m][k] = make([][][]float64, L)
		}
	}
	if M > 0 {
		res.Metric = cfg.Params[0].Metric().Name
	}
	for r := range cfg.Repetitions {
		seed := cfg.Seed + uint64(r)
		rep, err := experiments.Cached(store, fmt.Sprintf("rep-%03d", seed), seed, func() (*drflRep, error) {
			return runDRFLRep(ctx, d, cfg, seed, r, progress)
		})
		if err != nil {
			return nil, err
		}
		if rep == nil && store != nil && store.Shard != nil {
			continue // another shard's repetition
		}
		if rep == nil {
			return nil, fmt.Errorf("experiments: stored repetition %d is empty (rerun with --force)", r+1)
		}
		if len(rep.Runs) != M || len(rep.Acc) != M || len(rep.Worst) != M {
			return nil, fmt.Errorf("experiments: stored repetition %d has %d models, want %d", r+1, len(rep.Runs), M)
		}
		if rep.Clients == nil {
			if err := addClientScores(d, cfg, r, seed, rep); err != nil {
				return nil, err
			}
		}
		for m := range M {
			res.Runs[m] = append(res.Runs[m], rep.Runs[m])
			if cfg.CV != nil {
				res.CVs[m] = append(res.CVs[m], rep.CVs[m])
			}
			for k := range 3 {
				for l := range L {
					res.Score[m][k][l] = append(res.Score[m][k][l], rep.Acc[m][k][l])
					res.WorstClient[m][k][l] = append(res.WorstClient[m][k][l], rep.Worst[m][k][l])
					res.ClientScore[m][k][l] = append(res.ClientScore[m][k][l], rep.Clients[m][k][l])
				}
			}
		}
	}
	if store != nil && store.Shard != nil {
		return res, nil // a share of the repetitions: the merge draws the figure
	}
	res.Figure = res.draw()
	return res, nil
}

// runDRFLRep computes repetition r (seed) of a noise figure.
func runDRFLRep(ctx context.Context, d *datasets.Dataset, cfg NoiseConfig, seed uint64, r int,
	progress func(Progress)) (*drflRep, error) {
	sp, err := NewSplit(d, cfg.Data, seed)
	if err != nil {
		return nil, err
	}
	tests := noisyTests(sp, cfg, seed)
	rep := &drflRep{}
	for _, p := range cfg.Params {
		set := &adlpmm.Settings{C: cfg.C, Tol: cfg.Tol, MaxRounds: cfg.MaxRounds, Workers: cfg.Workers}
		var cv *CV
		var cvSeconds float64
		if cfg.CV != nil {
			start := time.Now()
			var err error
			if cv, err = CrossValidate(ctx, sp.Train, p, *cfg.CV, cfg.Folds, seed, set); err != nil {
				return nil, fmt.Errorf("repetition %d, %s: %w", r+1, p.Model, err)
			}
			cvSeconds = time.Since(start).Seconds()
			rep.CVs = append(rep.CVs, cv)
			p = cv.Best
		}
		run, err := Run(ctx, sp, p, sp.TestX, set)
		if err != nil {
			return nil, fmt.Errorf("repetition %d, %s: %w", r+1, p.Model, err)
		}
		rep.Runs = append(rep.Runs, run)
		acc, clients, worst := noisyScores(sp, p.Metric(), tests, run.V)
		rep.Acc, rep.Worst, rep.Clients = append(rep.Acc, acc), append(rep.Worst, worst), append(rep.Clients, clients)
		if progress != nil {
			progress(Progress{Rep: r + 1, Model: p.Model, Run: run, CV: cv, CVSeconds: cvSeconds})
		}
	}
	return rep, nil
}

// Progress reports one model's finished fit of one repetition.
type Progress struct {
	Rep   int // 1-based
	Model string
	Run   *RunResult
	// CV is the model's cross-validation (nil without --cv or when its
	// grid has one point) and CVSeconds its wall time.
	CV        *CV
	CVSeconds float64
}

// sampleMeanStd returns the mean and the sample standard deviation.
func sampleMeanStd(x []float64) (float64, float64) {
	m, s := stat.MeanStdDev(x, nil)
	if math.IsNaN(s) {
		s = 0
	}
	return m, s
}

func (r *NoiseResult) draw() experiments.Figure {
	f := r.Config.Figure
	titles := []string{
		fmt.Sprintf("noise mean varies, SD = %g", f.FixedSD),
		fmt.Sprintf("noise SD varies, mean = %g", f.FixedMean),
		fmt.Sprintf("mean = %g·SD", f.Ratio),
	}
	xl := []string{"noise mean", "noise SD", "noise SD"}
	dashes := []string{"", "dash", "dashdot", "", "dash"}
	how := "parameters fixed, no CV"
	if r.Config.CV != nil {
		how = fmt.Sprintf("parameters by %d-fold CV", r.Config.Folds)
	}
	metric := map[string]string{"accuracy": "test accuracy", "mse": "test MSE"}[r.Metric]
	fig := experiments.Figure{Title: fmt.Sprintf("%s: %s%s, %s (mean ± std over %d repetitions; %s)",
		f.Name, f.Dataset, map[bool]string{true: " (imbalanced)", false: ""}[f.Imbalanced], metric, r.Config.Repetitions, how),
		Caption: fmt.Sprintf("Curves: the mean over the %d repetitions (random splits) at each noise level; shaded band: ± one sample standard deviation over them.", r.Config.Repetitions)}
	for k := range 3 {
		pn := experiments.Panel{Title: titles[k], XLabel: xl[k], YLabel: metric, YUnit: r.Metric == "accuracy"}
		for m, p := range r.Config.Params {
			s := experiments.Series{Name: strings.ToUpper(p.Model), Color: m, Dash: dashes[m%len(dashes)]}
			for l, x := range r.Config.Levels {
				mu, sdv := sampleMeanStd(r.Score[m][k][l])
				s.X, s.Y = append(s.X, x), append(s.Y, mu)
				s.Lo, s.Hi = append(s.Lo, mu-sdv), append(s.Hi, mu+sdv)
			}
			pn.Series = append(pn.Series, s)
		}
		fig.Panels = append(fig.Panels, pn)
	}
	return fig
}

// CSV returns one row per model, protocol and level: mean and std of the
// pooled and the worst client's score, under a header naming the metric.
func (r *NoiseResult) CSV() string {
	var b strings.Builder
	fmt.Fprintf(&b, "dataset,model,protocol,level,%[1]s_mean,%[1]s_std,worst_client_mean,worst_client_std\n", r.Metric)
	r.csvRows(&b)
	return b.String()
}

func (r *NoiseResult) csvRows(b *strings.Builder) {
	for m, p := range r.Config.Params {
		for k, name := range []string{"A", "B", "C"} {
			for l, x := range r.Config.Levels {
				am, as := sampleMeanStd(r.Score[m][k][l])
				wm, ws := sampleMeanStd(r.WorstClient[m][k][l])
				fmt.Fprintf(b, "%s,%s,%s,%g,%.6f,%.6f,%.6f,%.6f\n", r.Config.Figure.Dataset, p.Model, name, x, am, as, wm, ws)
			}
		}
	}
}

// Figure2Result is a noise figure of several rows, as the paper's
// Figure 2: one noise run per dataset, drawn as one row of three panels
// each.
type Figure2Result struct {
	Rows   []*NoiseResult     `json:"rows"`
	Figure experiments.Figure `json:"figure"`
}

// NewFigure2 combines the rows' figures into one (three columns).
func NewFigure2(rows []*NoiseResult) *Figure2Result {
	out := &Figure2Result{Rows: rows}
	var names []string
	for _, r := range rows {
		names = append(names, fmt.Sprintf("%s (%s)", r.Config.Figure.Dataset, map[string]string{"accuracy": "SVM, test accuracy", "mse": "Huber, test MSE"}[r.Metric]))
		for _, pn := range r.Figure.Panels {
			pn.Title = r.Config.Figure.Dataset + ": " + pn.Title
			out.Figure.Panels = append(out.Figure.Panels, pn)
		}
	}
	out.Figure.Cols = 3
	if len(rows) > 0 {
		out.Figure.Title = fmt.Sprintf("%s: %s; mean ± std over %d repetitions", rows[0].Config.Figure.Name, strings.Join(names, " and "), rows[0].Config.Repetitions)
		out.Figure.Caption = rows[0].Figure.Caption
	}
	return out
}

// CSV returns the rows' CSV under one header (the metric column is the
// row's own: accuracy for heart, MSE for abalone).
func (r *Figure2Result) CSV() string {
	var b strings.Builder
	b.WriteString("dataset,model,protocol,level,score_mean,score_std,worst_client_mean,worst_client_std\n")
	for _, row := range r.Rows {
		row.csvRows(&b)
	}
	return b.String()
}
