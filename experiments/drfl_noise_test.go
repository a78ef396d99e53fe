package experiments

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/datasets"
	"gonum.org/v1/gonum/mat"
)

// synthDataset is a small separable-with-noise classification dataset
// with an intercept column, as datasets.Load returns them.
func synthDataset(rows, n int) *datasets.Dataset {
	rng := rand.New(rand.NewPCG(8, 9))
	X := mat.NewDense(rows, n+1, nil)
	y := make([]float64, rows)
	names := make([]string, n+1)
	for j := range n {
		names[j] = "x"
	}
	names[n] = "intercept"
	for i := range rows {
		var m float64
		for j := range n {
			v := rng.NormFloat64()
			X.Set(i, j, v)
			m += v * float64(j+1)
		}
		X.Set(i, n, 1)
		if m+0.5*rng.NormFloat64() > 0 {
			y[i] = 1
		}
	}
	return &datasets.Dataset{Name: "synth", X: X, Y: y, FeatureNames: names}
}

func TestRunDRFLNoise(t *testing.T) {
	fig := DRFLNoiseFigure{Name: "test", Dataset: "synth", Imbalanced: true, FixedSD: 0.3, FixedMean: 0.1, Ratio: 1}
	cfg := DefaultDRFLNoise(fig, true)
	cfg.Params = []DRFLParams{{Model: DRFLStandard, P: 1}, {Model: DRFLAFL, Theta: 0.1, P: 1}}
	calls := 0
	res, err := RunDRFLNoise(context.Background(), synthDataset(60, 2), cfg, func(int, string, *DRFLRun) { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2*2 || len(res.Figure.Panels) != 3 || len(res.Accuracy[1][2][5]) != 2 {
		t.Fatalf("calls %d, panels %d, shape %d", calls, len(res.Figure.Panels), len(res.Accuracy[1][2][5]))
	}
	for m := range res.Accuracy {
		for k := range 3 {
			for l := range cfg.Levels {
				for _, a := range res.Accuracy[m][k][l] {
					if a < 0 || a > 1 {
						t.Fatalf("accuracy %v", a)
					}
				}
			}
		}
	}
	if got := strings.Count(res.CSV(), "\n"); got != 1+2*3*len(cfg.Levels) {
		t.Errorf("CSV has %d lines", got)
	}
	cfg.Repetitions = 0
	if _, err := RunDRFLNoise(context.Background(), synthDataset(60, 2), cfg, nil); err == nil {
		t.Error("0 repetitions accepted")
	}
}
