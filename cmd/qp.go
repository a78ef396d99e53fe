package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/experiments"
)

// QPOptions are the flags of `reproduce table4` and `run qp`.
type QPOptions struct {
	commonOptions
	// Single-cell run (`run qp`).
	Single                bool
	Clients, Dim, Constrs int
}

// qpFlagKeys maps flags to config keys.
var qpFlagKeys = map[string]string{
	"trials": "trials", "seed": "seed", "rng": "rng", "beta": "beta", "sbar": "sbar",
	"rho": "rho", "q": "q", "eps1": "eps1", "eps2": "eps2", "max-outer": "max_outer",
	"max-inner": "max_inner", "inner-test": "inner_test", "eps-floor": "eps_floor", "cells": "cells",
}

func addQPFlags(c *cobra.Command, o *QPOptions) {
	addCommonFlags(c, &o.commonOptions, "table4")
	fl := c.Flags()
	fl.Int("trials", 10, "trials per cell (they differ in w0 only)")
	fl.Uint64("seed", 1, "seed of the instance and w0 streams")
	fl.String("rng", "fedcon", "random stream: fedcon, or numpy (the authors' exact instances)")
	fl.Float64("beta", 10, "AL penalty β")
	fl.Float64("sbar", 0.1, "s̄ in τ_k = s̄/(k+1)²")
	fl.Float64("rho", 1, "ADMM penalty ρ_i")
	fl.Float64("q", 0.9, "q in ε_{t+1} = q^t")
	fl.Float64("eps1", 1e-3, "stationarity tolerance ε1")
	fl.Float64("eps2", 1e-3, "feasibility tolerance ε2")
	fl.Float64("eps-floor", 0, "lower bound on ε_{t+1} (paper: none)")
	fl.Int("max-outer", 10000, "outer iteration cap")
	fl.Int("max-inner", 10000, "inner (ADMM) iteration cap per outer iteration")
	fl.String("inner-test", "paper", "Algorithm 2 stopping test: paper (eq. (23)) or measured (authors' QP practice)")
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
	return c
}

func newCmdReproduceTable4(f *Factory, runF func(*QPOptions) error) *cobra.Command {
	c := qpCommand(f, "table4", "Table 4: the equality-constrained QP (eq. (84)), Algorithm 1 vs cProx-AL",
		`  fedcon reproduce table4
  fedcon reproduce table4 --rng numpy        # the authors' exact instances
  fedcon reproduce table4 --inner-test measured --trials 3
  fedcon reproduce table4 --cells 5x100x1,10x500x5`, &QPOptions{}, runF)
	c.Flags().Var(&cellsValue{}, "cells", "cells as n x d x m̃ triples, e.g. 5x100x1,10x500x5 (default: the preset's 9)")
	return c
}

func newCmdRunQP(f *Factory, runF func(*QPOptions) error) *cobra.Command {
	o := &QPOptions{Single: true}
	c := qpCommand(f, "qp", "Solve one random equality-constrained QP instance (eq. (84)) with both algorithms",
		"  fedcon run qp --clients 5 --dim 300 --constraints 3 --trials 10 --seed 7", o, runF)
	c.Flags().IntVar(&o.Clients, "clients", 5, "number of clients n")
	c.Flags().IntVar(&o.Dim, "dim", 100, "dimension d")
	c.Flags().IntVar(&o.Constrs, "constraints", 1, "equality constraints per party m̃")
	return c
}

func qpRun(f *Factory, o *QPOptions) error {
	cfg := &experiments.QPConfig{}
	if err := loadConfig(f, &o.commonOptions, "table4", qpFlagKeys, cfg); err != nil {
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
	workers, err := workersFlag(f, o.Workers)
	if err != nil {
		return err
	}
	out := newRunOutput(f, &o.commonOptions, name, cfg, cfg.Seed, cfg.TrialHash(), workers)
	res, err := experiments.RunQP(o.ctx, cfg, out.options())
	if res == nil {
		return out.failed(err, nil, nil)
	}
	res.Info = out.info
	return out.tables(res, res.Tables(), err)
}
