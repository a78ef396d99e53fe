package drfl

import (
	"context"
	"math"
	"os"
	"testing"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/solver/adlpmm"
)

// heartOrSkip loads heart from the shared data folder, or skips.
func heartOrSkip(t testing.TB) *datasets.Dataset { return drflDataOrSkip(t, "heart") }

// drflDataOrSkip loads a dataset from the shared data folder, or skips.
func drflDataOrSkip(t testing.TB, name string) *datasets.Dataset {
	t.Helper()
	dirs := datasets.SearchPath("", os.Getenv("FEDCON_DATA_DIR"))
	dirs = append(dirs, "../../shared/datasets")
	d, err := datasets.Load(name, dirs)
	if err != nil {
		t.Skipf("%s not available: %v", name, err)
	}
	return d
}

// TestDRFLAbaloneHuber: abalone splits uniformly with the real target, the
// hinge loss and class imbalance are refused, and the five Huber models
// converge with a test MSE at most 0.8 of the constant predictor's (a
// linear fit explains about half of the rings' variance) and a worst
// client no better than the pooled MSE.
func TestDRFLAbaloneHuber(t *testing.T) {
	d := drflDataOrSkip(t, "abalone")
	if _, err := NewSplit(d, DataConfig{TrainShare: 0.6, Imbalance: []float64{0.5, 0.5, 1}}, 1); err == nil {
		t.Error("imbalanced regression split: no error")
	}
	sp, err := NewSplit(d, DefaultData("abalone"), 1)
	if err != nil {
		t.Fatal(err)
	}
	var tr int
	var ty []float64
	for _, c := range sp.Train {
		tr += len(c.X)
		ty = append(ty, c.Y...)
	}
	if !sp.Regression || tr != 2506 || len(sp.TestX) != 4177-2506 {
		t.Fatalf("regression %v, train %d, test %d", sp.Regression, tr, len(sp.TestX))
	}
	if _, err := Run(context.Background(), sp, Params{Model: ModelDRFL, Rho: 0.01, Kappa: 0.5, P: 1}, sp.TestX, nil); err == nil {
		t.Error("hinge loss on abalone: no error")
	}
	var mean float64
	for _, y := range ty {
		mean += y / float64(len(ty))
	}
	constant := make([]float64, len(sp.Features)+1)
	constant[len(constant)-1] = mean
	base := mseOf(sp, constant)
	models := Models()
	if testing.Short() {
		models = []string{ModelDRFL}
	}
	for _, m := range models {
		p := Params{Model: m, Rho: 0.01, Kappa: 0.5, Theta: 0.01, P: 1, Loss: "huber"}
		r, err := Run(context.Background(), sp, p, sp.TestX, &adlpmm.Settings{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-8s %s rounds %d obj %.4f worst %.4f train MSE %.3f test MSE %.3f worst client %.3f inner %d %.1fs", m, r.Status, r.Rounds, r.Objective, r.WorstCase, r.Train, r.Test, r.WorstClient, r.QPIterations, r.Seconds)
		if r.Status != "Converged" || r.Metric != "mse" || math.IsNaN(r.Test) || r.Test > 0.8*base || r.WorstClient < r.Test {
			t.Errorf("%s: %s, test MSE %v (constant predictor %v), worst client %v", m, r.Status, r.Test, base, r.WorstClient)
		}
	}
}

// mseOf is the test MSE of v on the split.
func mseOf(sp *Split, v []float64) float64 {
	return Params{Loss: "huber"}.Metric().Eval(sp.TestX, sp.TestY, v)
}

func TestDRFLSplitHeart(t *testing.T) {
	d := heartOrSkip(t)
	sp, err := NewSplit(d, DefaultData("heart"), 1)
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
	sp, err := NewSplit(d, DefaultData("heart"), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range Models() {
		p := Params{Model: m, Rho: 0.01, Kappa: 0.5, Theta: 0.01, P: 1}
		r, err := Run(context.Background(), sp, p, sp.TestX, &adlpmm.Settings{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-8s %s rounds %d obj %.4f worst %.4f train %.3f test %.3f worst client %.3f qp %d %.1fs", m, r.Status, r.Rounds, r.Objective, r.WorstCase, r.Train, r.Test, r.WorstClient, r.QPIterations, r.Seconds)
		if math.IsNaN(r.Test) || r.Test < 0.6 {
			t.Errorf("%s: test accuracy %v", m, r.Test)
		}
	}
}
