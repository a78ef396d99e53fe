package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/drfl"
)

// DRFLNoiseOptions are the flags of `fedcon reproduce drfl-figure2|3|4|5`.
type DRFLNoiseOptions struct {
	commonOptions
	Name      string
	Quick, CV bool
	Dirs      []string
	// Cfg is configs/drfl/drfl.yaml under --config, FEDCON_* and the
	// flags set on the command line (load).
	Cfg *drfl.Config
}

// load reads the preset under --config, FEDCON_* and the flags.
func (o *DRFLNoiseOptions) load(f *Factory) error {
	cfg, err := loadDRFLConfig(f, &o.commonOptions)
	o.Cfg = cfg
	return err
}

func newCmdReproduceDRFLNoise(f *Factory, name string, runF func(*DRFLNoiseOptions) error) *cobra.Command {
	o := &DRFLNoiseOptions{Name: name}
	def := drfl.DefaultConfig()
	short := "DRFL figure 2: heart (SVM, test accuracy) and abalone (Huber regression, test MSE), the five models under three test-noise protocols"
	if rows := def.FigureRows(name); name != "drfl-figure2" && len(rows) == 1 {
		short = fmt.Sprintf("DRFL figure %s: %s%s, test accuracy of the five models under three test-noise protocols",
			strings.TrimPrefix(name, "drfl-figure"), rows[0].Dataset, map[bool]string{true: " imbalanced", false: ""}[rows[0].Imbalanced])
	}
	c := &cobra.Command{
		Use:   name,
		Short: short,
		Long: short + `.

Defaults come from the preset configs/drfl/drfl.yaml (key ` + strings.TrimPrefix(name, "drfl-") + `: the rows and their noise
protocols); --config FILE overrides its keys, FEDCON_<KEY> any key but lists of maps
(FEDCON_CV_GRID_KAPPA=0.3,0.6), and flags set on the command line win.`,
		Example: fmt.Sprintf("  fedcon reproduce %s --quick\n  fedcon reproduce %s --rho 0.001 --kappa 0.3\n  fedcon reproduce %s --config my-drfl.yaml", name, name, name),
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.bind(c)
			o.Dirs = dataDirs(f, c)
			if o.CV {
				why := "--cv selects it from cv_grid"
				o.ignoreFlags(map[string]string{"rho": why, "kappa": why, "theta": why})
			} else {
				o.ignoreFlags(map[string]string{"folds": "cross-validation folds: only with --cv"})
			}
			if err := o.load(f); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return drflNoiseRun(f, o)
		},
	}
	addDRFLConfigFlag(c, &o.commonOptions)
	fl := c.Flags()
	fl.StringVar(&o.OutDir, "out", "results", "results directory: writes <out>/drfl/"+strings.TrimPrefix(name, "drfl-")+".{png,svg,csv,json} (--quick: <out>/quick/drfl/)")
	fl.BoolVar(&o.Quick, "quick", false, fmt.Sprintf("%d repetitions and noise levels %g apart", def.QuickRepetitions, def.QuickNoiseStep))
	keyFlags(c, func(fl *pflag.FlagSet) {
		fl.Int("repetitions", def.Repetitions, fmt.Sprintf("repetitions (--quick: %d, unless set)", def.QuickRepetitions))
		fl.Uint64("seed", def.Seed, "seed of the first repetition")
	})
	keyFlags(c, func(fl *pflag.FlagSet) {
		fl.Float64("rho", 0, "ρ of drfl and wafl")
		fl.Float64("kappa", def.Kappa, "κ of drfl and wafl")
		fl.Float64("theta", def.Theta, "θ of drfl and afl")
		enumFlag(fl, "p", def.P, "norm of Q: 1, 2 or inf")
	})
	fl.IntVar(&o.Workers, "workers", 0, "clients solved at once (default: number of CPUs)")
	fl.BoolVar(&o.CV, "cv", false, "select ρ, κ, θ per model and repetition by cross-validation over the preset's cv_grid (the paper's; every third value with --quick); slow: about 10 min per repetition of a full-grid breast-cancer figure on 2 cores, minutes with --quick")
	keyFlags(c, func(fl *pflag.FlagSet) { fl.Int("folds", def.Folds, "cross-validation folds") })
	fl.BoolVar(&o.Force, "force", false, "recompute the repetitions already stored under <out>/drfl/<figure>-trials/")
	addYesFlag(c, &o.commonOptions)
	addShardFlags(c, &o.commonOptions)
	return c
}

func drflNoiseRun(f *Factory, o *DRFLNoiseOptions) error {
	path := filepath.Join(resultsDir(o.OutDir, o.Quick), "drfl", strings.TrimPrefix(o.Name, "drfl-"))
	rows := o.Cfg.FigureRows(o.Name)
	if len(rows) == 0 {
		return &experiments.ConfigError{Field: strings.TrimPrefix(o.Name, "drfl-"), Value: nil, Reason: "want at least one row (dataset)"}
	}
	// Bad values exit before any fit; they are the same for every row.
	if _, err := drflNoiseConfig(o, rows[0], false); err != nil {
		return err
	}
	if err := checkDRFLNoiseCost(f, o); err != nil {
		return err
	}
	shard, err := drflShardOutput(f, o, path)
	if err != nil {
		return err
	}
	var (
		figure *experiments.Figure
		result any
		csv    string
		cfgs   []drfl.NoiseConfig
		res    []*drfl.NoiseResult
	)
	trialsDir := func(fig drfl.NoiseFigure) string {
		if len(rows) > 1 {
			return path + "-" + fig.Dataset + "-trials"
		}
		return path + "-trials"
	}
	if shard != nil {
		// A shard holds every row's lock for the whole run, so that fedcon
		// status sees it running until it ends.
		for _, fig := range rows {
			lock, err := experiments.LockDir(trialsDir(fig), strings.Join(os.Args, " "))
			if err != nil {
				return err
			}
			defer lock.Unlock()
		}
		if err := shard.begin(); err != nil {
			return err
		}
	}
	for _, fig := range rows {
		cfg, r, err := drflNoiseFigure(f, o, fig, trialsDir(fig), shard)
		if shard != nil && err != nil {
			return shard.finishShard(err)
		}
		if err != nil {
			return err
		}
		cfgs, res = append(cfgs, cfg), append(res, r)
	}
	if shard != nil {
		return shard.finishShard(nil)
	}
	if len(res) > 1 {
		r2 := drfl.NewFigure2(res)
		figure, result, csv = &r2.Figure, r2, r2.CSV()
	} else {
		figure, result, csv = &res[0].Figure, res[0], res[0].CSV()
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

// drflNoiseConfig is the run of one row of the figure under the loaded
// configuration; regression datasets fit the Huber model.
func drflNoiseConfig(o *DRFLNoiseOptions, fig drfl.NoiseFigure, regression bool) (drfl.NoiseConfig, error) {
	cfg := o.Cfg
	if err := cfg.ValidateData(); err != nil {
		return drfl.NoiseConfig{}, err
	}
	if err := cfg.ValidateNoise(o.CV); err != nil {
		return drfl.NoiseConfig{}, err
	}
	base, err := cfg.Params(drfl.ModelDRFL, "")
	if err != nil {
		return drfl.NoiseConfig{}, err
	}
	if base.Rhos != nil {
		return drfl.NoiseConfig{}, &experiments.ConfigError{Field: "rho", Value: cfg.Rho, Reason: "the figures take one radius for every client"}
	}
	if regression {
		base.Loss, base.Epsilon = "huber", cfg.Epsilon
	}
	n := cfg.Noise(fig, base, o.Quick, o.CV)
	if o.Quick && o.flags != nil && o.flags.Changed("repetitions") {
		n.Repetitions = cfg.Repetitions // an explicit --repetitions wins over --quick's
	}
	return n, nil
}

// drflNoiseFigure runs one row of a noise figure (one dataset), keeping
// one file per finished repetition in trials: Ctrl-C keeps them, a rerun
// with the same configuration (any number of repetitions) reuses them.
func drflNoiseFigure(f *Factory, o *DRFLNoiseOptions, fig drfl.NoiseFigure, trials string, shard *runOutput) (drfl.NoiseConfig, *drfl.NoiseResult, error) {
	workers, err := workersFlag(f, o.Workers)
	if err != nil {
		return drfl.NoiseConfig{}, nil, err
	}
	d, err := experiments.Interruptible(o.ctx, func() (*datasets.Dataset, error) { return datasets.Load(fig.Dataset, o.Dirs) })
	if err != nil {
		return drfl.NoiseConfig{}, nil, err
	}
	cfg, err := drflNoiseConfig(o, fig, d.Regression)
	if err != nil {
		return cfg, nil, err
	}
	cfg.Workers = workers
	ctx := o.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	progress := func(p drfl.Progress) {
		if o.Quiet {
			return
		}
		r := p.Run
		cv := ""
		if p.CV != nil && len(p.CV.Candidates) > 1 {
			b := p.CV.Best
			chose := map[string]string{ // the parameters each model is tuned over
				drfl.ModelDRFL: fmt.Sprintf("ρ = %g, κ = %g, θ = %g", b.Rho, b.Kappa, b.Theta),
				drfl.ModelAFL:  fmt.Sprintf("θ = %g", b.Theta),
				drfl.ModelWAFL: fmt.Sprintf("ρ = %g, κ = %g", b.Rho, b.Kappa),
			}[p.Model]
			fits := fmt.Sprintf("%d fits", p.CV.Fits)
			switch {
			case p.CV.ZeroRadius > 0:
				fits = fmt.Sprintf("%d fits (%d shared; %d more at ρ = 0)", p.CV.Fits, p.CV.Shared, p.CV.ZeroRadius)
			case p.CV.Shared > 0:
				fits = fmt.Sprintf("%d fits (%d shared)", p.CV.Fits, p.CV.Shared)
			}
			cv = fmt.Sprintf("; CV: %s in %.1f s chose %s", fits, p.CVSeconds, chose)
		}
		fmt.Fprintf(f.IO.ErrOut, "%s repetition %d/%d %-8s %s, %d rounds, %.1f s%s\n", fig.Dataset, p.Rep, cfg.Repetitions, p.Model, r.StatusFlags(), r.Rounds, r.Seconds, cv)
	}
	// The repetitions' directory is this figure's: one run at a time (a
	// shard holds the lock already).
	if shard == nil {
		lock, err := experiments.LockDir(trials, strings.Join(os.Args, " "))
		if err != nil {
			return cfg, nil, err
		}
		defer lock.Unlock()
	}
	errOut := f.IO.ErrOut
	store := &experiments.Store{Dir: trials, Hash: cfg.TrialHash(), Force: o.Force, Version: f.Version,
		Warn: func(msg string) { fmt.Fprintln(errOut, msg) }, ReuseOnly: o.ReuseOnly}
	if shard != nil {
		store.Shard = shard.shard.log
		defer func() { shard.addCounts(store.Counts()) }()
	}
	res, err := drfl.RunNoise(ctx, d, cfg, store, progress)
	if err != nil {
		return cfg, nil, err
	}
	if shard != nil {
		return cfg, res, nil // the run's counts and summary are the shard's
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

// drflShardOutput is, under --shard, the shard manifest of a noise figure:
// <out>/drfl/shard-K-of-N-<figure>.json, written (begin) once the shard
// holds its locks, after each repetition and at the end; nil without --shard. A figure's repetitions
// are its trials; the merge draws the figure from them.
func drflShardOutput(f *Factory, o *DRFLNoiseOptions, path string) (*runOutput, error) {
	shard, err := parseShardFlag(f, o.Shard)
	if err != nil || shard == nil {
		return nil, err
	}
	workers, err := workersFlag(f, o.Workers)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	r := &runOutput{f: f, o: &o.commonOptions, name: "drfl", dir: dir, seed: o.Cfg.Seed,
		manifest: "manifest-" + filepath.Base(path) + ".json",
		info:     experiments.NewRunInfo(o.Name, f.Version, o.Cfg, workers),
		store:    &experiments.Store{Dir: dir}}
	r.shard = &shardWriter{r: r, log: experiments.NewShardLog(*shard), start: r.info.Start}
	r.shard.log.Changed = r.shard.changed
	return r, nil
}
