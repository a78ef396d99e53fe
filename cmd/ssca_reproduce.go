package cmd

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/ssca"
)

func newCmdReproduceSSCA(f *Factory, fig string, runF func(*SSCAOptions) error) *cobra.Command {
	o := &SSCAOptions{}
	figs := []string{fig}
	short := map[string]string{
		"figure2": "SSCA Figure 2: sample-based FL, Algorithms 1-2 vs FedAvg (training cost, test accuracy)",
		"figure3": "SSCA Figure 3: feature-based FL, Algorithms 3-4 vs feature SGD",
		"figure4": "SSCA Figure 4: ‖w‖² vs training cost, Algorithms 2/4 sweeping U, 1/3 sweeping λ",
		"all":     "SSCA Figures 2-4",
	}[fig]
	if fig == "all" {
		figs = ssca.Figures
	}
	c := &cobra.Command{
		Use:   "ssca-" + fig,
		Short: short,
		Long: short + `.

Results go to results/ssca/ (--quick: results/quick/ssca/): <figure>.{json,csv,md,png,svg},
<figure>-points.csv (every evaluated point with its seed), <figure>-rounds.{csv,md} (mean and
std over runs per curve and iteration), <figure>-claims.{json,csv,md} (Section VI's claims:
paired comparisons over runs sharing seeds) and one JSON per finished run under trials/,
shared by all SSCA figures: Ctrl-C keeps finished runs, a rerun resumes (with every run
stored it computes nothing and rewrites the files above and the manifest).
--quick: 2 runs (Figure 4: 1), evaluation every 10 rounds on fixed 5000-image subsets.`,
		Example: "  fedcon reproduce ssca-" + fig + " --quick\n  fedcon reproduce ssca-" + fig + " --runs 10 --workers 2",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.bind(c)
			o.Dirs = dataDirs(f, c)
			o.Figures = figs
			if runF != nil {
				return runF(o)
			}
			return sscaReproduce(f, o)
		},
	}
	addSSCAFlags(c, o)
	addYesFlag(c, &o.commonOptions)
	c.Flags().BoolVar(&o.Quick, "quick", false, "smoke run: 2 runs (Figure 4: 1), evaluation every 10 rounds on 5000-image subsets")
	return c
}

func sscaReproduce(f *Factory, o *SSCAOptions) error {
	var curves []ssca.Spec
	for _, fig := range o.Figures {
		curves = append(curves, ssca.FigureCurves(fig)...)
	}
	o.ignoreFlags(ssca.UnreadKeys(curves))
	cfg, err := loadSSCAConfig(f, o)
	if err != nil {
		return err
	}
	workers, data, err := sscaSetup(o.ctx, f, o.Workers, cfg, o.Dirs)
	if err != nil {
		return err
	}
	var cost experiments.Cost
	for _, fig := range o.Figures {
		c := cfg.SpecsCost(data, cfg.FigureSpecs(fig), cfg.FigureRuns(fig))
		cost.Bytes, cost.Seconds, cost.Model = max(cost.Bytes, c.Bytes), cost.Seconds+c.Seconds, c.Model
	}
	if err := checkCost(f, &o.commonOptions, "ssca "+strings.Join(o.Figures, ", "), cost, workers); err != nil {
		return err
	}
	done := map[string][]ssca.Curve{}
	for _, fig := range o.Figures {
		out, err := sscaOutput(f, o, cfg, workers, "ssca-"+fig)
		if err != nil {
			return err
		}
		out.name = "ssca-" + fig
		curves, err := ssca.RunSpecs(o.ctx, cfg, data, cfg.FigureSpecs(fig), cfg.FigureRuns(fig), out.options())
		res := ssca.NewResult(fig, cfg, data, curves)
		res.Info = out.info
		if err == nil && out.shard == nil {
			done[fig] = curves
			if _, ok := done["figure2"]; fig == "figure3" && !ok {
				// Figure 3's cross claim needs Figure 2: its stored runs, if complete.
				if c, ok := sscaStoredCurves(o.ctx, out, cfg, data, "figure2"); ok {
					done["figure2"] = c
				}
			}
			res.Claims = cfg.Claims(fig, done)
		}
		if err := sscaFinish(out, res, true, err); err != nil {
			return err
		}
	}
	return nil
}

// sscaStoredCurves reads figure fig's runs from out's trial store, computing
// nothing; ok is false when one is missing.
func sscaStoredCurves(ctx context.Context, out *runOutput, cfg *ssca.Config, data *ssca.Data, fig string) ([]ssca.Curve, bool) {
	st := &experiments.Store{Dir: out.store.Dir, Hash: out.store.Hash, ReuseOnly: true}
	curves, err := ssca.RunSpecs(ctx, cfg, data, cfg.FigureSpecs(fig), cfg.FigureRuns(fig), experiments.RunOptions{Workers: 1, Store: st})
	return curves, err == nil
}
