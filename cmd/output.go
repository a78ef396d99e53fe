package cmd

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
)

// runOutput is the output side of one experiment run: results/<name>/ with
// one JSON per trial under trials/ (reused by a rerun with the same
// configuration), the aggregated result files and manifest.json.
type runOutput struct {
	f     *Factory
	o     *commonOptions
	name  string
	dir   string
	seed  uint64
	info  *experiments.RunInfo
	store *experiments.Store
	// extra counts trials of stores other than store (sweep points).
	extra experiments.StoreCounts
	// manifest is the manifest's file name in dir (default manifest.json;
	// SSCA runs share one directory and name theirs).
	manifest string
	lock     *experiments.DirLock
	// shard, under --shard, writes the shard manifest instead of results.
	shard *shardWriter
}

// addCounts adds the trials of another store (a sweep point) to the run's.
func (r *runOutput) addCounts(c experiments.StoreCounts) {
	r.extra.Reused += c.Reused
	r.extra.Computed += c.Computed
	for v, n := range c.ReusedVersions {
		if r.extra.ReusedVersions == nil {
			r.extra.ReusedVersions = map[string]int{}
		}
		r.extra.ReusedVersions[v] += n
	}
	for h, n := range c.SetAside {
		if r.extra.SetAside == nil {
			r.extra.SetAside = map[string]int{}
		}
		r.extra.SetAside[h] += n
	}
}

// counts are the run's reused and computed trials.
func (r *runOutput) counts() experiments.StoreCounts {
	c := r.store.Counts()
	c.Reused += r.extra.Reused
	c.Computed += r.extra.Computed
	if len(r.extra.ReusedVersions) > 0 {
		all := maps.Clone(c.ReusedVersions)
		if all == nil {
			all = map[string]int{}
		}
		for v, n := range r.extra.ReusedVersions {
			all[v] += n
		}
		c.ReusedVersions = all
	}
	if len(r.extra.SetAside) > 0 {
		all := maps.Clone(c.SetAside)
		if all == nil {
			all = map[string]int{}
		}
		for h, n := range r.extra.SetAside {
			all[h] += n
		}
		c.SetAside = all
	}
	return c
}

// newRunOutput takes the lock of <out>/<name>/ (a second run on it exits 1
// naming the holder), which also removes the temporary files of a killed run;
// finish releases it.
func newRunOutput(f *Factory, o *commonOptions, name string, cfg any, seed uint64, trialHash string, workers int) (*runOutput, error) {
	r, err := openRunOutput(f, o, name, cfg, seed, trialHash, workers)
	if err != nil {
		return nil, err
	}
	if err := r.begin(); err != nil {
		r.unlock()
		return nil, err
	}
	return r, nil
}

// openRunOutput is newRunOutput without the early manifest: the caller
// names its manifest first, then calls begin (SSCA).
func openRunOutput(f *Factory, o *commonOptions, name string, cfg any, seed uint64, trialHash string, workers int) (*runOutput, error) {
	shard, err := parseShardFlag(f, o.Shard)
	if err != nil {
		return nil, err
	}
	// Experiments with a cost model are refused here, before the lock and
	// the first file, when they would exceed the machine's memory or the
	// time limit; a shard does about 1/N of the work. A merge computes
	// nothing, so it is not checked.
	if c, ok := cfg.(interface{ Cost(int) experiments.Cost }); ok && !o.ReuseOnly {
		cost := c.Cost(workers)
		if shard != nil {
			cost.Seconds /= float64(max(1, shard.N))
		}
		if err := checkCost(f, o, name, cost, workers); err != nil {
			return nil, err
		}
	}
	if err := requireData(cfg, o.dataDirs, o.ReuseOnly); err != nil {
		return nil, err
	}
	if o.DryRun {
		return nil, errDryRun
	}
	dir := filepath.Join(o.OutDir, name)
	lock, err := experiments.LockDir(dir, strings.Join(os.Args, " "))
	if err != nil {
		return nil, err
	}
	if lock.Cleaned > 0 && !o.Quiet {
		fmt.Fprintf(f.IO.ErrOut, "%s: removed %d temporary files of an interrupted run\n", dir, lock.Cleaned)
	}
	errOut := f.IO.ErrOut
	r := &runOutput{f: f, o: o, name: name, dir: dir, seed: seed, lock: lock,
		info: experiments.NewRunInfo(name, f.Version, cfg, workers),
		store: &experiments.Store{Dir: filepath.Join(dir, "trials"), Hash: trialHash, Force: o.Force, Version: f.Version,
			Warn: func(msg string) { fmt.Fprintln(errOut, msg) }, ReuseOnly: o.ReuseOnly},
	}
	if shard != nil {
		r.shard = &shardWriter{r: r, log: experiments.NewShardLog(*shard), start: r.info.Start}
		r.shard.log.Changed = r.shard.changed
		r.store.Shard = r.shard.log
	}
	return r, nil
}

// requireData names a data set of cfg (configurations that read registry
// data list them: DataSets) missing from dirs, before the output directory
// is made, so that a failed start leaves nothing behind. Nothing is looked
// for without a search path (a command that reads no data) or when no
// trial is computed (merge).
func requireData(cfg any, dirs []string, reuseOnly bool) error {
	c, ok := cfg.(interface{ DataSets() []string })
	if !ok || dirs == nil || reuseOnly {
		return nil
	}
	return datasets.Require(c.DataSets(), dirs)
}

// newStore is a store of the run's other than its own (a sweep point's),
// under the same shard and reuse settings.
func (r *runOutput) newStore(dir, hash string) *experiments.Store {
	return &experiments.Store{Dir: dir, Hash: hash, Force: r.o.Force, Version: r.f.Version,
		Warn: r.store.Warn, Shard: r.store.Shard, ReuseOnly: r.store.ReuseOnly}
}

// begin marks the directory's manifest incomplete before any work, so that a
// killed run never leaves an earlier run's manifest claiming completion.
func (r *runOutput) begin() error {
	if r.shard != nil {
		return r.shard.write(false, nil)
	}
	m, err := experiments.NewManifest(r.info, r.seed, r.store, errRunning)
	if err != nil {
		return err
	}
	return experiments.WriteJSON(filepath.Join(r.dir, r.manifestName()), m)
}

var errRunning = errors.New("running (or killed before it finished)")

func (r *runOutput) manifestName() string {
	if r.manifest == "" {
		return "manifest.json"
	}
	return r.manifest
}

// unlock releases the directory; the process exiting releases it too.
func (r *runOutput) unlock() { r.lock.Unlock() }

// options are the experiments' run options: workers, progress, trial store.
func (r *runOutput) options() experiments.RunOptions {
	return experiments.RunOptions{Workers: r.info.Workers, Progress: newProgress(r.f, r.o.Quiet, r.name).fn(), Store: r.store}
}

// finish stamps the run's end once: the result files, written first, and the
// manifest, written last, record the same times.
func (r *runOutput) finish() {
	if r.info.End.IsZero() {
		r.info.Finish()
	}
}

func (r *runOutput) writeManifest(runErr error) error {
	r.finish()
	if rep := r.o.report; rep != nil {
		c := r.counts()
		rep.dir, rep.reused, rep.trials = r.dir, c.Reused, c.Reused+c.Computed
	}
	m, err := experiments.NewManifest(r.info, r.seed, r.store, runErr)
	if err != nil {
		return err
	}
	m.Reused += r.extra.Reused
	m.Computed += r.extra.Computed
	return experiments.WriteJSON(filepath.Join(r.dir, r.manifestName()), m)
}

// failed records an unsuccessful run: the manifest (the finished trials are
// already on disk) and, when interrupted with whole cells finished, their
// table under <name>-partial.
func (r *runOutput) failed(runErr error, doc any, tables []*experiments.Table) error {
	if r.shard != nil {
		return r.finishShard(runErr)
	}
	defer r.unlock()
	if err := r.writeManifest(runErr); err != nil {
		return errors.Join(runErr, err)
	}
	if !errors.Is(runErr, context.Canceled) {
		return runErr
	}
	c := r.counts()
	msg := fmt.Sprintf("%s: interrupted; %d finished trials kept in %s (a rerun resumes)", r.name, c.Reused+c.Computed, r.store.Dir)
	if doc != nil && len(tables) > 0 && len(tables[0].Rows) > 0 {
		if _, err := experiments.WriteOutputs(r.dir, r.name+"-partial", doc, tables...); err == nil {
			msg += "; finished cells in " + filepath.Join(r.dir, r.name+"-partial.{json,csv,md}")
		}
	}
	fmt.Fprintln(r.f.IO.ErrOut, msg)
	return runErr
}

// summary is the one line a run prints on stderr (unless --quiet).
func (r *runOutput) summary(what string) {
	if r.o.Quiet {
		return
	}
	c := r.counts()
	reused := ""
	if c.Reused > 0 {
		reused = fmt.Sprintf(" (%d reused from %s", c.Reused, r.store.Dir)
		if len(c.ReusedVersions) > 1 || c.ReusedVersions[r.f.Version] == 0 {
			reused += fmt.Sprintf(", computed by %v: use --force after changing fedcon", slices.Sorted(maps.Keys(c.ReusedVersions)))
		}
		reused += ")"
	}
	fmt.Fprintf(r.f.IO.ErrOut, "%s: %d trials%s in %.1f s wall (%d workers); wrote %s\n",
		r.name, c.Reused+c.Computed, reused, r.info.WallSec, r.info.Workers, what)
	if line := setAsideLine(r.store.Dir, c.SetAside); line != "" {
		fmt.Fprintf(r.f.IO.ErrOut, "%s: %s\n", r.name, line)
	}
}

// tables finishes a table run: the result files and manifest, then the
// tables (or JSON) on stdout and a summary line.
func (r *runOutput) tables(doc any, tables []*experiments.Table, runErr error) error {
	if runErr != nil {
		return r.failed(runErr, doc, tables)
	}
	if r.shard != nil {
		return r.finishShard(nil)
	}
	defer r.unlock()
	r.finish()
	if _, err := experiments.WriteOutputs(r.dir, r.name, doc, tables...); err != nil {
		return err
	}
	for _, ext := range []string{"json", "csv", "md"} { // an earlier interruption's
		_ = os.Remove(filepath.Join(r.dir, r.name+"-partial."+ext))
	}
	// Last: a manifest that says complete vouches for the files above.
	if err := r.writeManifest(nil); err != nil {
		return err
	}
	switch {
	case r.o.batch:
	case r.o.JSON:
		return printJSON(r.f.IO.Out, doc)
	default:
		if err := printTables(r.f.IO.Out, r.f.tableWidth(), tables...); err != nil {
			return err
		}
	}
	r.summary(filepath.Join(r.dir, r.name+".{json,csv,md}"))
	return nil
}

// figure finishes a figure run: <name>.json, .png and .svg and the manifest;
// prints the paths (or the JSON).
func (r *runOutput) figure(doc any, fig *experiments.Figure, runErr error) error {
	if runErr != nil {
		return r.failed(runErr, nil, nil)
	}
	if r.shard != nil {
		return r.finishShard(nil)
	}
	defer r.unlock()
	r.finish()
	base := filepath.Join(r.dir, r.name)
	if err := experiments.WriteJSON(base+".json", doc); err != nil {
		return err
	}
	paths, err := renderFigure(fig, base)
	if err != nil {
		return fmt.Errorf("%s: %w", r.name, err)
	}
	if err := r.writeManifest(nil); err != nil {
		return err
	}
	switch {
	case r.o.batch:
	case r.o.JSON:
		return printJSON(r.f.IO.Out, doc)
	default:
		for _, p := range append([]string{base + ".json"}, paths...) {
			fmt.Fprintln(r.f.IO.Out, p)
		}
	}
	r.summary(base + ".{json,png,svg}")
	return nil
}

// runReport is what `reproduce all` learns about each run.
type runReport struct {
	dir            string
	trials, reused int
	wall           float64 // seconds, including loading and writing
}

// setAsideLine says which trial files of other configurations a run moved
// aside instead of replacing them ("" when none).
func setAsideLine(dir string, aside map[string]int) string {
	if len(aside) == 0 {
		return ""
	}
	n := 0
	var where []string
	for _, h := range slices.Sorted(maps.Keys(aside)) {
		n += aside[h]
		where = append(where, filepath.Join(dir, "@"+h))
	}
	files := "trial files"
	if n == 1 {
		files = "trial file"
	}
	return fmt.Sprintf("kept %d %s of another configuration in %s (a run of that configuration takes them back)", n, files, strings.Join(where, ", "))
}
