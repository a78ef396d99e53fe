package cmd

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fedcon/fedcon/experiments/drfl"
	"github.com/fedcon/fedcon/experiments/fedjob"
	"github.com/fedcon/fedcon/experiments/proxal"
	"github.com/fedcon/fedcon/federation"
)

type serveOptions struct {
	common   commonOptions
	problem  string
	dataset  string
	clients  int
	cell     []int
	dim      int
	trial    int
	output   string
	serve    fedjob.ServeOptions
	insecure bool
	local    bool
	model    string // drfl
	loss     string
}

func newCmdServe(f *Factory) *cobra.Command {
	o := &serveOptions{}
	c := &cobra.Command{
		Use:   "serve",
		Short: "Run Algorithm 1 as the server of clients in other processes (gRPC, mutual TLS)",
		Long: `serve listens for the run's n clients ('fedcon client --party i'), sends each
its configuration, and runs Algorithm 1 with Algorithm 2 through them: the
clients' data never leave their processes. The answer is bit-identical to
the in-process run of the same configuration and seed. See docs/federation.md.`,
		Example: `  fedcon serve --problem qp --cell 5,100,1 --listen 0.0.0.0:7070 --certs certs
  fedcon serve --problem np --dataset adult-a --clients 10 --insecure --listen 127.0.0.1:7070`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.common.bind(c)
			return serveRun(f, c, o)
		},
	}
	usePresets(c, "--problem", "qp=table4", "np=table1", "fair=table2", "drfl="+drfl.Preset)
	fl := c.Flags()
	fl.StringVar(&o.common.Config, "config", "", "YAML file overriding the preset (configs/table1.yaml for np, table2.yaml for fair, table4.yaml for qp, drfl/drfl.yaml for drfl)")
	fl.StringVar(&o.problem, "problem", "qp", "np (Neyman-Pearson, Table 1), fair (fairness, Table 2), qp (LCQP, Table 4) or drfl (AD-LPMM)")
	fl.StringVar(&o.dataset, "dataset", "adult-a", "np, drfl: data set (fair: adult-b)")
	fl.IntVar(&o.clients, "clients", 5, fmt.Sprintf("np, fair: number of clients n (drfl: S, default the preset's %d)", drfl.DefaultConfig().Clients))
	fl.StringVar(&o.model, "model", "drfl", "drfl: model (drfl, afl, drfa, standard)")
	fl.StringVar(&o.loss, "loss", "", "drfl: hinge (default) or huber (regression)")
	keyFlags(c, func(fl *pflag.FlagSet) {
		fl.Float64("kappa", 0, "drfl: label-flip cost κ")
		fl.Float64("theta", 0, "drfl: radius θ of Q")
		fl.Int("max-rounds", 0, "drfl: round cap")
	})
	fl.IntSliceVar(&o.cell, "cell", []int{5, 100, 1}, "qp: n,d,m")
	fl.IntVar(&o.dim, "dim", 0, "np: dimension d (0: read it from the data set, if the server has it)")
	fl.IntVar(&o.trial, "trial", 0, "trial index (chooses w0)")
	fl.StringVarP(&o.output, "output", "o", "", "write the result as JSON to this file")
	fl.StringVar(&o.serve.Listen, "listen", "127.0.0.1:7070", "address to listen on")
	fl.StringVar(&o.serve.Certs, "certs", "certs", "certificate directory (ca.pem, server.pem, server-key.pem)")
	fl.BoolVar(&o.insecure, "insecure", false, "no TLS and no client authentication (loopback only)")
	fl.BoolVar(&o.local, "in-process", false, "run the same job with every party in this process (the reference answer; no network)")
	fl.StringVar(&o.serve.RunID, "run-id", "", "run id (default: random)")
	fl.DurationVar(&o.serve.RoundTimeout, "round-timeout", 2*time.Minute, "longest wait for one client's reply to a round (0: none)")
	fl.DurationVar(&o.serve.Rejoin, "rejoin", 0, "how long a lost client may take to rejoin from its checkpoint (0: stop with ClientLost)")
	fl.DurationVar(&o.serve.JoinTimeout, "join-timeout", 10*time.Minute, "longest wait for all clients to join")
	fl.DurationVar(&o.serve.RoundDeadline, "round-deadline", 0, "with --participation < 1 or --drop-prob: end each partial round this long after it was sent; clients that have not answered are absent from it (0: wait for them; docs/participation.md)")
	keyFlags(c, func(fl *pflag.FlagSet) {
		fl.Float64("participation", 1, "np, fair, qp: fraction in (0, 1] of the clients sampled per ADMM round (docs/participation.md)")
		enumFlag(fl, "participation-sampling", proxal.SamplingUniform, "np, fair, qp: uniform (without replacement) or weighted (by each client's rows, which it reports when it joins)")
		fl.Float64("drop-prob", 0, "np, fair, qp: probability in [0, 1) that an addressed client is not asked a round (drawn from the seed, as in-process)")
		fl.Int("max-delay", 0, "np, fair, qp: a client that has not answered for this many rounds joins the next sample (0: four times the mean gap between its rounds)")
	})
	addALFlags(c)
	fl.MarkHidden("trials") // a served run is one trial (--trial)
	keyFlags(c, func(fl *pflag.FlagSet) {
		enumFlag(fl, "admm-start", proxal.ADMMStartWk, "np: where Algorithm 2 starts: wk (the paper) or w0")
	})
	return c
}

// servedOne is why serve refuses the keys that choose cells and trials.
const servedOne = "a served run is one cell and one trial: --dataset, --clients, --cell, --dim, --trial"

// serveProblemFlags are serve's own flags that only some problems read.
var serveProblemFlags = map[string][]string{
	"dataset": {"np", "fair", "drfl"}, "clients": {"np", "fair", "drfl"}, "dim": {"np"},
	"cell": {"qp"}, "model": {"drfl"}, "loss": {"drfl"}, "round-deadline": {"np", "fair", "qp"},
}

// serveScope names the problem in serve's refusals and refuses a
// problem-specific flag that the problem does not read.
func serveScope(c *cobra.Command, o *serveOptions) error {
	o.common.scope = "--problem " + o.problem
	for _, name := range slices.Sorted(maps.Keys(serveProblemFlags)) {
		if c.Flags().Changed(name) && !slices.Contains(serveProblemFlags[name], o.problem) {
			return flagErrorf("--%s: %s --problem %s does not use it (only %s)", name, c.CommandPath(), o.problem, strings.Join(serveProblemFlags[name], ", "))
		}
	}
	return nil
}

func serveRun(f *Factory, c *cobra.Command, o *serveOptions) error {
	job := &fedjob.Job{Problem: o.problem, Trial: o.trial}
	if err := serveScope(c, o); err != nil {
		return err
	}
	if o.problem == "drfl" {
		o.common.ignoreKeys(map[string]string{"participation": "partial participation is for np, fair and qp",
			"participation_sampling": "partial participation is for np, fair and qp", "drop_prob": "partial participation is for np, fair and qp",
			"max_delay": "partial participation is for np, fair and qp"})
	}
	if o.serve.RoundDeadline < 0 {
		return flagErrorf("--round-deadline %v: must be >= 0 (0: none)", o.serve.RoundDeadline)
	}
	switch o.problem {
	case "np":
		cfg := &proxal.NPConfig{}
		o.common.ignoreKeys(map[string]string{"trials": servedOne, "clients": servedOne, "datasets": servedOne})
		if err := loadConfig(f, &o.common, "table1", cfg); err != nil {
			return err
		}
		cfg.Datasets, cfg.Clients = nil, nil // the job names its one cell
		job.NP, job.Dataset, job.N, job.Dim = cfg, o.dataset, o.clients, o.dim
	case "fair":
		cfg := &proxal.FairConfig{}
		o.common.ignoreKeys(map[string]string{"trials": servedOne, "clients": servedOne})
		if err := loadConfig(f, &o.common, "table2", cfg); err != nil {
			return err
		}
		if c.Flags().Changed("dataset") {
			cfg.Dataset = o.dataset
		}
		job.Dataset, cfg.Clients = cfg.Dataset, nil // the job names its one cell
		job.Fair, job.N = cfg, o.clients
	case "qp":
		if len(o.cell) != 3 {
			return flagErrorf("--cell %v: want n,d,m", o.cell)
		}
		cfg := &proxal.QPConfig{}
		o.common.ignoreKeys(map[string]string{"trials": servedOne, "cells": servedOne})
		if err := loadConfig(f, &o.common, "table4", cfg); err != nil {
			return err
		}
		cfg.Cells = nil // the job names its one cell
		job.QP, job.N, job.Dim, job.M = cfg, o.cell[0], o.cell[1], o.cell[2]
	case "drfl":
		cfg, err := loadDRFLConfig(f, &o.common)
		if err != nil {
			return err
		}
		if c.Flags().Changed("clients") {
			cfg.Clients = o.clients // serve's own flag, the preset's S otherwise
		}
		if len(cfg.Imbalance) != cfg.Clients {
			// A served split is balanced: the preset's ratios (for 3
			// clients) play no part.
			cfg.Imbalance = slices.Repeat([]float64{1}, cfg.Clients)
		}
		if err := cfg.ValidateData(); err != nil {
			return err
		}
		p, err := cfg.Params(o.model, o.loss)
		if err != nil {
			return err
		}
		job = fedjob.NewFedDRFL(o.dataset, cfg.Data(o.dataset, false), cfg.Seed, p,
			cfg.Settings(0))
		job.Trial = o.trial
	default:
		return flagErrorf("--problem %q: want np, fair, qp or drfl", o.problem)
	}
	if err := job.Validate(); err != nil {
		return &FlagError{err: err, usage: c.CommandPath()}
	}
	if job.QP != nil {
		qc := *job.QP
		qc.Cells, qc.Trials = [][]int{{job.N, job.Dim, job.M}}, 1
		if err := checkMemory(f, "serve qp", qc.Cost(1)); err != nil {
			return err
		}
	}
	o.serve.Workers = f.NumCPU
	if o.local && o.problem == "drfl" {
		r, err := job.SolveDRFLLocal(o.common.ctx, dataDirs(f, c), o.serve.Workers)
		if r == nil {
			return err
		}
		res := &fedjob.ServeResult{RunID: "in-process", Job: job, Status: r.Status.String(), W: r.V,
			Wall: r.Runtime.Seconds(), AlgBytes: r.BytesTotal, DRFL: &fedjob.DRFLServed{Rounds: r.Rounds,
				Objective: r.Objective, WorstCase: r.WorstCase, QStar: r.QStar, ClientLoss: r.ClientLoss, Lambda: r.Lambda,
				BytesTotal: r.BytesTotal, QPIterations: r.QPIterations}}
		res.Stats.Rounds = r.Rounds
		return serveReport(f, o, res, err)
	}
	if o.local {
		r, err := job.SolveLocal(o.common.ctx, dataDirs(f, c), o.serve.Workers)
		if r == nil {
			return err
		}
		res := &fedjob.ServeResult{RunID: "in-process", Job: job, Status: r.Status.String(), TestStatus: r.Test.String(), W: r.W,
			Stats: r.Stats, Wall: r.Stats.Runtime.Seconds(), // Solve alone, as served
			AlgBytes: 8 * (r.Stats.FloatsDown + r.Stats.FloatsUp + r.Stats.DiagFloatsUp), Participation: r.Participation}
		res.SetAudit(r)
		return serveReport(f, o, res, err)
	}
	o.serve.Insecure = o.insecure
	if o.insecure && !federation.IsLoopback(o.serve.Listen) {
		return flagErrorf("--insecure with --listen %s: allowed on a loopback address only (127.0.0.1:PORT)", o.serve.Listen)
	}
	if o.insecure {
		fmt.Fprintln(f.IO.ErrOut, "WARNING: --insecure: NO TLS, NO CLIENT AUTHENTICATION. Anyone on this host can join or read the run. Loopback only; never for real data.")
	}
	var logMu sync.Mutex // sessions log from their own goroutines
	o.serve.Log = func(format string, args ...any) {
		if !o.common.Quiet {
			logMu.Lock()
			defer logMu.Unlock()
			fmt.Fprintf(f.IO.ErrOut, format+"\n", args...)
		}
	}
	res, err := fedjob.Serve(o.common.ctx, job, dataDirs(f, c), o.serve)
	if res == nil {
		return err
	}
	return serveReport(f, o, res, err)
}

// serveReport writes the result file and prints the summary.
func serveReport(f *Factory, o *serveOptions, res *fedjob.ServeResult, err error) error {
	if o.output != "" {
		b, jerr := json.MarshalIndent(res, "", "  ")
		if jerr == nil {
			jerr = os.WriteFile(o.output, append(b, '\n'), 0o644)
		}
		if jerr != nil {
			return fmt.Errorf("serve: %w", jerr)
		}
	}
	st := res.Stats
	fmt.Fprintf(f.IO.Out, "run %s: %s, %d outer iterations, %d rounds in %.2f s (%.0f rounds/s, %.0f µs/round)\n",
		res.RunID, res.Status, st.OuterIterations, st.Rounds, res.Wall, float64(st.Rounds)/max(res.Wall, 1e-9), 1e6*res.Wall/float64(max(st.Rounds, 1)))
	if res.Error != "" {
		fmt.Fprintf(f.IO.Out, "stopped: %s\n", res.Error)
	}
	if res.DRFL != nil {
		fmt.Fprintf(f.IO.Out, "objective %.6g, certified worst case %.6g\n", res.DRFL.Objective, res.DRFL.WorstCase)
	} else if res.Residuals != nil {
		fmt.Fprintf(f.IO.Out, "objective %.6g, KKT residuals: stationarity %.3g, feasibility %.3g\n", *res.Objective, res.Residuals.Stationarity, res.Residuals.Feasibility)
	} else {
		fmt.Fprintln(f.IO.Out, "objective and KKT residuals: not computed (the run stopped before its final audit round)")
	}
	if p := res.Participation; p != nil {
		fmt.Fprintf(f.IO.Out, "participation: %d partial rounds, %d retry rounds, %d replies past the round deadline (record: participation.answered)\n",
			p.PartialRounds, p.RetryRounds, res.DeadlineMisses)
	}
	fmt.Fprintf(f.IO.Out, "bytes: algorithm %d, protobuf on the wire %d (down %d, up %d)\n",
		res.AlgBytes, res.WireDown+res.WireUp, res.WireDown, res.WireUp)
	return err
}
