package cmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/drfl"
)

// DRFLFigure1Options are the flags of `fedcon reproduce drfl-figure1`.
type DRFLFigure1Options struct {
	commonOptions
	Quick bool
	// Config is the run: the preset's figure1 keys under --config,
	// FEDCON_* and the flags set on the command line (load).
	Config drfl.Figure1Config
}

// load reads Figure 1's sizes from the preset under --config, FEDCON_*
// and the flags; --quick takes the quick_ keys.
func (o *DRFLFigure1Options) load(f *Factory) error {
	cfg, err := loadDRFLConfig(f, &o.commonOptions)
	if err != nil {
		return err
	}
	o.Config = cfg.Figure1Config(o.Quick)
	if o.Quick && o.flags != nil && o.flags.Changed("draws") {
		o.Config.Draws = cfg.Figure1.Draws // an explicit --draws wins over --quick's
	}
	return o.Config.Validate()
}

// drflFigure1Section is the section of the DRFL preset whose keys
// drfl-figure1's flags set (--runs: figure1.runs).
const drflFigure1Section = "figure1."

func newCmdReproduceDRFLFigure1(f *Factory, runF func(*DRFLFigure1Options) error) *cobra.Command {
	o := &DRFLFigure1Options{}
	def := drfl.DefaultConfig().Figure1
	c := &cobra.Command{
		Use:   "drfl-figure1",
		Short: "DRFL Figure 1 (Example 4.1, Appendix D): coverage and volume of the DRFL and WAFL balls",
		Long: `DRFL Figure 1 (Example 4.1, Appendix D): coverage and volume of the DRFL and WAFL balls.

Sizes come from the figure1 keys of the preset configs/drfl/drfl.yaml; --config FILE overrides
them and flags set on the command line win.`,
		Example: `  fedcon reproduce drfl-figure1
  fedcon reproduce drfl-figure1 --quick --out /tmp/res`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.bind(c)
			if err := o.load(f); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return drflFigure1Run(f, o)
		},
	}
	addDRFLConfigFlag(c, &o.commonOptions)
	fl := c.Flags()
	fl.StringVar(&o.OutDir, "out", "results", "results directory: writes <out>/drfl/figure1.{png,svg,csv,json} (--quick: <out>/quick/drfl/)")
	fl.BoolVar(&o.Quick, "quick", false, fmt.Sprintf("%d random distributions per level and a ρ grid step of %g", def.QuickDraws, def.QuickRhoStep))
	keyFlagsUnder(c, drflFigure1Section, func(fl *pflag.FlagSet) {
		fl.Uint64("seed", def.Seed, "random seed")
		fl.Int("runs", def.Runs, "runs of the coverage stage")
		fl.Int("samples", def.Samples, "samples per run")
		fl.Int("draws", def.Draws, "random distributions per guarantee level")
	})
	addYesFlag(c, &o.commonOptions)
	return c
}

func drflFigure1Run(f *Factory, o *DRFLFigure1Options) error {
	if err := checkCost(f, &o.commonOptions, "reproduce drfl-figure1", o.Config.Cost(), 1); err != nil {
		return err
	}
	res, err := drfl.RunFigure1(o.Config)
	if err != nil {
		return err
	}
	base := filepath.Join(resultsDir(o.OutDir, o.Quick), "drfl", "figure1")
	paths, js, err := writeFigureFiles(f, "drfl-figure1", o.Config, &res.Figure, res, res.CSV(), base)
	if err != nil {
		return err
	}
	if o.JSON {
		_, err := f.IO.Out.Write(js)
		return err
	}
	if err := printTables(f.IO.Out, f.tableWidth(), drflFigure1Table(res)); err != nil {
		return err
	}
	if !o.Quiet {
		for _, p := range paths {
			fmt.Fprintln(f.IO.ErrOut, "wrote", p)
		}
	}
	return nil
}

// writeFigureFiles renders fig into base.{png,svg} and writes base.json (doc
// with a "run" record: version, configuration, seed) and base.csv, atomically.
func writeFigureFiles(f *Factory, name string, cfg any, fig *experiments.Figure, doc any, csv, base string) ([]string, []byte, error) {
	paths, err := renderFigure(fig, base)
	if err != nil {
		return nil, nil, fmt.Errorf("render %s: %w", base, err)
	}
	info := experiments.NewRunInfo(name, f.Version, cfg, 1)
	info.Finish()
	var fields map[string]json.RawMessage
	b, err := json.Marshal(doc)
	if err == nil {
		err = json.Unmarshal(b, &fields)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: encode: %w", name, err)
	}
	if fields["run"], err = json.Marshal(info); err != nil {
		return nil, nil, err
	}
	js, err := json.MarshalIndent(fields, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	js = append(js, '\n')
	for ext, data := range map[string][]byte{".json": js, ".csv": []byte(csv)} {
		if err := experiments.WriteAtomic(base+ext, data); err != nil {
			return nil, nil, err
		}
		paths = append(paths, base+ext)
	}
	return paths, js, nil
}

// drflFigure1Table is the figure's numbers: per guarantee level, the
// smallest radius reaching it and the ambiguity set's normalised volume.
func drflFigure1Table(res *drfl.Figure1) *experiments.Table {
	t := &experiments.Table{
		Title:  "DRFL Figure 1 (Example 4.1): radius ρ reaching each guarantee level P(P* in ambiguity set), and the set's normalised volume, DRFL vs WAFL",
		Header: []string{"level", "ρ DRFL", "ρ WAFL", "volume DRFL", "volume WAFL"},
	}
	for i, l := range res.Levels {
		t.Rows = append(t.Rows, []string{fmt.Sprintf("%.2f", l), fmt.Sprintf("%.5f", res.RhoDRFL[i]), fmt.Sprintf("%.5f", res.RhoWAFL[i]),
			fmt.Sprintf("%.4f", res.VolumeDRFL[i]), fmt.Sprintf("%.4f", res.VolumeWAFL[i])})
	}
	return t
}
