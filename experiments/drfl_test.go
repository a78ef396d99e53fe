package experiments

import (
	"context"
	"math"
	"os"
	"testing"

	"github.com/fedcon/fedcon/datasets"
	sd "github.com/fedcon/fedcon/solver/drfl"
)

// heartOrSkip loads heart from the shared data folder, or skips.
func heartOrSkip(t testing.TB) *datasets.Dataset {
	t.Helper()
	dirs := datasets.SearchPath("", os.Getenv("FEDCON_DATA_DIR"))
	dirs = append(dirs, "../../shared/datasets")
	d, err := datasets.Load("heart", dirs)
	if err != nil {
		t.Skipf("heart not available: %v", err)
	}
	return d
}

func TestDRFLSplitHeart(t *testing.T) {
	d := heartOrSkip(t)
	sp, err := NewDRFLSplit(d, DefaultDRFLData("heart"), 1)
	if err != nil {
		t.Fatal(err)
	}
	var tr int
	for _, c := range sp.Train {
		tr += len(c.X)
	}
	// 270 rows: 150 absent, 120 present; 60 % of each class.
	if tr != 90+72 || len(sp.TestX) != 270-162 || len(sp.Features) != 13 {
		t.Fatalf("train %d test %d features %d", tr, len(sp.TestX), len(sp.Features))
	}
	for s, c := range sp.Train[1:] {
		for _, r := range c.X {
			for _, v := range r {
				if v < -1-1e-12 || v > 1+1e-12 {
					t.Fatalf("client %d feature %v outside [−1, 1]", s+2, v)
				}
			}
		}
	}
}

func TestDRFLModelsHeart(t *testing.T) {
	if testing.Short() {
		t.Skip("solves heart five times")
	}
	d := heartOrSkip(t)
	sp, err := NewDRFLSplit(d, DefaultDRFLData("heart"), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range DRFLModels() {
		p := DRFLParams{Model: m, Rho: 0.01, Kappa: 0.5, Theta: 0.01, P: 1}
		r, err := RunDRFL(context.Background(), sp, p, sp.TestX, &sd.Settings{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-8s %s rounds %d obj %.4f worst %.4f train %.3f test %.3f worst client %.3f qp %d %.1fs", m, r.Status, r.Rounds, r.Objective, r.WorstCase, r.TrainAccuracy, r.TestAccuracy, r.WorstClient, r.QPIterations, r.Seconds)
		if math.IsNaN(r.TestAccuracy) || r.TestAccuracy < 0.6 {
			t.Errorf("%s: test accuracy %v", m, r.TestAccuracy)
		}
	}
}
