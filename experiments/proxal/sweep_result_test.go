package proxal

import (
	"testing"

	"github.com/fedcon/fedcon/experiments"
)

// TestScalingFigure: one curve per swept point and data set with at least
// two client counts, its points the rows' means, on log-log axes; nothing
// to draw for a QP sweep or one n per point.
func TestScalingFigure(t *testing.T) {
	row := func(n int, rounds, passes, wall float64) ClassRow {
		return ClassRow{Dataset: "adult-a", N: n, Rounds1: experiments.MeanStd{Mean: rounds},
			Passes1: experiments.MeanStd{Mean: passes}, PassesC: experiments.MeanStd{Mean: passes / 4},
			Wall1: experiments.MeanStd{Mean: wall}, WallC: experiments.MeanStd{Mean: wall / 10}}
	}
	axes := []experiments.SweepAxis{{Key: "eps1=eps2", Values: []any{1e-3, 1e-6}}}
	s := &SweepResult{Preset: "table1", Axes: axes, Points: []SweepPointResult{
		{Values: experiments.SweepPoint{1e-3}, ClassRows: []ClassRow{row(1, 90, 300, 1), row(100, 190, 5e4, 15)}},
		{Values: experiments.SweepPoint{1e-6}, ClassRows: []ClassRow{row(1, 100, 330, 1.2), row(100, 210, 5.5e4, 17)}},
	}}
	fig, ok := s.ScalingFigure()
	if !ok || len(fig.Panels) != 3 {
		t.Fatalf("ok %v, figure %+v", ok, fig)
	}
	rounds, passes := fig.Panels[0], fig.Panels[1]
	if len(rounds.Series) != 2 || len(passes.Series) != 4 {
		t.Fatalf("series: rounds %d (want 2), passes %d (want 4)", len(rounds.Series), len(passes.Series))
	}
	if got := rounds.Series[1]; got.Name != "A1 adult-a, eps1=eps2 1e-06" || got.X[1] != 100 || got.Y[1] != 210 {
		t.Errorf("second rounds curve: %+v", got)
	}
	if got := passes.Series[1]; got.Dash != "dash" || got.Y[0] != 75 {
		t.Errorf("cProx-AL passes curve: %+v", got)
	}
	for _, p := range fig.Panels {
		if !p.XLog || !p.YLog {
			t.Errorf("panel %q not log-log", p.Title)
		}
	}
	single := &SweepResult{Axes: axes, Points: []SweepPointResult{{Values: experiments.SweepPoint{1e-3}, ClassRows: []ClassRow{row(5, 1, 1, 1)}}}}
	if _, ok := single.ScalingFigure(); ok {
		t.Error("a figure from one n per point")
	}
	if _, ok := (&SweepResult{Axes: axes, Points: []SweepPointResult{{Values: experiments.SweepPoint{1e-3}, QPRows: []QPRow{{}}}}}).ScalingFigure(); ok {
		t.Error("a scaling figure from a QP sweep")
	}
}
