package cmd

import (
	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/proxal"
)

func newCmdReproduceFigure1(f *Factory, runF func(*NPOptions) error) *cobra.Command {
	o := &NPOptions{}
	c := npCommand(f, "figure1", "Figure 1: class-0 and class-1 losses per outer iteration of Algorithm 1 (n = 5, one trial per dataset)",
		"  fedcon reproduce figure1", o, figure1Run, runF)
	c.Flags().IntVar(&o.Clients, "clients", 5, "number of clients n (the paper's Figure 1 used 5)")
	_ = c.Flags().MarkHidden("trials") // refused: one trial per data set
	return c
}

func figure1Run(f *Factory, o *NPOptions) error {
	cfg := &proxal.NPConfig{}
	o.ignoreKeys(map[string]string{"trials": figureTrials, "clients": "--clients sets n"})
	if err := loadConfig(f, &o.commonOptions, "table1", cfg); err != nil {
		return err
	}
	cfg.Clients = []int{o.Clients}
	cfg.Trials = 1 // what runs, so that the manifest records it
	if err := cfg.Validate(); err != nil {
		return err
	}
	return figureRun(f, &o.commonOptions, "figure1", cfg, cfg.Seed, cfg.TrialHash(),
		func(opt experiments.RunOptions, info *experiments.RunInfo) (any, *experiments.Figure, error) {
			res, err := proxal.RunFigure1(o.ctx, cfg, o.Dirs, opt)
			if err != nil {
				return nil, nil, err
			}
			res.Info = info
			return res, &res.Figure, nil
		})
}

// figureTrials is why a figure refuses --trials.
const figureTrials = "a figure runs one trial per data set and n"

// figureRun runs a figure experiment of a validated cfg into <out>/<name>/
// (trial store, manifest) and renders it: run gets the run options and the
// run record to put in its result, and returns the result and its figure.
func figureRun(f *Factory, o *commonOptions, name string, cfg any, seed uint64, hash string,
	run func(experiments.RunOptions, *experiments.RunInfo) (any, *experiments.Figure, error)) error {
	workers, err := workersFlag(f, o.Workers)
	if err != nil {
		return err
	}
	out, err := newRunOutput(f, o, name, cfg, seed, hash, workers)
	if err != nil {
		return err
	}
	doc, fig, err := run(out.options(), out.info)
	if err != nil {
		return out.failed(err, nil, nil)
	}
	return out.figure(doc, fig, nil)
}
