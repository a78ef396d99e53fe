package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/proxal"
	"github.com/fedcon/fedcon/experiments/ssca"
)

// SweepOptions are the flags of `fedcon sweep`.
type SweepOptions struct {
	commonOptions
	File string
	Dirs []string
}

// sweepFile is the format of configs/sweeps/*.yaml.
type sweepFile struct {
	Preset string         `yaml:"preset"`
	Base   map[string]any `yaml:"base"`
	Sweep  yaml.Node      `yaml:"sweep"`
}

var sweepPresets = []string{"table1", "table2", "table2-authors", "table4", "ssca-figure2", "ssca-figure3", "ssca-figure4"}

// sweepPresetFile is the configs/ file a sweep preset loads: the SSCA
// figures share configs/ssca/ssca.yaml.
func sweepPresetFile(preset string) string {
	if strings.HasPrefix(preset, "ssca-") {
		return "ssca/ssca"
	}
	return preset
}

func newCmdSweep(f *Factory, runF func(*SweepOptions) error) *cobra.Command {
	o := &SweepOptions{}
	c := &cobra.Command{
		Use:   "sweep FILE",
		Short: "Run the cartesian product of listed parameter values and write one table",
		Long: `sweep reads a YAML file naming a preset (` + strings.Join(sweepPresets, ", ") + `), base
overrides of its keys, and lists of values for some keys, runs every combination, and writes
one table with a column per swept key to <out>/sweep-<file>/. Every point keeps its trials
under trials/<key=value,...>/, so an interrupted sweep resumes.

  preset: table1
  base: {datasets: [breast-cancer-wisc], clients: [5], trials: 2}
  sweep:
    beta: [10, 100, 300, 1000]
    rho: [0.01, 1]

An axis named k1=k2 sets both keys to each of its values (eps1=eps2: [1e-3, 1e-6]).

The ssca-figure2, -3 and -4 presets run that SSCA figure's curves (keys of
configs/ssca/ssca.yaml, runs in base) at every point and write two tables: each curve's
F(w^T), mean cost and test accuracy, and the paired comparisons of Section VI's claims
(as <figure>-claims of reproduce). --dry-run loads the data and prints the estimated time.`,
		Example: "  fedcon sweep configs/sweeps/np-beta.yaml",
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.bind(c)
			o.File = args[0]
			o.Dirs = dataDirs(f, c)
			if runF != nil {
				return runF(o)
			}
			return sweepRun(f, o)
		},
	}
	addOutputFlags(c, &o.commonOptions, "results directory: the sweep writes <out>/sweep-<file>/")
	addYesFlag(c, &o.commonOptions)
	return c
}

// readSweep parses and checks a sweep file: known preset, known keys,
// non-empty value lists.
func readSweep(path string) (*sweepFile, []experiments.SweepAxis, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, &FlagError{err: fmt.Errorf("sweep: %w", err)}
	}
	var sf sweepFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&sf); err != nil {
		msg := strings.Join(strings.Fields(strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:")), " ")
		return nil, nil, &experiments.ConfigError{Field: "sweep file", Value: path, Reason: msg + " (keys: preset, base, sweep)"}
	}
	if !slices.Contains(sweepPresets, sf.Preset) {
		return nil, nil, &experiments.ConfigError{Field: "preset", Value: sf.Preset, Reason: "must be one of " + strings.Join(sweepPresets, ", ")}
	}
	valid, err := presetKeys(sweepPresetFile(sf.Preset))
	if err != nil {
		return nil, nil, err
	}
	check := func(k string) error {
		if !slices.Contains(valid, k) {
			return &experiments.ConfigError{Field: "sweep key", Value: k, Reason: "unknown for preset " + sf.Preset + " (valid: " + strings.Join(valid, ", ") + ")"}
		}
		return nil
	}
	for k := range sf.Base {
		if err := check(k); err != nil {
			return nil, nil, err
		}
	}
	if sf.Sweep.Kind != yaml.MappingNode || len(sf.Sweep.Content) == 0 {
		return nil, nil, &experiments.ConfigError{Field: "sweep", Value: path, Reason: "needs a mapping of keys to lists of values"}
	}
	if err := checkSweepTypes(path, b, sf.Preset); err != nil {
		return nil, nil, err
	}
	var axes []experiments.SweepAxis
	for i := 0; i+1 < len(sf.Sweep.Content); i += 2 {
		k := sf.Sweep.Content[i].Value
		for _, kk := range strings.Split(k, "=") { // "eps1=eps2": one axis setting both keys
			if err := check(kk); err != nil {
				return nil, nil, err
			}
		}
		var vals []any
		if err := sf.Sweep.Content[i+1].Decode(&vals); err != nil || len(vals) == 0 {
			return nil, nil, &experiments.ConfigError{Field: "sweep." + k, Value: sf.Sweep.Content[i+1].Value, Reason: "must be a non-empty list of values"}
		}
		axes = append(axes, experiments.SweepAxis{Key: k, Values: vals})
	}
	return &sf, axes, nil
}

// sweepConfigType is the configuration type a sweep preset loads.
func sweepConfigType(preset string) reflect.Type {
	switch {
	case preset == "table4":
		return reflect.TypeOf(proxal.QPConfig{})
	case preset == "table1":
		return reflect.TypeOf(proxal.NPConfig{})
	case strings.HasPrefix(preset, "ssca-"):
		return reflect.TypeOf(ssca.Config{})
	}
	return reflect.TypeOf(proxal.FairConfig{})
}

// checkSweepTypes checks the sweep file's base values and every swept value
// against the preset's field types, as --config files are checked: one
// line naming the file, its line and the key.
func checkSweepTypes(path string, data []byte, preset string) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil // the decoder above has named what is wrong
	}
	t := sweepConfigType(preset)
	keys := structKeys(t)
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		var err error
		switch v := root.Content[i+1]; root.Content[i].Value {
		case "base":
			err = checkNode(v, t, "")
		case "sweep":
			for j := 0; j+1 < len(v.Content) && err == nil; j += 2 {
				k, vals := v.Content[j].Value, v.Content[j+1]
				for _, kk := range strings.Split(k, "=") {
					ft, ok := keys[kk]
					if !ok || vals.Kind != yaml.SequenceNode {
						continue // named by readSweep
					}
					for _, x := range vals.Content {
						if err = checkNode(x, ft, kk); err != nil {
							break
						}
					}
				}
			}
		}
		var ne *nodeError
		if errors.As(err, &ne) {
			return &FlagError{err: fmt.Errorf("sweep %s:%d: %s", path, ne.line, ne.msg)}
		} else if err != nil {
			return err
		}
	}
	return nil
}

// sweepPointConfig is a sweep point's loaded configuration.
type sweepPointConfig interface {
	Validate() error
	TrialHash() string
}

// sweepConfig loads and validates the configuration of one point.
func sweepConfig(f *Factory, o *SweepOptions, preset string, base map[string]any, axes []experiments.SweepAxis, p experiments.SweepPoint) (sweepPointConfig, error) {
	co := o.commonOptions
	co.overrides = map[string]any{}
	for k, v := range base {
		co.overrides[k] = v
	}
	for i, ax := range axes {
		for _, k := range strings.Split(ax.Key, "=") {
			co.overrides[k] = p[i]
		}
	}
	var cfg sweepPointConfig
	switch {
	case preset == "table4":
		cfg = &proxal.QPConfig{}
	case preset == "table1":
		cfg = &proxal.NPConfig{}
	case strings.HasPrefix(preset, "ssca-"):
		cfg = &ssca.Config{}
	default:
		cfg = &proxal.FairConfig{}
	}
	if err := loadConfig(f, &co, sweepPresetFile(preset), cfg); err != nil {
		return nil, err
	}
	if c, ok := cfg.(*ssca.Config); ok && c.SGDRates == nil {
		rates, err := loadSGDRates("") // the baselines' committed rates, as reproduce uses
		if err != nil {
			return nil, err
		}
		c.SGDRates = rates
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("sweep point %s: %w", p.Slug(axes), err)
	}
	if err := requireData(cfg, o.Dirs, o.ReuseOnly); err != nil {
		return nil, fmt.Errorf("sweep point %s: %w", p.Slug(axes), err)
	}
	return cfg, nil
}

func sweepRun(f *Factory, o *SweepOptions) error {
	sf, axes, err := readSweep(o.File)
	if err != nil {
		return err
	}
	workers, err := workersFlag(f, o.Workers)
	if err != nil {
		return err
	}
	points := experiments.Product(axes)
	// Every point is loaded and validated before the first one runs.
	cfgs := make([]sweepPointConfig, len(points))
	for i, p := range points {
		if cfgs[i], err = sweepConfig(f, o, sf.Preset, sf.Base, axes, p); err != nil {
			return err
		}
	}
	name := "sweep-" + strings.TrimSuffix(filepath.Base(o.File), filepath.Ext(o.File))
	if strings.HasPrefix(sf.Preset, "ssca-") {
		return sscaSweepRun(f, o, name, sf, axes, points, cfgs, workers)
	}
	res := &proxal.SweepResult{Preset: sf.Preset, Axes: axes}
	out, err := newSweepOutput(f, o, name, sf, axes, workers)
	if err != nil {
		return err
	}
	res.Info = out.info
	var runErr error
	for i, p := range points {
		slug := p.Slug(axes)
		pr := proxal.SweepPointResult{Values: p, Config: cfgs[i], TrialHash: cfgs[i].TrialHash()}
		store := out.newStore(filepath.Join(out.dir, "trials", slug), pr.TrialHash)
		opt := experiments.RunOptions{Workers: workers, Progress: newProgress(f, o.Quiet, name+" "+slug).fn(), Store: store}
		var err error
		switch c := cfgs[i].(type) {
		case *proxal.QPConfig:
			var r *proxal.QPResult
			if r, err = proxal.RunQP(o.ctx, c, opt); r != nil {
				pr.QPRows = r.Rows
			}
		case *proxal.NPConfig:
			var r *proxal.NPResult
			if r, err = proxal.RunNP(o.ctx, c, o.Dirs, opt); r != nil {
				pr.ClassRows = r.Rows
			}
		case *proxal.FairConfig:
			var r *proxal.FairResult
			if r, err = proxal.RunFair(o.ctx, c, o.Dirs, opt); r != nil {
				pr.ClassRows = r.Rows
			}
		}
		c := store.Counts()
		out.addCounts(c)
		if err != nil {
			runErr = fmt.Errorf("sweep point %s: %w", slug, err)
			break
		}
		res.Points = append(res.Points, pr)
		if !o.Quiet && !f.IO.ErrTTY {
			fmt.Fprintf(f.IO.ErrOut, "%s: point %d/%d %s done (%d trials, %d reused)\n", name, i+1, len(points), slug, c.Reused+c.Computed, c.Reused)
		}
	}
	if runErr == nil && out.shard == nil {
		// A participation axis has its own figure; otherwise several client
		// counts per point draw the scaling figure.
		fig, ok := res.ParticipationFigure()
		suffix := "-participation"
		if !ok {
			fig, ok = res.ScalingFigure()
			suffix = "-scaling"
		}
		if ok {
			if _, err := renderFigure(fig, filepath.Join(out.dir, name+suffix)); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	return out.tables(res, []*experiments.Table{res.Table()}, runErr)
}

// newSweepOutput opens a sweep's output; its manifest records the preset,
// the base keys and the axes.
func newSweepOutput(f *Factory, o *SweepOptions, name string, sf *sweepFile, axes []experiments.SweepAxis, workers int) (*runOutput, error) {
	return newRunOutput(f, &o.commonOptions, name, struct {
		Preset string                  `json:"preset"`
		Base   map[string]any          `json:"base"`
		Axes   []experiments.SweepAxis `json:"axes"`
	}{sf.Preset, sf.Base, axes}, 0, "", workers)
}
