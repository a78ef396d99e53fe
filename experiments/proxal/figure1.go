package proxal

import (
	"context"
	"fmt"
	"strings"

	"github.com/fedcon/fedcon/experiments"
)

// Figure1Result is Figure 1: one trial per dataset with n clients.
type Figure1Result struct {
	Info   *experiments.RunInfo `json:"run"`
	Figure experiments.Figure   `json:"figure"`
	Trials []ClassTrial         `json:"trials"`
}

// RunFigure1 runs one trial of Algorithm 1 (and cProx-AL, for the record)
// per dataset of cfg with cfg.Clients[0] clients and returns, per outer
// iteration, the mean and min-max over clients of the class-0 and class-1
// losses, with the threshold r.
func RunFigure1(ctx context.Context, cfg *NPConfig, dirs []string, opt experiments.RunOptions) (*Figure1Result, error) {
	c := *cfg
	c.Trials = 1
	c.Clients = cfg.Clients[:1]
	res, err := runNP(ctx, &c, dirs, opt, true)
	if err != nil {
		return nil, err
	}
	out := &Figure1Result{Trials: res.Trials, Figure: experiments.Figure{
		Title: fmt.Sprintf("Figure 1: Algorithm 1 on Neyman-Pearson classification, n = %d, %s (one trial)", c.Clients[0], c.rhoLabel()),
	}}
	out.Figure.Caption = experiments.BandCaption(c.Clients[0], "clients") + " One trial per data set; dashed: the threshold r."
	for _, t := range res.Trials {
		var l0, l1 [][]float64
		for _, tp := range t.Alg1.Trace {
			l0 = append(l0, tp.Loss0)
			l1 = append(l1, tp.Loss1)
		}
		out.Figure.Panels = append(out.Figure.Panels, experiments.Panel{
			Title: t.Dataset, XLabel: "outer iteration", YLabel: "loss",
			Series: []experiments.Series{
				experiments.BandSeries("class-0 loss (objective)", 0, l0),
				experiments.BandSeries("class-1 loss (constraint)", 1, l1),
			},
			HLines: []experiments.HLine{{Name: fmt.Sprintf("threshold r = %g", c.R), Y: c.R}},
		})
		if len(t.Alg1.Trace) > t.Alg1.Stats.OuterIterations && !strings.Contains(out.Figure.Caption, polishedNote) {
			out.Figure.Caption += " " + polishedNote
		}
	}
	return out, nil
}
