package cmd

import (
	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/conic"
	"github.com/fedcon/fedcon/experiments/proxal"
)

// ConicFigureOptions are the flags of `reproduce conic-figure1` and `conic-figure2`.
type ConicFigureOptions struct {
	ConicClassOptions
	// Clients are the client counts n, one panel per n (Figure 1: the first
	// n only, one panel per dataset).
	Clients []int
}

func newCmdReproduceConicFigure1(f *Factory, runF func(*ConicFigureOptions) error) *cobra.Command {
	o := &ConicFigureOptions{}
	c := conicClassCommand(f, "conic-figure1",
		"Conic paper, Figure 1: class-0 and class-1 losses per outer iteration of Algorithm 1 (eq. (26), w0 = ones, β = 300, ρ_i = 0.01)",
		"  fedcon reproduce conic-figure1\n  fedcon reproduce conic-figure1 --clients 10 --rho-rule fixed --outer-relax 0", "conic-table2", "ones", o, conicFigure1Run, runF)
	c.Flags().IntSliceVar(&o.Clients, "clients", []int{5}, "number of clients n (the conic paper does not state it; the core paper's Figure 1 used 5)")
	_ = c.Flags().MarkHidden("trials") // refused: one trial per n
	return c
}

func newCmdReproduceConicFigure2(f *Factory, runF func(*ConicFigureOptions) error) *cobra.Command {
	o := &ConicFigureOptions{}
	c := conicClassCommand(f, "conic-figure2",
		"Conic paper, Figure 2: disparities and loss per outer iteration of Algorithm 1 (eq. (28), adult-b, r = 0.01, ρ_i = 1e8)",
		"  fedcon reproduce conic-figure2\n  fedcon reproduce conic-figure2 --clients 5 --rho-rule fixed --outer-relax 0", "conic-table3", "zeros", o, conicFigure2Run, runF)
	c.Flags().IntSliceVar(&o.Clients, "clients", []int{5, 10, 20}, "client counts n, one panel each (the conic paper does not state them; the core paper's Figure 2 used 5, 10, 20)")
	_ = c.Flags().MarkHidden("trials") // refused: one trial per n
	return c
}

// figureClients sets cfg's client counts from --clients unless a --config
// file chose them and the flag was not given.
func (o *ConicFigureOptions) figureClients(clients *[]int) {
	if o.Config == "" || o.flags != nil && o.flags.Changed("clients") {
		*clients = o.Clients
	}
}

func conicFigure1Run(f *Factory, o *ConicFigureOptions) error {
	cfg := &proxal.NPConfig{}
	o.ignoreKeys(map[string]string{"trials": figureTrials})
	o.ignoreKeys(inProcessOnly)
	if err := loadConfig(f, &o.commonOptions, "conic-table2", cfg); err != nil {
		return err
	}
	o.figureClients(&cfg.Clients)
	cfg.Trials = 1 // one trial per n: the manifest records what runs
	if err := cfg.Validate(); err != nil {
		return err
	}
	return figureRun(f, &o.commonOptions, "conic-figure1", cfg, cfg.Seed, cfg.TrialHash(),
		func(opt experiments.RunOptions, info *experiments.RunInfo) (any, *experiments.Figure, error) {
			res, err := conic.RunFigure1(o.ctx, cfg, o.Dirs, opt)
			if err != nil {
				return nil, nil, err
			}
			res.Info = info
			return res, &res.Figure, nil
		})
}

func conicFigure2Run(f *Factory, o *ConicFigureOptions) error {
	cfg := &proxal.FairConfig{}
	o.ignoreKeys(map[string]string{"trials": figureTrials})
	o.ignoreKeys(inProcessOnly)
	if err := loadConfig(f, &o.commonOptions, "conic-table3", cfg); err != nil {
		return err
	}
	o.figureClients(&cfg.Clients)
	cfg.Trials = 1 // one trial per n: the manifest records what runs
	if err := cfg.Validate(); err != nil {
		return err
	}
	return figureRun(f, &o.commonOptions, "conic-figure2", cfg, cfg.Seed, cfg.TrialHash(),
		func(opt experiments.RunOptions, info *experiments.RunInfo) (any, *experiments.Figure, error) {
			res, err := conic.RunFigure2(o.ctx, cfg, o.Dirs, opt)
			if err != nil {
				return nil, nil, err
			}
			res.Info = info
			return res, &res.Figure, nil
		})
}
