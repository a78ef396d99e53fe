package cmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/experiments"
)

// DRFLFigure1Options are the flags of `fedcon reproduce drfl-figure1`.
type DRFLFigure1Options struct {
	OutDir string
	Quick  bool
	Config experiments.DRFLFigure1Config
	JSON   bool
	Quiet  bool
}

func newCmdReproduceDRFLFigure1(f *Factory, runF func(*DRFLFigure1Options) error) *cobra.Command {
	o := &DRFLFigure1Options{Config: experiments.DefaultDRFLFigure1()}
	c := &cobra.Command{
		Use:   "drfl-figure1",
		Short: "DRFL Figure 1 (Example 4.1, Appendix D): coverage and volume of the DRFL and WAFL balls",
		Example: `  fedcon reproduce drfl-figure1
  fedcon reproduce drfl-figure1 --quick --out /tmp/res`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.JSON, _ = c.Flags().GetBool("json")
			o.Quiet, _ = c.Flags().GetBool("quiet")
			if o.Quick {
				o.Config.Draws, o.Config.RhoStep = 2000, 1e-4
			}
			if runF != nil {
				return runF(o)
			}
			return drflFigure1Run(f, o)
		},
	}
	fl := c.Flags()
	fl.StringVar(&o.OutDir, "out", "results", "results directory: writes <out>/drfl/figure1.{png,svg,csv,json}")
	fl.BoolVar(&o.Quick, "quick", false, "2,000 random distributions per level and a ρ grid step of 1e-4")
	fl.Uint64Var(&o.Config.Seed, "seed", o.Config.Seed, "random seed")
	fl.IntVar(&o.Config.Runs, "runs", o.Config.Runs, "runs of the coverage stage")
	fl.IntVar(&o.Config.Samples, "samples", o.Config.Samples, "samples per run")
	fl.IntVar(&o.Config.Draws, "draws", o.Config.Draws, "random distributions per guarantee level")
	return c
}

func drflFigure1Run(f *Factory, o *DRFLFigure1Options) error {
	res, err := experiments.RunDRFLFigure1(o.Config)
	if err != nil {
		return err
	}
	base := filepath.Join(o.OutDir, "drfl", "figure1")
	paths, err := renderFigure(&res.Figure, base)
	if err != nil {
		return fmt.Errorf("render %s: %w", base, err)
	}
	// Every result file records what produced it: version, configuration, seed.
	info := experiments.NewRunInfo("drfl-figure1", f.Version, o.Config, 1)
	info.Finish()
	js, err := json.MarshalIndent(struct {
		Run *experiments.RunInfo `json:"run"`
		*experiments.DRFLFigure1
	}{info, res}, "", "  ")
	if err != nil {
		return err
	}
	for ext, data := range map[string][]byte{".json": append(js, '\n'), ".csv": []byte(res.CSV())} {
		if err := experiments.WriteAtomic(base+ext, data); err != nil {
			return err
		}
		paths = append(paths, base+ext)
	}
	if o.JSON {
		_, err := f.IO.Out.Write(append(js, '\n'))
		return err
	}
	t := dataTable(f.IO.Out, "level", "ρ DRFL", "ρ WAFL", "volume DRFL", "volume WAFL")
	for i, l := range res.Levels {
		_ = t.Append(fmt.Sprintf("%.2f", l), fmt.Sprintf("%.5f", res.RhoDRFL[i]), fmt.Sprintf("%.5f", res.RhoWAFL[i]),
			fmt.Sprintf("%.4f", res.VolumeDRFL[i]), fmt.Sprintf("%.4f", res.VolumeWAFL[i]))
	}
	if err := t.Render(); err != nil {
		return err
	}
	if !o.Quiet {
		for _, p := range paths {
			fmt.Fprintln(f.IO.ErrOut, "wrote", p)
		}
	}
	return nil
}
