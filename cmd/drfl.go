package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/drfl"
)

// DRFLOptions are the flags of `fedcon run drfl`.
type DRFLOptions struct {
	commonOptions
	Dataset, Model, Loss, Imbalance string
	TestMean, TestSD                float64
	Dirs                            []string
	// Cfg is configs/drfl/drfl.yaml under --config, FEDCON_* and the
	// flags set on the command line (load).
	Cfg *drfl.Config
}

// loadDRFLConfig reads the DRFL preset under o's --config, FEDCON_* and
// the configuration flags that were set.
func loadDRFLConfig(f *Factory, o *commonOptions) (*drfl.Config, error) {
	cfg := &drfl.Config{}
	if err := loadConfig(f, o, drfl.Preset, cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// addDRFLConfigFlag adds --config to a DRFL command.
func addDRFLConfigFlag(c *cobra.Command, o *commonOptions) {
	usePresets(c, "", drfl.Preset)
	c.Flags().StringVar(&o.Config, "config", "", "YAML file overriding keys of the preset configs/"+drfl.Preset+".yaml")
}

func newCmdRunDRFL(f *Factory, runF func(*DRFLOptions) error) *cobra.Command {
	o := &DRFLOptions{}
	def := drfl.DefaultConfig()
	c := &cobra.Command{
		Use:   "drfl",
		Short: "Train one DRFL-family model on one repetition's split and print its test accuracy (SVM) or MSE (Huber)",
		Long: `Train one DRFL-family model on one repetition's split and print its test accuracy (SVM) or MSE (Huber).

Defaults come from the preset configs/drfl/drfl.yaml; --config FILE overrides its keys,
FEDCON_<KEY> (e.g. FEDCON_TOL, FEDCON_CV_GRID_KAPPA=0.3,0.6) any key but lists of maps, and flags
set on the command line win.`,
		Example: `  fedcon run drfl --dataset heart --model drfl --rho 0.01 --kappa 0.5 --theta 0.01
  fedcon run drfl --dataset abalone --model drfl --rho 0.001 --kappa 0.5   # Huber regression
  fedcon run drfl --model wafl --rho 0.001 --test-sd 0.5
  fedcon run drfl --model afl --theta 0.1 --p inf --json
  fedcon run drfl --config my-drfl.yaml`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.bind(c)
			o.Dirs = dataDirs(f, c)
			cfg, err := loadDRFLConfig(f, &o.commonOptions)
			if err != nil {
				return err
			}
			o.Cfg = cfg
			if runF != nil {
				return runF(o)
			}
			return drflRun(f, o)
		},
	}
	addDRFLConfigFlag(c, &o.commonOptions)
	addYesFlag(c, &o.commonOptions)
	fl := c.Flags()
	fl.StringVar(&o.Dataset, "dataset", "heart", "dataset: heart or breast-cancer-wisc (SVM), abalone (Huber regression)")
	fl.StringVar(&o.Loss, "loss", "", "loss: hinge (SVM) or huber (regression); default by dataset")
	keyFlags(c, func(fl *pflag.FlagSet) { fl.Float64("epsilon", def.Epsilon, "Huber threshold ε > 0") })
	fl.StringVar(&o.Model, "model", "drfl", "model: "+strings.Join(drfl.Models(), ", "))
	keyFlags(c, func(fl *pflag.FlagSet) {
		fl.String("rho", def.Rho, "Wasserstein radius ρ for every client, or S comma-separated ρ_s (wafl: the pooled ball)")
	})
	fl.StringVar(&o.Imbalance, "imbalance", "", "share of each client's minority class kept, S comma-separated ratios in (0, 1] (Figures 4-5: "+joinFloats(def.Imbalance)+")")
	keyFlags(c, func(fl *pflag.FlagSet) {
		fl.Float64("kappa", def.Kappa, "label-flip cost κ > 0")
		fl.Float64("theta", def.Theta, "radius θ ≥ 0 of the weight set Q (drfl, afl)")
		enumFlag(fl, "p", def.P, "norm of Q: 1, 2 or inf")
		fl.String("qhat", def.QHat, "centre q̂: size (N_s/N), uniform, or S comma-separated weights")
		enumFlag(fl, "support", def.Support, "feature support in Ω_s of the SVM: box ([−1,1]ⁿ, Prop. 6.3) or free (Huber: Ξ = ℝⁿ⁺¹ always)")
		fl.Float64("c", def.C, "AD-LPMM step size c > 0")
		fl.Float64("tol", def.Tol, "stopping tolerance on residuals and c·steps")
		fl.Int("max-rounds", def.MaxRounds, "round cap (status RoundLimit)")
		fl.Uint64("seed", def.Seed, "repetition seed: split, clients, noise")
	})
	fl.Float64Var(&o.TestMean, "test-mean", 0, "mean of the Gaussian noise added to the test features")
	fl.Float64Var(&o.TestSD, "test-sd", 0, "SD of the Gaussian noise added to the test features")
	fl.StringVar(&o.OutDir, "out", "", "also write the fit (run record, configuration, weights w_b) to <out>/drfl-<dataset>-<model>/, where fedcon check recomputes it; empty: print only")
	fl.IntVar(&o.Workers, "workers", 0, "clients solved at once (default: number of CPUs)")
	return c
}

// joinFloats writes xs as a flag takes them: "0.5,0.5,1".
func joinFloats(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

func drflRun(f *Factory, o *DRFLOptions) error {
	cfg := o.Cfg
	if err := cfg.ValidateData(); err != nil {
		return err
	}
	p, err := cfg.Params(o.Model, o.Loss)
	if err != nil {
		return err
	}
	if !(o.TestSD >= 0) {
		return &experiments.ConfigError{Field: "test_sd", Value: o.TestSD, Reason: "want ≥ 0"}
	}
	workers, err := workersFlag(f, o.Workers)
	if err != nil {
		return err
	}
	if rows, cols, regression, ok := drfl.DatasetShape(o.Dataset); ok {
		// One fit on a built-in data set: estimated before any data is read.
		if err := checkCost(f, &o.commonOptions, "run drfl", drfl.FitCost(rows, cols, regression), min(workers, max(1, cfg.Clients))); err != nil {
			return err
		}
	}
	dcfg := cfg.Data(o.Dataset, false)
	if o.Imbalance != "" {
		if dcfg.Imbalance, err = drfl.FloatList("imbalance", o.Imbalance); err != nil {
			return err
		}
		if len(dcfg.Imbalance) != cfg.Clients {
			return &experiments.ConfigError{Field: "imbalance", Value: o.Imbalance, Reason: fmt.Sprintf("want %d ratios, one per client", cfg.Clients)}
		}
		for s, r := range dcfg.Imbalance {
			if !(r > 0 && r <= 1) {
				return &experiments.ConfigError{Field: "imbalance", Value: o.Imbalance, Reason: fmt.Sprintf("ratio of client %d outside (0, 1]", s+1)}
			}
		}
	}
	d, err := experiments.Interruptible(o.ctx, func() (*datasets.Dataset, error) { return datasets.Load(o.Dataset, o.Dirs) })
	if err != nil {
		return err
	}
	if o.Loss == "" && d.Regression {
		p.Loss, p.Epsilon = "huber", cfg.Epsilon
	}
	sp, err := drfl.NewSplit(d, dcfg, cfg.Seed)
	if err != nil {
		return err
	}
	fit := &drfl.FitConfig{Dataset: o.Dataset, Data: dcfg, Seed: cfg.Seed, TestMean: o.TestMean, TestSD: o.TestSD}
	testX := fit.FitTest(sp)
	set := cfg.Settings(workers)
	if !o.Quiet && f.IO.ErrTTY {
		set.Record = func(round int, prim, step float64) {
			if round%50 == 0 {
				fmt.Fprintf(f.IO.ErrOut, "\rround %d  residual %.2e  step %.2e", round, prim, step)
			}
		}
	}
	ctx := o.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	r, err := drfl.Run(ctx, sp, p, testX, set)
	if set.Record != nil {
		fmt.Fprintln(f.IO.ErrOut)
	}
	if r == nil {
		return err
	}
	if o.OutDir != "" && err == nil {
		name := drfl.FitName(o.Dataset, p.Model)
		info := experiments.NewRunInfo(name, f.Version, fit, workers)
		info.Finish()
		path := filepath.Join(o.OutDir, name, name+".json")
		if e := experiments.WriteJSON(path, &drfl.FitResult{Info: info, Fit: r}); e != nil {
			return e
		}
		if !o.Quiet {
			defer fmt.Fprintln(f.IO.ErrOut, "wrote", path)
		}
	}
	if o.JSON {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetIndent("", "  ")
		if e := enc.Encode(r); e != nil {
			return e
		}
		return err
	}
	q := make([]string, len(r.QStar))
	for s, v := range r.QStar {
		q[s] = strconv.FormatFloat(v, 'f', 3, 64)
	}
	t := &experiments.Table{
		Header: []string{"model", "status", "rounds", "objective (4)", "worst case", "train " + r.Metric, "test " + r.Metric, "worst client", "q* = −σ", "bytes/round", "bytes", "seconds"},
		Rows: [][]string{{r.Params.Model, r.StatusFlags(), fmt.Sprint(r.Rounds), fmt.Sprintf("%.6f", r.Objective), fmt.Sprintf("%.6f", r.WorstCase),
			fmt.Sprintf("%.4f", r.Train), fmt.Sprintf("%.4f", r.Test), fmt.Sprintf("%.4f", r.WorstClient),
			strings.Join(q, " "), fmt.Sprint(r.BytesPerRound), fmt.Sprint(r.BytesTotal), fmt.Sprintf("%.2f", r.Seconds)}},
	}
	t.Brief = t.Pick("status", "objective (4)", "worst case", "test "+r.Metric, "worst client")
	if e := printTables(f.IO.Out, f.tableWidth(), t); e != nil {
		return e
	}
	if !r.Converged() || r.InnerCapHits > 0 {
		fmt.Fprintf(f.IO.ErrOut, "fedcon: warning: %s after %d rounds\n", r.StatusFlags(), r.Rounds)
	}
	return err
}
