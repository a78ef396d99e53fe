package cmd

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	pd "github.com/fedcon/fedcon/problems/drfl"
)

// DRFLNoiseOptions are the flags of `fedcon reproduce drfl-figure2|3|4|5`.
type DRFLNoiseOptions struct {
	Name               string
	OutDir             string
	Quick, JSON, Quiet bool
	CV, Force          bool
	Folds              int
	Repetitions        int
	Seed               uint64
	Rho, Kappa, Theta  float64
	P                  string
	Workers            int
	Dirs               []string
	ctx                context.Context
	// batch: print nothing but errors; report receives the trial counts
	// (`reproduce all`).
	batch  bool
	report *runReport
}

// newDRFLNoiseOptions returns the defaults of the noise figures: the
// paper's models at fixed ρ = 0.01, κ = 0.5, θ = 0.01, p = 1 (no CV).
func newDRFLNoiseOptions(name string) *DRFLNoiseOptions {
	return &DRFLNoiseOptions{Name: name, OutDir: "results", Seed: 1, Rho: 0.01, Kappa: 0.5, Theta: 0.01, P: "1", Folds: 5}
}

func newCmdReproduceDRFLNoise(f *Factory, name string, runF func(*DRFLNoiseOptions) error) *cobra.Command {
	o := newDRFLNoiseOptions(name)
	short := "DRFL figure 2: heart (SVM, test accuracy) and abalone (Huber regression, test MSE), the five models under three test-noise protocols"
	if fig, ok := experiments.DRFLNoiseFigures[name]; ok {
		short = fmt.Sprintf("DRFL %s: %s%s, test accuracy of the five models under three test-noise protocols",
			strings.TrimPrefix(name, "drfl-"), fig.Dataset, map[bool]string{true: " imbalanced", false: ""}[fig.Imbalanced])
	}
	c := &cobra.Command{
		Use:     name,
		Short:   short,
		Example: fmt.Sprintf("  fedcon reproduce %s --quick\n  fedcon reproduce %s --rho 0.001 --kappa 0.3", name, name),
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.ctx = c.Context()
			o.Dirs = dataDirs(f, c)
			o.JSON, _ = c.Flags().GetBool("json")
			o.Quiet, _ = c.Flags().GetBool("quiet")
			if runF != nil {
				return runF(o)
			}
			return drflNoiseRun(f, o)
		},
	}
	fl := c.Flags()
	fl.StringVar(&o.OutDir, "out", o.OutDir, "results directory: writes <out>/drfl/"+strings.TrimPrefix(name, "drfl-")+".{png,svg,csv,json}")
	fl.BoolVar(&o.Quick, "quick", false, "2 repetitions and 6 noise levels")
	fl.IntVar(&o.Repetitions, "repetitions", 0, "repetitions (default 10, quick 2)")
	fl.Uint64Var(&o.Seed, "seed", o.Seed, "seed of the first repetition")
	fl.Float64Var(&o.Rho, "rho", o.Rho, "ρ of drfl and wafl")
	fl.Float64Var(&o.Kappa, "kappa", o.Kappa, "κ of drfl and wafl")
	fl.Float64Var(&o.Theta, "theta", o.Theta, "θ of drfl and afl")
	fl.StringVar(&o.P, "p", o.P, "norm of Q: 1, 2 or inf")
	fl.IntVar(&o.Workers, "workers", 0, "clients solved at once (default: number of CPUs)")
	fl.BoolVar(&o.CV, "cv", false, "select ρ, κ, θ per model and repetition by cross-validation over the paper's grid (every third value with --quick); slow: ~10 s per DRFL fit on heart")
	fl.IntVar(&o.Folds, "folds", o.Folds, "cross-validation folds")
	fl.BoolVar(&o.Force, "force", false, "recompute the repetitions already stored under <out>/drfl/<figure>-trials/")
	return c
}

func drflNoiseRun(f *Factory, o *DRFLNoiseOptions) error {
	path := filepath.Join(o.OutDir, "drfl", strings.TrimPrefix(o.Name, "drfl-"))
	var (
		figure *experiments.Figure
		result any
		csv    string
		cfgs   []experiments.DRFLNoiseConfig
	)
	if o.Name == "drfl-figure2" {
		var rows []*experiments.DRFLNoiseResult
		for _, fig := range experiments.DRFLFigure2 {
			cfg, res, err := drflNoiseFigure(f, o, fig, path+"-"+fig.Dataset+"-trials")
			if err != nil {
				return err
			}
			rows, cfgs = append(rows, res), append(cfgs, cfg)
		}
		r2 := experiments.NewDRFLFigure2(rows)
		figure, result, csv = &r2.Figure, r2, r2.CSV()
	} else {
		cfg, res, err := drflNoiseFigure(f, o, experiments.DRFLNoiseFigures[o.Name], path+"-trials")
		if err != nil {
			return err
		}
		figure, result, csv, cfgs = &res.Figure, res, res.CSV(), append(cfgs, cfg)
	}
	var record any = cfgs // the run record: one config per row
	if len(cfgs) == 1 {
		record = cfgs[0]
	}
	paths, js, err := writeFigureFiles(f, o.Name, record, figure, result, csv, path)
	if err != nil {
		return err
	}
	if o.batch {
		return nil
	}
	if o.JSON {
		_, err := f.IO.Out.Write(js)
		return err
	}
	_, err = fmt.Fprint(f.IO.Out, csv)
	if !o.Quiet {
		for _, p := range paths {
			fmt.Fprintln(f.IO.ErrOut, "wrote", p)
		}
	}
	return err
}

// drflNoiseFigure runs one noise figure (one dataset) with the options'
// parameters, keeping one file per finished repetition in trials: Ctrl-C
// keeps them, a rerun with the same configuration (any number of
// repetitions) reuses them.
func drflNoiseFigure(f *Factory, o *DRFLNoiseOptions, fig experiments.DRFLNoiseFigure, trials string) (experiments.DRFLNoiseConfig, *experiments.DRFLNoiseResult, error) {
	cfg := experiments.DefaultDRFLNoise(fig, o.Quick)
	if o.Repetitions != 0 {
		cfg.Repetitions = o.Repetitions
	}
	cfg.Seed = o.Seed
	ro := &DRFLOptions{Model: "drfl", Rho: fmt.Sprint(o.Rho), Kappa: o.Kappa, Theta: o.Theta, P: o.P, QHat: "size", Support: "box", C: 1, Tol: 1e-4, MaxRounds: 10000, Epsilon: pd.DefaultHuberEpsilon}
	base, err := ro.params(3)
	if err != nil {
		return cfg, nil, err
	}
	workers, err := workersFlag(f, o.Workers)
	if err != nil {
		return cfg, nil, err
	}
	cfg.Workers = workers
	if o.CV {
		if o.Folds < 2 {
			return cfg, nil, &experiments.ConfigError{Field: "folds", Value: o.Folds, Reason: "want ≥ 2"}
		}
		g := experiments.PaperDRFLGrid()
		if o.Quick {
			g = g.Thin(3)
		}
		cfg.CV, cfg.Folds = &g, o.Folds
	}
	d, err := datasets.Load(fig.Dataset, o.Dirs)
	if err != nil {
		return cfg, nil, err
	}
	if d.Regression {
		base.Loss = "huber"
	}
	for k := range cfg.Params {
		m := cfg.Params[k].Model
		cfg.Params[k] = base
		cfg.Params[k].Model = m
	}
	ctx := o.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	progress := func(rep int, model string, r *experiments.DRFLRun) {
		if !o.Quiet {
			fmt.Fprintf(f.IO.ErrOut, "%s repetition %d/%d %-8s %s, %d rounds, %.1f s\n", fig.Dataset, rep, cfg.Repetitions, model, r.Status, r.Rounds, r.Seconds)
		}
	}
	store := &experiments.Store{Dir: trials, Hash: cfg.TrialHash(), Force: o.Force, Version: f.Version}
	res, err := experiments.RunDRFLNoise(ctx, d, cfg, store, progress)
	if err != nil {
		return cfg, nil, err
	}
	c := store.Counts()
	if o.report != nil {
		o.report.trials += c.Reused + c.Computed
		o.report.reused += c.Reused
	}
	if !o.Quiet && c.Reused > 0 {
		fmt.Fprintf(f.IO.ErrOut, "reused %d stored repetitions of %s (--force recomputes)\n", c.Reused, fig.Dataset)
	}
	return cfg, res, nil
}
