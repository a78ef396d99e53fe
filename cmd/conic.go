package cmd

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/conic"
	"github.com/fedcon/fedcon/experiments/proxal"
)

// ConicQPOptions are the flags of `reproduce conic-table1`.
type ConicQPOptions struct {
	commonOptions
}

func newCmdReproduceConicTable1(f *Factory, runF func(*ConicQPOptions) error) *cobra.Command {
	o := &ConicQPOptions{}
	c := &cobra.Command{
		Use:   "conic-table1",
		Short: "Conic paper, Table 1: the QP of eq. (25), Algorithm 1 vs cProx-AL; --ball-rows adds second-order-cone constraints",
		Long: `conic-table1 runs the QP of the conic paper's eq. (25) (equality constraints at the
server and every client, i.e. zero cones) on 10 random instances per (d, n, m̃) cell and prints
the paper's Table 1 beside ours. --ball-rows R adds a norm ball ||G_i w - h_i||_2 <= t_i (a
second-order cone) at the parties chosen by --ball-parties: not in the paper.`,
		Example: `  fedcon reproduce conic-table1
  fedcon reproduce conic-table1 --trials 2
  fedcon reproduce conic-table1 --ball-rows 3 --ball-parties all --out results/soc`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.bind(c)
			if runF != nil {
				return runF(o)
			}
			return conicQPRun(f, o)
		},
	}
	addCommonFlags(c, &o.commonOptions, "conic-table1")
	usePresets(c, "", "conic-table1")
	addYesFlag(c, &o.commonOptions)
	// Section 5.1: β = 1, s̄ = 0.01 (Table 4: 10, 0.1).
	addQPMethodFlags(c, qpFlagDefaults{Beta: 1, SBar: 0.01, TrialsHelp: "instances per cell",
		SeedHelp: "seed of the instance stream", InnerTestHelp: "Algorithm 2 stopping test: paper (eq. (19)) or measured"})
	keyFlags(c, func(fl *pflag.FlagSet) {
		enumFlag(fl, "w0", experiments.W0Ones, "starting point: ones (the paper), zeros or sphere")
		fl.Int("ball-rows", 0, "rows of G_i of a norm-ball (second-order-cone) constraint; 0: eq. (25) as published")
		enumFlag(fl, "ball-parties", conic.BallAll, "parties with a ball: server, clients or all")
		fl.Float64("ball-ratio", 0.5, "ball radius t_i as a fraction of ||G_i(w_eq - w_f)||_2, in (0, 1)")
		enumFlag(fl, "subsolver", proxal.SubsolverNewton, "subproblems of parties with a ball: newton or lbfgs")
	})
	return c
}

func conicQPRun(f *Factory, o *ConicQPOptions) error {
	cfg := &conic.QPConfig{}
	o.ignoreKeys(inProcessOnly)
	if err := loadConfig(f, &o.commonOptions, "conic-table1", cfg); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	workers, err := workersFlag(f, o.Workers)
	if err != nil {
		return err
	}
	out, err := newRunOutput(f, &o.commonOptions, "conic-table1", cfg, cfg.Seed, cfg.TrialHash(), workers)
	if err != nil {
		return err
	}
	res, err := conic.RunQP(o.ctx, cfg, out.options())
	if res == nil {
		return out.failed(err, nil, nil)
	}
	res.Info = out.info
	return out.tables(res, res.Tables(), err)
}

// ConicClassOptions are the flags of `reproduce conic-table2` and `conic-table3`.
type ConicClassOptions struct {
	commonOptions
	Dirs []string
}

func (o *ConicClassOptions) setDirs(d []string) { o.Dirs = d }
func (o *ConicClassOptions) check() error       { return nil }

// conicClassCommand is a command over a conic classification preset: the
// proximal AL flags plus --w0 (default w0, the paper's).
func conicClassCommand[T dataOptions](f *Factory, use, short, example, preset string, w0 experiments.W0, o T, run func(*Factory, T) error, runF func(T) error) *cobra.Command {
	c := dataCommand(f, use, short, example, preset, o, run, runF)
	keyFlags(c, func(fl *pflag.FlagSet) { enumFlag(fl, "w0", w0, "starting point: ones, zeros or sphere") })
	return c
}

func newCmdReproduceConicTable2(f *Factory, runF func(*ConicClassOptions) error) *cobra.Command {
	return conicClassCommand(f, "conic-table2", "Conic paper, Table 2: Neyman-Pearson (eq. (26)), w0 = ones, β = 300, ρ_i = 0.01",
		"  fedcon reproduce conic-table2\n  fedcon reproduce conic-table2 --rho-rule fixed --inner-test paper --eps-rel 0 --outer-relax 0", "conic-table2", "ones", &ConicClassOptions{}, conicNPRun, runF)
}

func newCmdReproduceConicTable3(f *Factory, runF func(*ConicClassOptions) error) *cobra.Command {
	return conicClassCommand(f, "conic-table3", "Conic paper, Table 3: fairness (eq. (28)) on adult-b, w0 = 0, r = 0.01, ρ_i = 1e8",
		"  fedcon reproduce conic-table3", "conic-table3", "zeros", &ConicClassOptions{}, conicFairRun, runF)
}

func conicNPRun(f *Factory, o *ConicClassOptions) error {
	cfg := &proxal.NPConfig{}
	o.ignoreKeys(inProcessOnly)
	if err := loadConfig(f, &o.commonOptions, "conic-table2", cfg); err != nil {
		return err
	}
	return conicClassRun(f, o, "conic-table2", cfg, cfg.Validate, cfg.Seed, cfg.TrialHash(),
		func(opt experiments.RunOptions) (*conic.ClassResult, error) {
			return conic.RunNP(o.ctx, cfg, o.Dirs, opt)
		})
}

func conicFairRun(f *Factory, o *ConicClassOptions) error {
	cfg := &proxal.FairConfig{}
	o.ignoreKeys(inProcessOnly)
	if err := loadConfig(f, &o.commonOptions, "conic-table3", cfg); err != nil {
		return err
	}
	return conicClassRun(f, o, "conic-table3", cfg, cfg.Validate, cfg.Seed, cfg.TrialHash(),
		func(opt experiments.RunOptions) (*conic.ClassResult, error) {
			return conic.RunFair(o.ctx, cfg, o.Dirs, opt)
		})
}

func conicClassRun(f *Factory, o *ConicClassOptions, name string, cfg any, validate func() error, seed uint64, hash string,
	run func(experiments.RunOptions) (*conic.ClassResult, error)) error {
	if err := validate(); err != nil {
		return err
	}
	workers, err := workersFlag(f, o.Workers)
	if err != nil {
		return err
	}
	out, err := newRunOutput(f, &o.commonOptions, name, cfg, seed, hash, workers)
	if err != nil {
		return err
	}
	res, err := run(out.options())
	if res == nil {
		return out.failed(err, nil, nil)
	}
	res.Info = out.info
	return out.tables(res, res.Tables(), err)
}
