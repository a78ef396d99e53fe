package cmd

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/ssca"
)

// sscaSweepRun runs an SSCA figure's curves at every sweep point, each
// point's trials under trials/<slug>/. The data are loaded and the cost of
// all points checked (and --dry-run stops) before the first trial.
func sscaSweepRun(f *Factory, o *SweepOptions, name string, sf *sweepFile, axes []experiments.SweepAxis, points []experiments.SweepPoint,
	cfgs []sweepPointConfig, workers int) error {
	fig := strings.TrimPrefix(sf.Preset, "ssca-")
	loaded := map[string]*ssca.Data{} // points that share a data set and evaluation subsets share the load
	datas := make([]*ssca.Data, len(points))
	var cost experiments.Cost
	for i, c := range cfgs {
		cfg := c.(*ssca.Config)
		key := fmt.Sprint(cfg.Dataset, "/", cfg.EvalSubset, "/", cfg.Seed)
		if loaded[key] == nil {
			dirs := datasets.IDXSearchPath(cfg.Dataset, o.Dirs)
			data, err := experiments.Interruptible(o.ctx, func() (*ssca.Data, error) { return ssca.LoadData(cfg, dirs) })
			if err != nil {
				return err
			}
			loaded[key] = data
		}
		datas[i] = loaded[key]
		pc := cfg.SpecsCost(datas[i], cfg.FigureSpecs(fig), cfg.FigureRuns(fig))
		cost.Bytes, cost.Seconds, cost.Model = max(cost.Bytes, pc.Bytes), cost.Seconds+pc.Seconds, pc.Model
	}
	if !o.Quiet {
		fmt.Fprintf(f.IO.ErrOut, "%s: %d points, estimated %s of CPU, about %s with %d workers\n", name, len(points),
			formatSeconds(cost.Seconds), formatSeconds(cost.Seconds/float64(max(1, workers))), workers)
	}
	if err := checkCost(f, &o.commonOptions, name, cost, workers); err != nil {
		return err
	}
	res := &ssca.SweepResult{Preset: sf.Preset, Axes: axes}
	out, err := newSweepOutput(f, o, name, sf, axes, workers)
	if err != nil {
		return err
	}
	res.Info = out.info
	var runErr error
	for i, p := range points {
		cfg, slug := cfgs[i].(*ssca.Config), p.Slug(axes)
		store := out.newStore(filepath.Join(out.dir, "trials", slug), cfg.TrialHash())
		opt := experiments.RunOptions{Workers: workers, Progress: newProgress(f, o.Quiet, name+" "+slug).fn(), Store: store}
		curves, err := ssca.RunSpecs(o.ctx, cfg, datas[i], cfg.FigureSpecs(fig), cfg.FigureRuns(fig), opt)
		c := store.Counts()
		out.addCounts(c)
		if err != nil {
			runErr = fmt.Errorf("sweep point %s: %w", slug, err)
			break
		}
		if out.shard == nil {
			res.Points = append(res.Points, ssca.NewSweepPoint(p, cfg, fig, curves))
		}
		if !o.Quiet && !f.IO.ErrTTY {
			fmt.Fprintf(f.IO.ErrOut, "%s: point %d/%d %s done (%d runs, %d reused)\n", name, i+1, len(points), slug, c.Reused+c.Computed, c.Reused)
		}
	}
	return out.tables(res, res.Tables(), runErr)
}
