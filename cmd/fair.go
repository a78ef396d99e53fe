package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fedcon/fedcon/experiments/proxal"
)

// FairOptions are the flags of `run fair`, `reproduce table2` and `reproduce figure2`.
type FairOptions struct {
	commonOptions
	Dirs    []string
	Preset  string
	Single  bool
	Clients int
	Own     ownDataOptions
}

func (o *FairOptions) setDirs(d []string) { o.Dirs = d }

func (o *FairOptions) check() error {
	if o.Preset != "table2" && o.Preset != "table2-authors" {
		return flagErrorf("--preset %q: must be table2 (the paper's parameters) or table2-authors (the authors' code)", o.Preset)
	}
	return nil
}

func fairCommand(f *Factory, use, short, example string, o *FairOptions, run func(*Factory, *FairOptions) error, runF func(*FairOptions) error) *cobra.Command {
	c := dataCommand(f, use, short, example, "table2", o, run, runF)
	c.Flags().StringVar(&o.Preset, "preset", "table2", "table2 (the paper's parameters) or table2-authors (beta 50, s̄ 0.01, rho 0.1, 50 inner iterations)")
	usePresets(c, "--preset", "table2=table2", "table2-authors=table2-authors")
	return c
}

func newCmdReproduceTable2(f *Factory, runF func(*FairOptions) error) *cobra.Command {
	c := fairCommand(f, "table2", "Table 2: fairness constraints (eq. (32)) on adult-b, Algorithm 1 vs cProx-AL",
		"  fedcon reproduce table2\n  fedcon reproduce table2 --preset table2-authors --clients 1,5", &FairOptions{}, fairRun, runF)
	keyFlags(c, func(fl *pflag.FlagSet) {
		fl.IntSlice("clients", nil, "client counts n")
	})
	return c
}

func newCmdRunFair(f *Factory, runF func(*FairOptions) error) *cobra.Command {
	o := &FairOptions{Single: true}
	c := fairCommand(f, "fair", "Fairness-constrained classification (eq. (32)) with n clients, both algorithms",
		"  fedcon run fair --clients 10 --trials 3\n  fedcon run fair --data people.csv --label income --positive high --sensitive sex", o, fairRun, runF)
	c.Flags().IntVar(&o.Clients, "clients", 5, "number of clients n")
	addOwnDataFlags(c, &o.Own, true)
	addParticipationFlags(c)
	return c
}

func newCmdReproduceFigure2(f *Factory, runF func(*FairOptions) error) *cobra.Command {
	c := fairCommand(f, "figure2", "Figure 2: disparities and objective per outer iteration of Algorithm 1, n = 5, 10, 20",
		"  fedcon reproduce figure2", &FairOptions{}, figure2Run, runF)
	_ = c.Flags().MarkHidden("trials") // refused: one trial per n
	return c
}

func loadFair(f *Factory, o *FairOptions) (*proxal.FairConfig, int, error) {
	cfg := &proxal.FairConfig{}
	if err := loadConfig(f, &o.commonOptions, o.Preset, cfg); err != nil {
		return nil, 0, err
	}
	if o.Single {
		cfg.Clients = []int{o.Clients}
		src, err := o.Own.source(o.cmd)
		if err != nil {
			return nil, 0, err
		}
		if src != nil {
			cfg.Dataset, cfg.Clients, cfg.Data = "", []int{o.Own.clients(o.cmd, src, o.Clients)}, src
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, 0, err
	}
	if o.Single {
		if err := replayFlag(&o.commonOptions, &cfg.ParticipationConfig, cfg.Clients[0], cfg.Trials); err != nil {
			return nil, 0, err
		}
	}
	if cfg.Data != nil {
		if err := checkData(f, &o.commonOptions, cfg.Data, cfg.Seed, cfg.Clients, true); err != nil {
			return nil, 0, err
		}
	}
	workers, err := workersFlag(f, o.Workers)
	return cfg, workers, err
}

func fairRun(f *Factory, o *FairOptions) error {
	cfg, workers, err := loadFair(f, o)
	if err != nil {
		return err
	}
	name := o.Preset
	if o.Single {
		name = fmt.Sprintf("fair-n%d", o.Clients)
		if cfg.Data != nil {
			name = o.Own.runName("fair", cfg.Data, cfg.Clients[0])
		}
	}
	out, err := newRunOutput(f, &o.commonOptions, name, cfg, cfg.Seed, cfg.TrialHash(), workers)
	if err != nil {
		return err
	}
	res, err := proxal.RunFair(o.ctx, cfg, o.Dirs, out.options())
	if res == nil {
		return out.failed(err, nil, nil)
	}
	res.Info = out.info
	return out.tables(res, res.Tables(), err)
}

func figure2Run(f *Factory, o *FairOptions) error {
	o.ignoreKeys(map[string]string{"trials": figureTrials})
	cfg, workers, err := loadFair(f, o)
	if err != nil {
		return err
	}
	if o.Config == "" && o.adjust == nil {
		cfg.Clients = []int{5, 10, 20} // the paper's Figure 2
	}
	cfg.Trials = 1 // what runs, so that the manifest records it
	name := "figure2"
	if o.Preset != "table2" {
		name += "-" + strings.TrimPrefix(o.Preset, "table2-")
	}
	out, err := newRunOutput(f, &o.commonOptions, name, cfg, cfg.Seed, cfg.TrialHash(), workers)
	if err != nil {
		return err
	}
	res, err := proxal.RunFigure2(o.ctx, cfg, o.Dirs, out.options())
	if err != nil {
		return out.failed(err, nil, nil)
	}
	res.Info = out.info
	return out.figure(res, &res.Figure, nil)
}
