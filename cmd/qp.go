package cmd

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/proxal"
)

// QPOptions are the flags of `reproduce table4` and `run qp`.
type QPOptions struct {
	commonOptions
	// Single-cell run (`run qp`).
	Single                bool
	Clients, Dim, Constrs int
}

// qpFlagDefaults are what differs between the QP commands' shared flags:
// their presets' β and s̄ and the help texts naming their equations.
type qpFlagDefaults struct {
	Beta, SBar                          float64
	TrialsHelp, SeedHelp, InnerTestHelp string
}

// addQPMethodFlags adds the flags shared by the QP experiments (Table 4 of
// the core paper, Table 1 of the conic paper) with the defaults d; their
// values override the config keys of their names.
func addQPMethodFlags(c *cobra.Command, d qpFlagDefaults) {
	keyFlags(c, func(fl *pflag.FlagSet) { addQPMethodKeyFlags(fl, d) })
}

func addQPMethodKeyFlags(fl *pflag.FlagSet, d qpFlagDefaults) {
	fl.Int("trials", 10, d.TrialsHelp)
	fl.Uint64("seed", 1, d.SeedHelp)
	fl.Float64("beta", d.Beta, "AL penalty β")
	fl.Float64("sbar", d.SBar, "s̄ in τ_k = s̄/(k+1)²")
	fl.Float64("rho", 1, "ADMM penalty ρ_i")
	fl.Float64("q", 0.9, "q in ε_{t+1} = q^t")
	fl.Float64("eps1", 1e-3, "stationarity tolerance ε1")
	fl.Float64("eps2", 1e-3, "feasibility tolerance ε2")
	fl.Float64("eps-floor", 0, "lower bound on ε_{t+1} (paper: none)")
	fl.Int("max-outer", 10000, "outer iteration cap")
	fl.Int("max-inner", 10000, "inner (ADMM) iteration cap per outer iteration")
	enumVar(fl, "inner-test", &new(proxal.MethodConfig).InnerTest, "paper", d.InnerTestHelp)
}

func addQPFlags(c *cobra.Command, o *QPOptions) {
	addCommonFlags(c, &o.commonOptions, "table4")
	addYesFlag(c, &o.commonOptions)
	addQPMethodFlags(c, qpFlagDefaults{Beta: 10, SBar: 0.1, TrialsHelp: "trials per cell (they differ in w0 only)",
		SeedHelp: "seed of the instance and w0 streams", InnerTestHelp: "Algorithm 2 stopping test: paper (eq. (23)) or measured (authors' QP practice)"})
	keyFlags(c, func(fl *pflag.FlagSet) {
		enumFlag(fl, "rng", experiments.RNGFedcon, "random stream: fedcon, or numpy (the authors' exact instances)")
		fl.Bool("polish", false, "finish with the federated KKT polish (one Newton step solves the QP's KKT system): any --eps1/--eps2, certified by the audit")
	})
}

// qpCommand builds a command over the Table 4 preset.
func qpCommand(f *Factory, use, short, example string, o *QPOptions, runF func(*QPOptions) error) *cobra.Command {
	c := &cobra.Command{
		Use: use, Short: short, Example: example, Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.bind(c)
			if runF != nil {
				return runF(o)
			}
			return qpRun(f, o)
		},
	}
	addQPFlags(c, o)
	usePresets(c, "", "table4")
	return c
}

func newCmdReproduceTable4(f *Factory, runF func(*QPOptions) error) *cobra.Command {
	c := qpCommand(f, "table4", "Table 4: the equality-constrained QP (eq. (84)), Algorithm 1 vs cProx-AL",
		`  fedcon reproduce table4
  fedcon reproduce table4 --rng numpy        # the authors' exact instances
  fedcon reproduce table4 --inner-test measured --trials 3
  fedcon reproduce table4 --cells 5x100x1,10x500x5`, &QPOptions{}, runF)
	keyFlags(c, func(fl *pflag.FlagSet) {
		fl.Var(&cellsValue{}, "cells", "cells as n x d x m̃ triples, e.g. 5x100x1,10x500x5")
	})
	return c
}

func newCmdRunQP(f *Factory, runF func(*QPOptions) error) *cobra.Command {
	o := &QPOptions{Single: true}
	c := qpCommand(f, "qp", "Solve one random equality-constrained QP instance (eq. (84)) with both algorithms",
		"  fedcon run qp --clients 5 --dim 300 --constraints 3 --trials 10 --seed 7", o, runF)
	c.Flags().IntVar(&o.Clients, "clients", 5, "number of clients n")
	c.Flags().IntVar(&o.Dim, "dim", 100, "dimension d")
	c.Flags().IntVar(&o.Constrs, "constraints", 1, "equality constraints per party m̃")
	addParticipationFlags(c)
	return c
}

func qpRun(f *Factory, o *QPOptions) error {
	cfg := &proxal.QPConfig{}
	if err := loadConfig(f, &o.commonOptions, "table4", cfg); err != nil {
		return err
	}
	name := "table4"
	if o.Single {
		cfg.Cells = [][]int{{o.Clients, o.Dim, o.Constrs}}
		name = fmt.Sprintf("qp-n%d-d%d-m%d", o.Clients, o.Dim, o.Constrs)
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if o.Single {
		if err := replayFlag(&o.commonOptions, &cfg.ParticipationConfig, o.Clients, cfg.Trials); err != nil {
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
	res, err := proxal.RunQP(o.ctx, cfg, out.options())
	if res == nil {
		return out.failed(err, nil, nil)
	}
	res.Info = out.info
	return out.tables(res, res.Tables(), err)
}
