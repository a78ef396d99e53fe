package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/fedcon/fedcon/configs"
	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/ssca"
)

// SSCAOptions are the flags of `run ssca` and `reproduce ssca-*`.
type SSCAOptions struct {
	commonOptions
	Dirs  []string
	Quick bool
	// SGDRates is a YAML file with sgd_rates (default: configs/ssca/sgd-lr.yaml, embedded).
	SGDRates string
	// Figures to reproduce (reproduce); empty for `run ssca`.
	Figures []string
	// Single spec (`run ssca`).
	Algo       string
	Batch      int
	LocalSteps int
	U          float64
}

func addSSCAFlags(c *cobra.Command, o *SSCAOptions) {
	addCommonFlags(c, &o.commonOptions, "ssca/ssca")
	usePresets(c, "", "ssca/ssca")
	fl := c.Flags()
	keyFlags(c, func(fl *pflag.FlagSet) {
		fl.Int("runs", 100, "independent runs; run r uses seed+r for shards, w^1 and mini-batches")
		fl.Uint64("seed", 1, "seed of run 0")
		fl.String("dataset", "fashion-mnist", "idx data set: fashion-mnist or mnist")
		fl.Float64("lambda", 1e-3, "λ of (27) (Algorithms 1, 3, and the SGD baselines)")
		fl.Float64("tau", 0.1, "τ of the surrogates (7), (11)")
		fl.Float64("c", 1e5, "slack penalty c (Algorithms 2, 4)")
		enumFlag(fl, "labels", ssca.LabelsAll, "feature-based labels: all (every client) or client0")
		fl.Int("rounds", 100, "T")
	})
	fl.Float64Var(&o.U, "U", 0, "U of (37) for the data set")
	fl.StringVar(&o.SGDRates, "sgd-lr", "", "YAML with the SGD baselines' sgd_rates (default: the embedded configs/ssca/sgd-lr.yaml)")
	ownKeyFlag(c, "U", "u")
	ownKeyFlag(c, "sgd-lr", "sgd_rates")
}

func (o *SSCAOptions) setDirs(d []string) { o.Dirs = d }

// loadSSCAConfig builds and validates the configuration.
func loadSSCAConfig(f *Factory, o *SSCAOptions) (*ssca.Config, error) {
	cfg := &ssca.Config{}
	if err := loadConfig(f, &o.commonOptions, "ssca/ssca", cfg); err != nil {
		return nil, err
	}
	if o.U != 0 || o.flags != nil && o.flags.Changed("U") {
		if cfg.U == nil {
			cfg.U = map[string]float64{}
		}
		cfg.U[cfg.Dataset] = o.U
	}
	if o.Quick {
		runs := cfg.Runs
		cfg.Quick()
		if o.flags != nil && o.flags.Changed("runs") {
			cfg.Runs = runs // an explicit --runs wins over --quick's 2
		}
	}
	o.Dirs = datasets.IDXSearchPath(cfg.Dataset, o.Dirs)
	if cfg.SGDRates == nil {
		rates, err := loadSGDRates(o.SGDRates)
		if err != nil {
			return nil, err
		}
		cfg.SGDRates = rates
	}
	return cfg, cfg.Validate()
}

// sgdRateFile is the format of configs/ssca/sgd-lr.yaml.
type sgdRateFile struct {
	SGDRates map[string]ssca.SGDRate `yaml:"sgd_rates"`
}

func loadSGDRates(path string) (map[string]ssca.SGDRate, error) {
	var b []byte
	var err error
	if path == "" {
		b, err = configs.Preset("ssca/sgd-lr")
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, &FlagError{err: fmt.Errorf("--sgd-lr: %w", err)}
	}
	var f sgdRateFile
	if err := yaml.Unmarshal(b, &f); err != nil {
		return nil, &experiments.ConfigError{Field: "sgd_rates", Value: path, Reason: err.Error()}
	}
	return f.SGDRates, nil
}

func newCmdRunSSCA(f *Factory, runF func(*SSCAOptions) error) *cobra.Command {
	o := &SSCAOptions{}
	c := &cobra.Command{
		Use:   "ssca",
		Short: "SSCA federated learning (Ye & Cui): one algorithm at one batch size, on Fashion-MNIST or MNIST",
		Example: `  fedcon run ssca --algo alg1 --batch 100 --runs 2
  fedcon run ssca --algo alg2 --batch 10 --U 0.5 --runs 1
  fedcon run ssca --algo fedavg --batch 5 --local-steps 2`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.bind(c)
			o.Dirs = dataDirs(f, c)
			if !slices.Contains(ssca.Algos, o.Algo) {
				return &FlagError{err: fmt.Errorf("--algo %q: want one of %s", o.Algo, strings.Join(ssca.Algos, ", ")), usage: c.CommandPath()}
			}
			if runF != nil {
				return runF(o)
			}
			return sscaRun(f, o)
		},
	}
	addSSCAFlags(c, o)
	addYesFlag(c, &o.commonOptions)
	c.Flags().StringVar(&o.Algo, "algo", "alg1", "alg1, alg2 (sample-based), alg3, alg4 (feature-based), fedavg or fsgd")
	c.Flags().IntVar(&o.Batch, "batch", 100, "mini-batch size B (per client sample-based, in all feature-based)")
	c.Flags().IntVar(&o.LocalSteps, "local-steps", 1, "E: FedAvg's local SGD steps")
	c.Flags().BoolVar(&o.Quick, "quick", false, "evaluate every 10 rounds on fixed 5000-image subsets")
	return c
}

// sscaSetup resolves --workers and loads cfg's data: the common start of
// the SSCA commands.
func sscaSetup(ctx context.Context, f *Factory, workers int, cfg *ssca.Config, dirs []string) (int, *ssca.Data, error) {
	w, err := workersFlag(f, workers)
	if err != nil {
		return 0, nil, err
	}
	data, err := experiments.Interruptible(ctx, func() (*ssca.Data, error) { return ssca.LoadData(cfg, dirs) })
	return w, data, err
}

func sscaRun(f *Factory, o *SSCAOptions) error {
	// What one algorithm does not read: FedAvg's local steps, and the keys
	// of the other algorithms (λ, U, c, τ, labels, SGD rates).
	o.scope = "--algo " + o.Algo
	if o.Algo != "fedavg" && o.flags != nil && o.flags.Changed("local-steps") {
		return flagErrorf("--local-steps: %s does not use it (FedAvg's local SGD steps: --algo fedavg)", o.what())
	}
	o.ignoreKeys(ssca.UnreadKeys([]ssca.Spec{{Algo: o.Algo}}))
	cfg, err := loadSSCAConfig(f, o)
	if err != nil {
		return err
	}
	spec := ssca.Spec{Algo: o.Algo, Batch: o.Batch, Lambda: cfg.Lambda, U: cfg.UValue()}
	if o.Algo == "fedavg" {
		spec.LocalSteps = o.LocalSteps
	}
	if err := cfg.CheckSpec(spec); err != nil {
		return err
	}
	workers, data, err := sscaSetup(o.ctx, f, o.Workers, cfg, o.Dirs)
	if err != nil {
		return err
	}
	specs := []ssca.Spec{spec}
	if err := checkCost(f, &o.commonOptions, "run ssca", cfg.SpecsCost(data, specs, cfg.Runs), workers); err != nil {
		return err
	}
	out, err := sscaOutput(f, o, cfg, workers, "run-"+spec.Key())
	if err != nil {
		return err
	}
	curves, err := ssca.RunSpecs(o.ctx, cfg, data, specs, cfg.Runs, out.options())
	res := ssca.NewResult("run", cfg, data, curves)
	res.Name = "run-" + spec.Key()
	res.Info = out.info
	return sscaFinish(out, res, false, err)
}

// sscaOutput is results/ssca/ (quick: results/quick/ssca/) with the trial
// store shared by every SSCA figure and run under the same configuration.
// Each result name has its own manifest, marked incomplete before any work.
func sscaOutput(f *Factory, o *SSCAOptions, cfg *ssca.Config, workers int, resName string) (*runOutput, error) {
	oo := o.commonOptions
	oo.OutDir = resultsDir(oo.OutDir, o.Quick)
	out, err := openRunOutput(f, &oo, "ssca", cfg, cfg.Seed, cfg.TrialHash(), workers)
	if err != nil {
		return nil, err
	}
	out.manifest = "manifest-" + resName + ".json"
	if err := out.begin(); err != nil {
		out.unlock()
		return nil, err
	}
	return out, nil
}

// sscaFinish writes <name>.{json,csv,md}, <name>-points.csv, the figure
// (PNG, SVG) and manifest-<name>.json, then prints the table and paths.
func sscaFinish(out *runOutput, res *ssca.Result, figure bool, runErr error) error {
	out.manifest = "manifest-" + res.Name + ".json"
	if runErr != nil {
		return out.failed(runErr, nil, nil)
	}
	if out.shard != nil {
		return out.finishShard(nil)
	}
	defer out.unlock()
	out.finish()
	base := filepath.Join(out.dir, res.Name)
	paths, err := experiments.WriteOutputs(out.dir, res.Name, res, res.Summary)
	if err != nil {
		return err
	}
	pts := res.Points()
	if err := experiments.WriteAtomic(base+"-points.csv", []byte(pts.CSV())); err != nil {
		return err
	}
	paths = append(paths, base+"-points.csv")
	var claims *experiments.Table
	if figure {
		fp, err := renderFigure(&res.Figure, base)
		if err != nil {
			return fmt.Errorf("%s: %w", res.Name, err)
		}
		paths = append(paths, fp...)
		res.Rounds.Notes = append(res.Rounds.Notes, res.ProvenanceNote())
		for _, f := range []struct{ ext, data string }{{"csv", res.Rounds.CSV()}, {"md", res.Rounds.Markdown()}} {
			if err := experiments.WriteAtomic(base+"-rounds."+f.ext, []byte(f.data)); err != nil {
				return err
			}
			paths = append(paths, base+"-rounds."+f.ext)
		}
		claims = ssca.ClaimsTable(res.ClaimsTitle(strings.TrimPrefix(res.Name, "ssca-")), res.Claims)
		claims.Notes = append(claims.Notes, res.ProvenanceNote())
		cp, err := experiments.WriteOutputs(out.dir, res.Name+"-claims", res.Claims, claims)
		if err != nil {
			return err
		}
		paths = append(paths, cp...)
	}
	if err := out.writeManifest(nil); err != nil {
		return err
	}
	switch {
	case out.o.batch:
	case out.o.JSON:
		return printJSON(out.f.IO.Out, res)
	default:
		tables := []*experiments.Table{res.Summary}
		if claims != nil && len(claims.Rows) > 0 {
			tables = append(tables, claims)
		}
		if err := printTables(out.f.IO.Out, out.f.tableWidth(), tables...); err != nil {
			return err
		}
		for _, p := range paths {
			fmt.Fprintln(out.f.IO.Out, p)
		}
	}
	out.name = res.Name
	if figure {
		out.summary(base + ".{json,csv,md,png,svg}")
	} else {
		out.summary(base + ".{json,csv,md}")
	}
	return nil
}
