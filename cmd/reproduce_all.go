package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/conic"
	"github.com/fedcon/fedcon/experiments/proxal"
	"github.com/fedcon/fedcon/experiments/ssca"
)

// AllOptions are the flags of `reproduce all`.
type AllOptions struct {
	commonOptions
	Dirs  []string
	Only  []string
	Quick bool
	// NoFetch: do not download missing data sets (--no-fetch).
	NoFetch bool
	// FetchDir is where missing data sets go: --data-dir, else the cache dir.
	FetchDir string
	// fetcher downloads them (tests inject a mirror).
	fetcher *datasets.Fetcher
}

// allJob is one table or figure of `reproduce all`.
type allJob struct {
	name string
	// run runs it; with o.quick (--quick) a smaller instance of it.
	run func(f *Factory, o commonOptions, dirs []string) error
}

// allJobs lists every table and figure from configs/, cheapest first.
var allJobs = []allJob{
	{"table3", func(f *Factory, o commonOptions, dirs []string) error {
		return table3Run(&Table3Options{IO: f.IO, Version: f.Version, Dirs: dirs, OutDir: o.OutDir, Quiet: o.Quiet, batch: true})
	}},
	{"table4", func(f *Factory, o commonOptions, _ []string) error {
		return qpRun(f, &QPOptions{commonOptions: o})
	}},
	{"table2-authors", func(f *Factory, o commonOptions, dirs []string) error {
		return fairRun(f, &FairOptions{commonOptions: o, Dirs: dirs, Preset: "table2-authors"})
	}},
	{"figure2-authors", func(f *Factory, o commonOptions, dirs []string) error {
		return figure2Run(f, &FairOptions{commonOptions: o, Dirs: dirs, Preset: "table2-authors"})
	}},
	{"figure1", func(f *Factory, o commonOptions, dirs []string) error {
		return figure1Run(f, &NPOptions{commonOptions: o, Dirs: dirs, Clients: 5})
	}},
	{"table1", func(f *Factory, o commonOptions, dirs []string) error {
		return npRun(f, &NPOptions{commonOptions: o, Dirs: dirs})
	}},
	// SSCA (Ye & Cui) Figures 2-4 on Fashion-MNIST: hours with 100 runs (docs/papers/ssca.md).
	{"ssca-figure2", func(f *Factory, o commonOptions, dirs []string) error {
		return sscaReproduce(f, &SSCAOptions{commonOptions: o, Dirs: dirs, Figures: []string{"figure2"}})
	}},
	{"ssca-figure3", func(f *Factory, o commonOptions, dirs []string) error {
		return sscaReproduce(f, &SSCAOptions{commonOptions: o, Dirs: dirs, Figures: []string{"figure3"}})
	}},
	{"ssca-figure4", func(f *Factory, o commonOptions, dirs []string) error {
		return sscaReproduce(f, &SSCAOptions{commonOptions: o, Dirs: dirs, Figures: []string{"figure4"}})
	}},
	// The paper's Table 2 parameters: Algorithm 1 runs into its caps (hours;
	// about 10 s quick).
	{"table2", func(f *Factory, o commonOptions, dirs []string) error {
		return fairRun(f, &FairOptions{commonOptions: o, Dirs: dirs, Preset: "table2"})
	}},
	{"figure2", func(f *Factory, o commonOptions, dirs []string) error {
		return figure2Run(f, &FairOptions{commonOptions: o, Dirs: dirs, Preset: "table2"})
	}},
	// The conic paper's Tables 1-3: conic-table3's fairness at r = 0.01
	// takes minutes per cell (about 10 s quick).
	// DRFL Figure 1 (synthetic, under a second).
	{"drfl-figure1", func(f *Factory, o commonOptions, _ []string) error {
		do := &DRFLFigure1Options{commonOptions: o, Quick: o.quick}
		do.Quiet, do.section = true, drflFigure1Section
		if o.report != nil {
			o.report.dir = filepath.Join(o.OutDir, "drfl")
		}
		if err := do.load(f); err != nil {
			return err
		}
		return drflFigure1Run(f, do)
	}},
	// DRFL Figures 2-5 with the paper's models at fixed parameters (the
	// paper's cross-validation is `reproduce drfl-figureK --cv`: hours).
	drflNoiseJob("drfl-figure2"), drflNoiseJob("drfl-figure3"), drflNoiseJob("drfl-figure4"), drflNoiseJob("drfl-figure5"),
	{"conic-table1", func(f *Factory, o commonOptions, _ []string) error {
		return conicQPRun(f, &ConicQPOptions{commonOptions: o})
	}},
	{"conic-table2", func(f *Factory, o commonOptions, dirs []string) error {
		return conicNPRun(f, &ConicClassOptions{commonOptions: o, Dirs: dirs})
	}},
	{"conic-table3", func(f *Factory, o commonOptions, dirs []string) error {
		return conicFairRun(f, &ConicClassOptions{commonOptions: o, Dirs: dirs})
	}},
	// The conic paper's Figures 1-2: the quick run has n = 5 only.
	{"conic-figure1", func(f *Factory, o commonOptions, dirs []string) error {
		return conicFigure1Run(f, &ConicFigureOptions{ConicClassOptions: ConicClassOptions{commonOptions: o, Dirs: dirs}, Clients: []int{5}})
	}},
	{"conic-figure2", func(f *Factory, o commonOptions, dirs []string) error {
		clients := []int{5, 10, 20}
		if o.quick {
			clients = []int{5}
		}
		return conicFigure2Run(f, &ConicFigureOptions{ConicClassOptions: ConicClassOptions{commonOptions: o, Dirs: dirs}, Clients: clients})
	}},
}

// drflNoiseJob runs a DRFL noise figure (2-5) in batch mode: 10
// repetitions, about 5 min per dataset on 2 cores; --quick runs the
// figure's quick version (2 repetitions, noise levels 0.4 apart: 4-9 s).
func drflNoiseJob(name string) allJob {
	return allJob{name, func(f *Factory, o commonOptions, dirs []string) error {
		do := &DRFLNoiseOptions{commonOptions: o, Name: name, Dirs: dirs, Quick: o.quick}
		do.Quiet = true
		if o.report != nil {
			o.report.dir = filepath.Join(o.OutDir, "drfl")
		}
		if err := do.load(f); err != nil {
			return err
		}
		return drflNoiseRun(f, do)
	}}
}

func allJobNames() []string {
	var out []string
	for _, j := range allJobs {
		out = append(out, j.name)
	}
	return out
}

func newCmdReproduceAll(f *Factory, runF func(*AllOptions) error) *cobra.Command {
	o := &AllOptions{}
	c := &cobra.Command{
		Use:   "all",
		Short: "Every table and figure of configs/, resumable; --quick for a smoke run",
		Long: `all runs, in this order, ` + strings.Join(allJobNames(), ", ") + `
with the presets of configs/. Each writes results/<name>/: one JSON per trial under trials/,
the aggregated table or figure, and manifest.json. A rerun skips the trials already on disk
for the same configuration, so an interrupted run resumes where it stopped (--force
recomputes). A failed experiment does not stop the others; the exit code reports it.

Data sets that are on no search path (--data-dir, $FEDCON_DATA_DIR, the cache dir;
Debian's /usr/share/datasets/fashion-mnist too) are fetched first into --data-dir, else the
cache dir, with their pinned checksums; offline, the experiments that need a missing data
set are skipped and named (--no-fetch skips the download).

--quick is a smoke run of every experiment, a smaller instance of each, into
results/quick/ (about 2 min on 2 cores): 2 trials and n in {1, 5} (Table 1 also
n = 10; conic-table1 2 instances; Figure 1 and the conic figures n = 5, Figure 2
n in {1, 5}), the SSCA figures with
fewer runs and iterations, the DRFL noise figures with 2 repetitions and noise
levels 0.4 apart, drfl-figure1 with fewer draws. An experiment that cannot run
(a missing data set) is listed with the reason in the summary.

With --shard K/N every experiment computes its share of the trials (docs/cluster.md) but
table3 and drfl-figure1: they have no trials to share (data statistics; one synthetic random
stream), take under a second, and fedcon merge computes them.`,
		Example: `  fedcon reproduce all --quick
  fedcon reproduce all --only table4,figure2-authors --trials 3
  fedcon reproduce all --workers 8`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.bind(c)
			o.Dirs = dataDirs(f, c)
			if o.FetchDir, _ = c.Flags().GetString("data-dir"); o.FetchDir == "" {
				o.FetchDir = datasets.CacheDir()
			}
			for _, name := range o.Only {
				if !slices.Contains(allJobNames(), name) {
					return flagErrorf("--only %s: unknown%s (valid: %s)", name, didYouMean(name, allJobNames()), strings.Join(allJobNames(), ", "))
				}
			}
			if runF != nil {
				return runF(o)
			}
			return allRun(f, o)
		},
	}
	addOutputFlags(c, &o.commonOptions, "results directory: each experiment writes <out>/<name>/ (--quick: <out>/quick/<name>/)")
	fl := c.Flags()
	fl.StringSliceVar(&o.Only, "only", nil, "comma-separated subset of: "+strings.Join(allJobNames(), ", "))
	fl.BoolVar(&o.Quick, "quick", false, "smoke run: 2 trials, n in {1, 5}, into <out>/quick/")
	fl.BoolVar(&o.NoFetch, "no-fetch", false, "do not download missing data sets (experiments that need them are skipped)")
	addYesFlag(c, &o.commonOptions)
	keyFlags(c, func(fl *pflag.FlagSet) {
		fl.Int("trials", 0, "trials per cell (figures always run one)")
		fl.Uint64("seed", 0, "seed of every experiment")
	})
	describeDefault(fl.Lookup("trials"), "each experiment's preset's")
	describeDefault(fl.Lookup("seed"), "each experiment's preset's")
	return c
}

func allRun(f *Factory, o *AllOptions) error {
	co := o.commonOptions
	co.batch, co.JSON = true, false
	if o.Quick {
		co.quick = true
		co.OutDir = resultsDir(co.OutDir, true)
		co.adjust = func(cfg any) {
			switch c := cfg.(type) {
			case *proxal.QPConfig:
				c.Quick()
			case *proxal.NPConfig:
				c.Quick()
			case *proxal.FairConfig:
				c.Quick()
			case *ssca.Config:
				c.Quick()
			case *conic.QPConfig:
				c.Quick()
			}
		}
	}
	type outcome struct {
		name string
		rep  runReport
		err  error
	}
	var outs []outcome
	start := time.Now()
	var jobs []allJob
	for _, j := range allJobs {
		if len(o.Only) > 0 && !slices.Contains(o.Only, j.name) {
			continue
		}
		jobs = append(jobs, j)
	}
	shard, err := parseShardFlag(f, co.Shard)
	if err != nil {
		return err
	}
	if co.DryRun {
		o.NoFetch = true // a dry run writes nothing; missing data fails it
	}
	missing, err := allData(f, o, jobs)
	if err != nil {
		return err
	}
	if !co.DryRun && shard == nil {
		// What the gate expects here: an experiment of this run that ends
		// absent is a failed "not run" row of fedcon check. A shard writes
		// no results; fedcon merge, rerunning the command, records it.
		var names []string
		for _, j := range jobs {
			names = append(names, j.name)
		}
		if err := os.MkdirAll(co.OutDir, 0o755); err != nil {
			return fmt.Errorf("reproduce all: %w", err)
		}
		if err := experiments.AddExpected(co.OutDir, names); err != nil {
			return err
		}
	}
	for _, j := range jobs {
		if shard != nil && !shardable(j.name) {
			outs = append(outs, outcome{j.name, runReport{dir: filepath.Join(co.OutDir, j.name)}, errLeftToMerge})
			continue
		}
		if lack := missingOf(allJobData[j.name], missing); len(lack) > 0 {
			outs = append(outs, outcome{j.name, runReport{dir: filepath.Join(co.OutDir, j.name)},
				&missingDataError{lack}})
			continue
		}
		jo := co
		jo.report = &runReport{dir: filepath.Join(co.OutDir, j.name)}
		t0 := time.Now()
		err := j.run(f, jo, o.Dirs)
		jo.report.wall = time.Since(t0).Seconds()
		outs = append(outs, outcome{j.name, *jo.report, err})
		if errors.Is(err, context.Canceled) {
			break
		}
		if err != nil && !errors.Is(err, errDryRun) {
			fmt.Fprintf(f.IO.ErrOut, "%s: %v\n", j.name, err)
		}
	}
	if !co.DryRun && shard == nil {
		// Why the gate will find an experiment absent: the data it lacked.
		skipped := map[string]string{}
		var ran []string
		for _, r := range outs {
			var me *missingDataError
			if errors.As(r.err, &me) {
				skipped[r.name] = "no " + strings.Join(me.names, ", ")
			} else {
				ran = append(ran, r.name)
			}
		}
		if err := experiments.SetSkipped(co.OutDir, skipped, ran); err != nil {
			return err
		}
	}
	t := &experiments.Table{Title: fmt.Sprintf("reproduce all%s: %.0f s wall", map[bool]string{true: " --quick"}[o.Quick], time.Since(start).Seconds()),
		Header: []string{"experiment", "status", "trials (reused)", "wall s", "results"}}
	var firstErr error
	for _, r := range outs {
		status := "ok"
		if r.err != nil {
			status = "FAILED"
			var me *missingDataError
			switch {
			case errors.Is(r.err, context.Canceled):
				status = "interrupted"
			case errors.As(r.err, &me):
				status = "skipped: no " + strings.Join(me.names, ", ")
			case errors.Is(r.err, errLeftToMerge):
				t.Rows = append(t.Rows, []string{r.name, "left to fedcon merge", "", "", ""})
				continue
			case errors.Is(r.err, errDryRun):
				t.Rows = append(t.Rows, []string{r.name, "valid (dry run)", "", "", ""})
				continue
			}
			if firstErr == nil {
				firstErr = r.err
			}
		}
		t.Rows = append(t.Rows, []string{r.name, status, fmt.Sprintf("%d (%d)", r.rep.trials, r.rep.reused),
			fmt.Sprintf("%.1f", r.rep.wall), r.rep.dir})
	}
	if o.JSON {
		if err := printJSON(f.IO.Out, t); err != nil {
			return err
		}
	} else if err := printTables(f.IO.Out, f.tableWidth(), t); err != nil {
		return err
	}
	if firstErr == nil && co.DryRun {
		return errDryRun
	}
	return firstErr
}

// errLeftToMerge marks a job that a shard leaves to the merge: it has no
// trials (Table 3 describes the data files; DRFL Figure 1 is one synthetic
// random stream of under a second), so fedcon merge computes it.
var errLeftToMerge = errors.New("left to fedcon merge")

// shardable reports whether a job of reproduce all runs under --shard.
func shardable(name string) bool {
	return name != "table3" && name != "drfl-figure1"
}
