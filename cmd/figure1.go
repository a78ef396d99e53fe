package cmd

import (
	"fmt"
	"path/filepath"

	"github.com/fedcon/fedcon/experiments"
	"github.com/spf13/cobra"
)

func newCmdReproduceFigure1(f *Factory, runF func(*NPOptions) error) *cobra.Command {
	o := &NPOptions{}
	c := npCommand(f, "figure1", "Figure 1: class-0 and class-1 losses per outer iteration of Algorithm 1 (n = 5, one trial per dataset)",
		"  fedcon reproduce figure1", o, figure1Run, runF)
	c.Flags().IntVar(&o.Clients, "clients", 5, "number of clients n (the paper's Figure 1 used 5)")
	return c
}

func figure1Run(f *Factory, o *NPOptions) error {
	cfg := &experiments.NPConfig{}
	if err := loadConfig(f, o.cmd, "table1", o.Config, alFlagKeys, cfg); err != nil {
		return err
	}
	cfg.Clients = []int{o.Clients}
	if err := cfg.Validate(); err != nil {
		return err
	}
	workers, err := workersFlag(f, o.Workers)
	if err != nil {
		return err
	}
	info := experiments.NewRunInfo("figure1", f.Version, cfg, workers)
	res, err := experiments.RunFigure1(o.cmd.Context(), cfg, o.Dirs, workers, newProgress(f, o.Quiet, "figure1").fn())
	if err != nil {
		return err
	}
	res.Info = info
	info.Finish()
	base := filepath.Join(o.OutDir, "figure1")
	if err := experiments.WriteJSON(base+".json", res); err != nil {
		return err
	}
	paths, err := renderFigure(&res.Figure, base)
	if err != nil {
		return fmt.Errorf("figure1: %w", err)
	}
	if o.JSON {
		return printJSON(f.IO.Out, res)
	}
	for _, p := range append([]string{base + ".json"}, paths...) {
		fmt.Fprintln(f.IO.Out, p)
	}
	return nil
}
