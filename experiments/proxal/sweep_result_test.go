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

// TestParticipationFigure: one curve per data set, n and drop_prob, its
// points the participation values with the rows' means, on a log x axis;
// nothing to draw without a participation axis.
func TestParticipationFigure(t *testing.T) {
	row := func(n int, rounds, passes, mb float64) ClassRow {
		return ClassRow{Dataset: "adult-a", N: n, Rounds1: experiments.MeanStd{Mean: rounds},
			Passes1: experiments.MeanStd{Mean: passes}, MBytes1: experiments.MeanStd{Mean: mb}}
	}
	axes := []experiments.SweepAxis{{Key: "participation", Values: []any{1.0, 0.5, 0.1}}, {Key: "drop_prob", Values: []any{0.0, 0.3}}}
	var pts []SweepPointResult
	for i, p := range experiments.Product(axes) {
		f := float64(i + 1)
		pts = append(pts, SweepPointResult{Values: p, ClassRows: []ClassRow{row(100, 10*f, 100*f, f), row(200, 20*f, 200*f, 2*f)}})
	}
	s := &SweepResult{Preset: "table1", Axes: axes, Points: pts}
	fig, ok := s.ParticipationFigure()
	if !ok || len(fig.Panels) != 3 {
		t.Fatalf("ok %v, figure %+v", ok, fig)
	}
	rounds, mb := fig.Panels[0], fig.Panels[2]
	if len(rounds.Series) != 4 {
		t.Fatalf("%d rounds curves, want 4 (n = 100, 200 × drop_prob 0, 0.3)", len(rounds.Series))
	}
	// Point order: participation 1 (drop 0, 0.3), 0.5 (...), 0.1 (...).
	got := rounds.Series[1] // n = 200, drop_prob 0
	if got.Name != "adult-a n = 200, drop_prob 0" || len(got.X) != 3 || got.X[0] != 1 || got.X[2] != 0.1 || got.Y[0] != 20 || got.Y[1] != 60 || got.Y[2] != 100 {
		t.Errorf("n = 200, drop 0 curve: %+v", got)
	}
	if got := mb.Series[2]; got.Name != "adult-a n = 100, drop_prob 0.3" || got.Y[0] != 2 || got.Y[2] != 6 || got.Color != 0 || got.Dash != "dash" {
		t.Errorf("megabytes, n = 100, drop 0.3: %+v", got)
	}
	if got := mb.Series[3]; got.Color != 1 || got.Dash != "dash" {
		t.Errorf("n = 200, drop 0.3: colour %d, dash %q; want n's colour 1 and drop_prob's dash", got.Color, got.Dash)
	}
	for _, p := range fig.Panels {
		if !p.XLog || p.YLog {
			t.Errorf("panel %q: want a log x axis only", p.Title)
		}
	}
	// Under the straggler model a fourth panel draws the simulated time.
	for i := range pts {
		for j := range pts[i].ClassRows {
			pts[i].ClassRows[j].SimWall1 = experiments.MeanStd{Mean: 1000 * float64(i+1)}
		}
	}
	fig, ok = s.ParticipationFigure()
	if !ok || len(fig.Panels) != 4 || fig.Panels[3].YLabel != "seconds" {
		t.Fatalf("with simulated times: ok %v, %d panels", ok, len(fig.Panels))
	}
	if got := fig.Panels[3].Series[1]; got.Name != "adult-a n = 200, drop_prob 0" || got.Y[0] != 1000 || got.Y[1] != 3000 || got.Y[2] != 5000 {
		t.Errorf("simulated wall time, n = 200, drop 0: %+v", got)
	}
	if _, ok := (&SweepResult{Axes: []experiments.SweepAxis{{Key: "beta", Values: []any{10.0}}}, Points: pts[:1]}).ParticipationFigure(); ok {
		t.Error("a participation figure without a participation axis")
	}
}
