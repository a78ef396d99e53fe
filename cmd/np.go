package cmd

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fedcon/fedcon/experiments/proxal"
)

// NPOptions are the flags of `run np` and `reproduce table1`.
type NPOptions struct {
	commonOptions
	Dirs []string
	// Single (dataset, n) run (`run np`).
	Single  bool
	Dataset string
	Clients int
	Own     ownDataOptions
}

func (o *NPOptions) setDirs(d []string) { o.Dirs = d }
func (o *NPOptions) check() error       { return nil }

// npCommand builds a command over the Table 1 preset running run(o).
func npCommand(f *Factory, use, short, example string, o *NPOptions, run func(*Factory, *NPOptions) error, runF func(*NPOptions) error) *cobra.Command {
	c := dataCommand(f, use, short, example, "table1", o, run, runF)
	keyFlags(c, func(fl *pflag.FlagSet) {
		enumFlag(fl, "admm-start", proxal.ADMMStartWk, "where Algorithm 2 starts: wk (w^k, the paper) or w0 (the trial's w0, the authors' NP code)")
	})
	return c
}

func newCmdReproduceTable1(f *Factory, runF func(*NPOptions) error) *cobra.Command {
	c := npCommand(f, "table1", "Table 1: Neyman-Pearson classification (eq. (30)), Algorithm 1 vs cProx-AL",
		"  fedcon reproduce table1\n  fedcon reproduce table1 --rho-rule fixed --inner-test paper --eps-rel 0 --outer-relax 0 --trials 2 --datasets monks-1 --clients 1,5", &NPOptions{}, npRun, runF)
	keyFlags(c, func(fl *pflag.FlagSet) {
		fl.IntSlice("clients", nil, "client counts n")
		fl.StringSlice("datasets", nil, "datasets")
	})
	return c
}

func newCmdRunNP(f *Factory, runF func(*NPOptions) error) *cobra.Command {
	o := &NPOptions{Single: true}
	c := npCommand(f, "np", "Neyman-Pearson classification (eq. (30)) on one dataset with n clients, both algorithms",
		"  fedcon run np --dataset adult-a --clients 10 --trials 3\n  fedcon run np --data patients.csv --label outcome --positive sick --partition-by hospital", o, npRun, runF)
	c.Flags().StringVar(&o.Dataset, "dataset", "breast-cancer-wisc", "classification dataset: breast-cancer-wisc, adult-a, monks-1 (Table 1) or another two-class one of 'fedcon data list'")
	c.Flags().IntVar(&o.Clients, "clients", 5, "number of clients n")
	addOwnDataFlags(c, &o.Own, false)
	addParticipationFlags(c)
	return c
}

func npRun(f *Factory, o *NPOptions) error {
	cfg := &proxal.NPConfig{}
	if err := loadConfig(f, &o.commonOptions, "table1", cfg); err != nil {
		return err
	}
	name := "table1"
	if o.Single {
		cfg.Datasets, cfg.Clients = []string{o.Dataset}, []int{o.Clients}
		name = fmt.Sprintf("np-%s-n%d", o.Dataset, o.Clients)
		src, err := o.Own.source(o.cmd)
		if err != nil {
			return err
		}
		if src != nil {
			n := o.Own.clients(o.cmd, src, o.Clients)
			cfg.Datasets, cfg.Clients, cfg.Data = nil, []int{n}, src
			name = o.Own.runName("np", src, n)
		}
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if o.Single {
		if err := replayFlag(&o.commonOptions, &cfg.ParticipationConfig, cfg.Clients[0], cfg.Trials); err != nil {
			return err
		}
	}
	if cfg.Data != nil {
		if err := checkData(f, &o.commonOptions, cfg.Data, cfg.Seed, cfg.Clients, false); err != nil {
			return err
		}
	}
	workers, err := workersFlag(f, o.Workers)
	if err != nil {
		return err
	}
	out, err := newRunOutput(f, &o.commonOptions, name, cfg, cfg.Seed, cfg.TrialHash(), workers)
	if err != nil {
		return err
	}
	res, err := proxal.RunNP(o.ctx, cfg, o.Dirs, out.options())
	if res == nil {
		return out.failed(err, nil, nil)
	}
	res.Info = out.info
	return out.tables(res, res.Tables(), err)
}
