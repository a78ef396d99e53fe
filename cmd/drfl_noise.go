package cmd

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
)

// DRFLNoiseOptions are the flags of `fedcon reproduce drfl-figure3|4|5`.
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
}

func newCmdReproduceDRFLNoise(f *Factory, name string, runF func(*DRFLNoiseOptions) error) *cobra.Command {
	fig := experiments.DRFLNoiseFigures[name]
	o := &DRFLNoiseOptions{Name: name}
	c := &cobra.Command{
		Use: name,
		Short: fmt.Sprintf("DRFL %s: %s%s, test accuracy of the five models under three test-noise protocols (parameters fixed, no CV yet)",
			strings.TrimPrefix(name, "drfl-"), fig.Dataset, map[bool]string{true: " imbalanced", false: ""}[fig.Imbalanced]),
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
	fl.StringVar(&o.OutDir, "out", "results", "results directory: writes <out>/drfl/"+strings.TrimPrefix(name, "drfl-")+".{png,svg,csv,json}")
	fl.BoolVar(&o.Quick, "quick", false, "2 repetitions and 6 noise levels")
	fl.IntVar(&o.Repetitions, "repetitions", 0, "repetitions (default 10, quick 2)")
	fl.Uint64Var(&o.Seed, "seed", 1, "seed of the first repetition")
	fl.Float64Var(&o.Rho, "rho", 0.01, "ρ of drfl and wafl")
	fl.Float64Var(&o.Kappa, "kappa", 0.5, "κ of drfl and wafl")
	fl.Float64Var(&o.Theta, "theta", 0.01, "θ of drfl and afl")
	fl.StringVar(&o.P, "p", "1", "norm of Q: 1, 2 or inf")
	fl.IntVar(&o.Workers, "workers", 0, "clients solved at once (default: number of CPUs)")
	fl.BoolVar(&o.CV, "cv", false, "select ρ, κ, θ per model and repetition by cross-validation over the paper's grid (every third value with --quick); slow: ~10 s per DRFL fit on heart")
	fl.IntVar(&o.Folds, "folds", 5, "cross-validation folds")
	fl.BoolVar(&o.Force, "force", false, "recompute the repetitions already stored under <out>/drfl/<figure>-trials/")
	return c
}

func drflNoiseRun(f *Factory, o *DRFLNoiseOptions) error {
	fig := experiments.DRFLNoiseFigures[o.Name]
	cfg := experiments.DefaultDRFLNoise(fig, o.Quick)
	if o.Repetitions != 0 {
		cfg.Repetitions = o.Repetitions
	}
	cfg.Seed = o.Seed
	ro := &DRFLOptions{Model: "drfl", Rho: fmt.Sprint(o.Rho), Kappa: o.Kappa, Theta: o.Theta, P: o.P, QHat: "size", Support: "box", C: 1, Tol: 1e-4, MaxRounds: 10000}
	base, err := ro.params(3)
	if err != nil {
		return err
	}
	for k := range cfg.Params {
		m := cfg.Params[k].Model
		cfg.Params[k] = base
		cfg.Params[k].Model = m
	}
	workers, err := workersFlag(f, o.Workers)
	if err != nil {
		return err
	}
	cfg.Workers = workers
	if o.CV {
		if o.Folds < 2 {
			return &experiments.ConfigError{Field: "folds", Value: o.Folds, Reason: "want ≥ 2"}
		}
		g := experiments.PaperDRFLGrid()
		if o.Quick {
			g = g.Thin(3)
		}
		cfg.CV, cfg.Folds = &g, o.Folds
	}
	d, err := datasets.Load(fig.Dataset, o.Dirs)
	if err != nil {
		return err
	}
	ctx := o.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	progress := func(rep int, model string, r *experiments.DRFLRun) {
		if !o.Quiet {
			fmt.Fprintf(f.IO.ErrOut, "repetition %d/%d %-8s %s, %d rounds, %.1f s\n", rep, cfg.Repetitions, model, r.Status, r.Rounds, r.Seconds)
		}
	}
	path := filepath.Join(o.OutDir, "drfl", strings.TrimPrefix(o.Name, "drfl-"))
	// One file per finished repetition: Ctrl-C keeps them, a rerun with
	// the same configuration (any number of repetitions) reuses them.
	store := &experiments.Store{Dir: path + "-trials", Hash: experiments.TrialHash(cfg, "repetitions"), Force: o.Force, Version: f.Version}
	res, err := experiments.RunDRFLNoise(ctx, d, cfg, store, progress)
	if err != nil {
		return err
	}
	if c := store.Counts(); !o.Quiet && c.Reused > 0 {
		fmt.Fprintf(f.IO.ErrOut, "reused %d stored repetitions (--force recomputes)\n", c.Reused)
	}
	paths, js, err := writeFigureFiles(f, o.Name, cfg, &res.Figure, res, res.CSV(), path)
	if err != nil {
		return err
	}
	if o.JSON {
		_, err := f.IO.Out.Write(js)
		return err
	}
	_, err = fmt.Fprint(f.IO.Out, res.CSV())
	if !o.Quiet {
		for _, p := range paths {
			fmt.Fprintln(f.IO.ErrOut, "wrote", p)
		}
	}
	return err
}
