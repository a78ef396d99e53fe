package cmd

import (
	"context"
	"errors"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/proxal"
)

// commonOptions are the flags every experiment command has.
type commonOptions struct {
	Config  string
	Workers int
	OutDir  string
	Force   bool
	Yes     bool // run beyond the pre-flight time limit
	Quiet   bool
	JSON    bool
	// Shard is --shard: K/N or auto (a cluster job's share of the trials).
	Shard string
	// ReuseOnly computes no trial (set by merge).
	ReuseOnly bool
	// DryRun stops once the configuration, --shard and the cost are
	// checked: nothing is computed or written (--dry-run).
	DryRun bool
	cmd    *cobra.Command
	// dataDirs is the data search path of a data-reading command; the
	// data sets its configuration names are looked for there before the
	// output directory is made.
	dataDirs []string

	ctx   context.Context
	flags *pflag.FlagSet // flags whose set values override config keys
	// overrides are configuration keys set by a sweep point.
	overrides map[string]any
	// adjust, if set, edits the loaded configuration before validation
	// (`reproduce all --quick`).
	adjust func(cfg any)
	// batch: print no tables, only the summary line; report receives the
	// run's counts (`reproduce all`).
	batch  bool
	report *runReport
	quick  bool // reproduce all --quick
	// ignore are the configuration keys the run does not read, with why
	// (ignoreKeys); scope narrows the command in a refusal ("--problem qp").
	ignore map[string]string
	// ignoreFlag are keys refused only as flags (ignoreFlags).
	ignoreFlag map[string]string
	scope      string
	// section, under reproduce all (batch), prefixes the keys that the
	// shared flags set: drfl-figure1 reads --seed as figure1.seed, as its
	// own --seed.
	section string
}

func addCommonFlags(c *cobra.Command, o *commonOptions, preset string) {
	c.Flags().StringVar(&o.Config, "config", "", "YAML file overriding the preset configs/"+preset+".yaml")
	addOutputFlags(c, o, "results directory: each experiment writes <out>/<name>/")
}

// addOutputFlags adds --workers, --out and --force.
func addOutputFlags(c *cobra.Command, o *commonOptions, outHelp string) {
	fl := c.Flags()
	fl.IntVar(&o.Workers, "workers", 0, "trials run concurrently (0 = number of CPUs); results do not depend on it")
	fl.StringVar(&o.OutDir, "out", "results", outHelp)
	fl.BoolVar(&o.Force, "force", false, "recompute trials already stored under <out>/<name>/trials/ for this configuration")
	addShardFlags(c, o)
}

// shardValue is --shard: an empty value is refused (it would run the whole
// job unsharded).
type shardValue struct{ p *string }

func (v shardValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

func (v shardValue) Set(s string) error {
	if s == "" {
		return errors.New("want K/N (0 <= K < N) or auto, not an empty value")
	}
	*v.p = s
	return nil
}

func (shardValue) Type() string { return "string" }

// addShardFlags adds --shard and the hidden --reuse-only of fedcon merge.
func addShardFlags(c *cobra.Command, o *commonOptions) {
	fl := c.Flags()
	fl.Var(shardValue{&o.Shard}, "shard", "compute only shard K/N of the trials (0 <= K < N) and write trial files and a shard manifest, no tables; auto: from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX (docs/cluster.md); merge with fedcon merge")
	fl.BoolVar(&o.DryRun, "dry-run", false, "check the configuration, --shard, the data and the estimated cost, then stop: compute and write nothing (deploy/slurm/submit.sh runs it before submitting)")
	fl.BoolVar(&o.ReuseOnly, "reuse-only", false, "compute nothing: a trial not stored is an error (fedcon merge)")
	_ = fl.MarkHidden("reuse-only")
}

// bind fills the persistent flags and the command into o.
func (o *commonOptions) bind(c *cobra.Command) {
	o.cmd, o.ctx, o.flags = c, c.Context(), c.Flags()
	o.Quiet, _ = c.Flags().GetBool("quiet")
	o.JSON, _ = c.Flags().GetBool("json")
}

// alFlags are the proximal AL flags shared by the classification experiments.
func addALFlags(c *cobra.Command) {
	keyFlags(c, addALKeyFlags)
}

func addALKeyFlags(fl *pflag.FlagSet) {
	fl.Int("trials", 10, "trials (they differ in w0 only)")
	fl.Uint64("seed", 1, "seed of the partitions and w0")
	enumFlag(fl, "rng", experiments.RNGFedcon, "w0 stream: fedcon, or numpy (seed(t), rand(d), normalised, as the authors)")
	fl.Float64("beta", 0, "AL penalty β")
	fl.Float64("sbar", 0, "s̄ in τ_k = s̄/(k+1)²")
	fl.Float64("rho", 0, "ADMM penalty ρ_i")
	fl.Float64("q", 0.9, "q in ε_{t+1} = q^t")
	fl.Float64("eps-floor", 0, "lower bound on ε_{t+1} (paper: none; authors' code: 1e-10)")
	fl.Float64("eps1", 1e-3, "stationarity tolerance ε1")
	fl.Float64("eps2", 1e-3, "feasibility tolerance ε2")
	fl.Int("max-outer", 0, "outer iteration cap")
	fl.Int("max-inner", 0, "inner (ADMM) iteration cap per outer iteration")
	enumVar(fl, "inner-test", &new(proxal.MethodConfig).InnerTest, "paper", "Algorithm 2 stopping test: paper (eq. (23)) or measured")
	enumFlag(fl, "subsolver", proxal.SubsolverNewton, "smooth subproblem solver: newton or lbfgs")
	fl.Float64("r", 0, "constraint threshold r_i")
	enumVar(fl, "rho-rule", &new(proxal.ALConfig).RhoRule, "fixed", "Algorithm 2's penalty: hessian (M_i = ∇²P_i + (σ/n)I, converging), adaptive, balance, or fixed (the paper's ρ_i)")
	fl.Float64("metric-shift", 0, "σ in M_i = ∇²P_i + (σ/n)I for --rho-rule hessian, split across the n clients")
	fl.Float64("relax", 0, "over-relaxation α in (0, 2) of Algorithm 2; 1: none, the paper")
	fl.Float64("outer-relax", 0, "cap on λ of the relaxed outer step (adaptive, in [1, cap]); 0 or 1: the paper's plain step")
	fl.Float64("eps-rel", 0, "cap ε_{t+1} at eps-rel·Σε̃_i/n of the last round; 0: the paper's q^t")
	fl.Bool("polish", false, "finish with the federated KKT polish (Newton on the active set): any --eps1/--eps2, certified by the audit")
}

// addParticipationFlags adds the partial participation flags
// (docs/participation.md) of run np, fair and qp.
func addParticipationFlags(c *cobra.Command) {
	keyFlags(c, func(fl *pflag.FlagSet) {
		fl.Float64("participation", 1, "fraction in (0, 1] of the clients sampled per ADMM round of Algorithm 1; test (23), outer steps and the audit still hear every client (docs/participation.md)")
		enumFlag(fl, "participation-sampling", proxal.SamplingUniform, "how clients are sampled: uniform (without replacement) or weighted (by their rows)")
		fl.Float64("drop-prob", 0, "probability in [0, 1) that an addressed client fails to answer a round (it acts in a later one)")
		fl.Int("max-delay", 0, "a client that has not answered for this many rounds joins the next sample (0: four times the mean gap between its rounds)")
		fl.Float64("straggler-per-row", 0, "straggler model (simulated clock, docs/participation.md): a client's compute time per row and round, seconds, times its log-normal slowdown")
		fl.Float64("straggler-tail", 0, "straggler model: mean of the exponential delay added to each client's time in a round, seconds")
		fl.Float64("straggler-spread", 0, "straggler model: σ of the clients' log-normal slowdowns (0: alike)")
		fl.Float64("straggler-latency", 0, "straggler model: time of one round trip, seconds")
		fl.Float64("straggler-deadline", 0, "straggler model: sampled clients slower than this many seconds miss the round (0: none; the clock only measures)")
	})
	c.Flags().String("replay", "", "rerun the participation recorded in this file (a serve -o result or a trial file): its trial's rounds go to exactly the clients that answered them, the other trials sample as configured (docs/participation.md)")
}

// replayFlag applies --replay (if set) to a run of n clients.
func replayFlag(o *commonOptions, pc *proxal.ParticipationConfig, n, trials int) error {
	if o.cmd == nil {
		return nil
	}
	fl := o.cmd.Flags().Lookup("replay")
	if fl == nil || fl.Value.String() == "" {
		return nil
	}
	rec, err := proxal.ReadRecorded(fl.Value.String())
	if err != nil {
		return err
	}
	return pc.SetReplay(rec, fl.Value.String(), n, trials)
}

// inProcessOnly refuses the partial participation keys where the run
// does not read them.
var inProcessOnly = map[string]string{
	"participation":          "partial participation is for fedcon run np|fair|qp and serve",
	"participation_sampling": "partial participation is for fedcon run np|fair|qp and serve",
	"drop_prob":              "partial participation is for fedcon run np|fair|qp and serve",
	"max_delay":              "partial participation is for fedcon run np|fair|qp and serve",
	"straggler_per_row":      "the straggler model is for fedcon run np|fair|qp",
	"straggler_tail":         "the straggler model is for fedcon run np|fair|qp",
	"straggler_spread":       "the straggler model is for fedcon run np|fair|qp",
	"straggler_latency":      "the straggler model is for fedcon run np|fair|qp",
	"straggler_deadline":     "the straggler model is for fedcon run np|fair|qp",
}

// dataOptions are options of commands that read datasets.
type dataOptions interface {
	common() *commonOptions
	setDirs([]string)
	check() error // validates command-specific flags after parsing
}

func (o *commonOptions) common() *commonOptions { return o }

// dataCommand builds an experiment command over a data-reading preset:
// bind flags, resolve the data directories, check, then run (or runF).
func dataCommand[T dataOptions](f *Factory, use, short, example, preset string, o T, run func(*Factory, T) error, runF func(T) error) *cobra.Command {
	c := &cobra.Command{
		Use: use, Short: short, Example: example, Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.common().bind(c)
			dirs := dataDirs(f, c)
			o.setDirs(dirs)
			o.common().dataDirs = dirs
			if err := o.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return run(f, o)
		},
	}
	addCommonFlags(c, o.common(), preset)
	addALFlags(c)
	addYesFlag(c, o.common())
	usePresets(c, "", preset)
	return c
}
