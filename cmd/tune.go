package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/fedcon/fedcon/configs"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/ssca"
)

// newCmdTune groups the hyper-parameter searches.
func newCmdTune(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "tune",
		Short: "Grid searches that write committed configuration (e.g. the SGD baselines' learning rates)",
		Args:  cobra.ArbitraryArgs,
		RunE:  requireSubcommand,
	}
	c.AddCommand(newCmdTuneSSCASGD(f, nil))
	return c
}

// TuneOptions are the flags of `tune ssca-sgd`.
type TuneOptions struct {
	SSCAOptions
	Grid  string
	Write string
}

func newCmdTuneSSCASGD(f *Factory, runF func(*TuneOptions) error) *cobra.Command {
	o := &TuneOptions{}
	c := &cobra.Command{
		Use:   "ssca-sgd",
		Short: "Choose the SGD baselines' learning rates a/t^beta on the grid of configs/ssca/sgd-grid.yaml",
		Long: `ssca-sgd runs every FedAvg and feature-SGD baseline of SSCA Figures 2-3 at every (a, beta)
of the grid, on the grid's seeds (disjoint from the reporting seeds), and writes the rate with
the lowest mean training cost F(w^T) per baseline to --write (configs/ssca/sgd-lr.yaml, which
'reproduce ssca-*' embeds at build time: rebuild, or pass --sgd-lr). Finished runs are kept in
<out>/ssca-tune/trials/, so an interrupted search resumes.`,
		Example: "  fedcon tune ssca-sgd --quick\n  fedcon tune ssca-sgd --workers 2",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.bind(c)
			o.Dirs = dataDirs(f, c)
			if runF != nil {
				return runF(o)
			}
			return tuneRun(f, o)
		},
	}
	addSSCAFlags(c, &o.SSCAOptions)
	fl := c.Flags()
	fl.BoolVar(&o.Quick, "quick", false, "evaluate F(w^T) on the fixed 5000-image training subset")
	fl.StringVar(&o.Grid, "grid", "", "grid YAML (default: the embedded configs/ssca/sgd-grid.yaml)")
	fl.StringVar(&o.Write, "write", filepath.Join("configs", "ssca", "sgd-lr.yaml"), "where to write the chosen rates")
	return c
}

func tuneRun(f *Factory, o *TuneOptions) error {
	cfg, err := loadSSCAConfig(f, &o.SSCAOptions)
	if err != nil {
		return err
	}
	var b []byte
	if o.Grid == "" {
		b, err = configs.Preset("ssca/sgd-grid")
	} else {
		b, err = os.ReadFile(o.Grid)
	}
	if err != nil {
		return &FlagError{err: fmt.Errorf("--grid: %w", err)}
	}
	grid := &ssca.SGDGrid{}
	if err := yaml.Unmarshal(b, grid); err != nil {
		return &experiments.ConfigError{Field: "grid", Value: o.Grid, Reason: err.Error()}
	}
	if err := grid.Validate(cfg); err != nil {
		return err
	}
	workers, data, err := sscaSetup(o.ctx, f, o.Workers, cfg, o.Dirs)
	if err != nil {
		return err
	}
	oo := o.commonOptions
	oo.OutDir = resultsDir(oo.OutDir, o.Quick)
	out, err := newRunOutput(f, &oo, "ssca-tune", cfg, grid.Seed, cfg.TrialHash(), workers)
	if err != nil {
		return err
	}
	res, err := ssca.RunSGDTune(o.ctx, cfg, data, grid, out.options())
	if err != nil {
		return out.failed(err, nil, nil)
	}
	res.Info = out.info
	if out.shard != nil { // a shard's results are partial: no rates chosen
		return out.finishShard(nil)
	}
	if err := writeSGDRates(o.Write, cfg, grid, res.Chosen); err != nil {
		return err
	}
	res.Table.Notes = append(res.Table.Notes, "chosen rates written to "+o.Write+
		"; 'reproduce ssca-*' and 'run ssca' use the rates built into the binary: rebuild (make build) or pass --sgd-lr "+o.Write+".")
	return out.tables(res, []*experiments.Table{res.Table}, nil)
}

// writeSGDRates writes the chosen rates in configs/ssca/sgd-lr.yaml's format.
func writeSGDRates(path string, cfg *ssca.Config, grid *ssca.SGDGrid, rates map[string]ssca.SGDRate) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# SGD baselines' learning rates r_t = a/t^beta, written by `fedcon tune ssca-sgd`:\n")
	fmt.Fprintf(&b, "# per baseline the lowest mean F(w^T) (%s, %s) over seeds %d..%d,\n", cfg.Dataset,
		map[bool]string{true: "5000-image training subset", false: "full training set"}[cfg.EvalSubset > 0], grid.Seed, grid.Seed+uint64(grid.Seeds)-1)
	fmt.Fprintf(&b, "# grid a = %v, beta = %v (configs/ssca/sgd-grid.yaml).\n", grid.A, grid.Beta)
	m := map[string]map[string]ssca.SGDRate{"sgd_rates": rates}
	y, err := yaml.Marshal(m)
	if err != nil {
		return err
	}
	b.Write(y)
	if err := experiments.WriteAtomic(path, []byte(b.String())); err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	return nil
}
