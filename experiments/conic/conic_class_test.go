package conic

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/proxal"
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
	al := proxal.ALConfig{MethodConfig: experiments.MethodConfig{Beta: 300, SBar: 1e-3, Rho: 0.01, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3,
		MaxOuter: 3, MaxInner: 20, InnerTest: "paper"}, Subsolver: "newton", RhoRule: "fixed", Relax: 1}
	np := &proxal.NPConfig{TrialConfig: experiments.TrialConfig{Seed: 1, Trials: 1, RNG: "fedcon"}, Datasets: []string{"breast-cancer-wisc"},
		Clients: []int{2}, R: 0.2, W0: "ones", AdmmStart: "wk", ALConfig: al}
	f1, err := RunConicFigure1(context.Background(), np, dirs, experiments.RunOptions{Workers: 2})
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
	f2, err := RunConicFigure2(context.Background(), fair, dirs, experiments.RunOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(f2.Figure.Title, "Conic paper, Figure 2:") || len(f2.Figure.Panels) != 2 {
		t.Fatalf("figure 2: %q, %d panels", f2.Figure.Title, len(f2.Figure.Panels))
	}
	for _, p := range f2.Figure.Panels {
		if len(p.HLines) != 1 || p.HLines[0].Y != 0.01 {
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
