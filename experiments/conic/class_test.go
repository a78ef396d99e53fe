package conic

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/proxal"
	"github.com/fedcon/fedcon/solver"
)

// TestConicFigures runs both conic figures on real data with small caps
// (seconds) and checks what they add to the core figures: the title, one
// panel per dataset (Figure 1) or n (Figure 2), the threshold line at r,
// and Figure 2's colours from the conic paper's caption (disparities blue,
// loss brown).
func TestConicFigures(t *testing.T) {
	dirs := conicDataDirs(t)
	if testing.Short() {
		t.Skip("real-data figure runs skipped in -short mode")
	}
	al := proxal.ALConfig{MethodConfig: proxal.MethodConfig{Beta: 300, SBar: 1e-3, Rho: 0.01, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3,
		MaxOuter: 3, MaxInner: 20, InnerTest: solver.InnerTestPaper}, Subsolver: "newton", RhoRule: solver.RhoFixed, Relax: 1}
	np := &proxal.NPConfig{TrialConfig: experiments.TrialConfig{Seed: 1, Trials: 1, RNG: "fedcon"}, Datasets: []string{"breast-cancer-wisc"},
		Clients: []int{2}, R: 0.2, W0: "ones", ADMMStart: "wk", ALConfig: al}
	f1, err := RunFigure1(context.Background(), np, dirs, experiments.RunOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(f1.Figure.Title, "Conic paper, Figure 1:") || len(f1.Figure.Panels) != 1 ||
		len(f1.Figure.Panels[0].HLines) != 1 || f1.Figure.Panels[0].HLines[0].Y != 0.2 {
		t.Fatalf("figure 1: %q, %+v", f1.Figure.Title, f1.Figure.Panels)
	}
	al.Beta, al.Rho = 10, 1e8
	fair := &proxal.FairConfig{TrialConfig: experiments.TrialConfig{Seed: 1, Trials: 1, RNG: "fedcon"}, Dataset: "adult-b", Clients: []int{2, 3},
		R: 0.01, W0: "zeros", ALConfig: al}
	f2, err := RunFigure2(context.Background(), fair, dirs, experiments.RunOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Two client counts: the loss panels above, the disparity panels below.
	if !strings.HasPrefix(f2.Figure.Title, "Conic paper, Figure 2:") || len(f2.Figure.Panels) != 4 || f2.Figure.Cols != 2 {
		t.Fatalf("figure 2: %q, %d panels in %d columns", f2.Figure.Title, len(f2.Figure.Panels), f2.Figure.Cols)
	}
	for i, p := range f2.Figure.Panels {
		if i >= 2 && (len(p.HLines) != 1 || p.HLines[0].Y != 0.01) {
			t.Errorf("%s: threshold %+v, want r = 0.01", p.Title, p.HLines)
		}
		for _, s := range p.Series {
			if want := map[bool]int{true: 0, false: 1}[strings.Contains(s.Name, "disparity")]; s.Color != want {
				t.Errorf("%s: %q has colour %d, want %d", p.Title, s.Name, s.Color, want)
			}
		}
	}
}

// conicDataDirs is FEDCON_DATA_DIR; the test is skipped without it.
func conicDataDirs(t *testing.T) []string {
	t.Helper()
	dir := os.Getenv("FEDCON_DATA_DIR")
	if dir == "" {
		t.Skip("FEDCON_DATA_DIR not set: real-data test skipped")
	}
	return []string{dir}
}

// Figure 2 draws the loss and the disparities on separate axes, one column
// per n: on one axis r = 0.01 merges with zero beside a loss of 0.4.
func TestSplitLossDisparity(t *testing.T) {
	series := func(name string, y float64) experiments.Series {
		return experiments.Series{Name: name, X: []float64{1, 2}, Y: []float64{y, y}}
	}
	var f experiments.Figure
	for _, n := range []int{5, 10} {
		f.Panels = append(f.Panels, experiments.Panel{Title: fmt.Sprintf("n = %d", n), YLabel: "loss / disparity",
			Series: []experiments.Series{series("objective (mean loss)", 0.4), series("local disparity", 0.01), series("global disparity (server)", 0.009)},
			HLines: []experiments.HLine{{Name: "threshold r = 0.01", Y: 0.01}}})
	}
	g := splitLossDisparity(f)
	if g.Cols != 2 || len(g.Panels) != 4 {
		t.Fatalf("cols %d, %d panels; want 2 columns of 2", g.Cols, len(g.Panels))
	}
	for i, pn := range g.Panels {
		top := i < 2
		for _, s := range pn.Series {
			if isLoss := s.Name == "objective (mean loss)"; isLoss != top {
				t.Errorf("panel %d (%s): series %q in the wrong row", i, pn.Title, s.Name)
			}
		}
		if top == (len(pn.HLines) > 0) {
			t.Errorf("panel %d (%s): %d threshold lines", i, pn.Title, len(pn.HLines))
		}
	}
	if g.Panels[2].Title != "n = 5: disparities" || len(g.Panels[2].Series) != 2 {
		t.Errorf("bottom-left panel %q with %d series", g.Panels[2].Title, len(g.Panels[2].Series))
	}
	if len(f.Panels[0].Series) != 3 {
		t.Error("the input figure was modified")
	}
}
