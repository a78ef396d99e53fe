package drfl

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/problems/wdro"
	"github.com/fedcon/fedcon/solver/adlpmm"
)

// TestWorstOverQAgrees: the gate's max over Q (greedy for p = 1, ∞; the
// KKT points of the sphere's faces for p = 2) equals the value at
// solver/adlpmm's WorstWeights on random clients, centres and radii, within
// 1e-12 (p = 2: WorstWeights bisects on τ, to rounding).
func TestWorstOverQAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for it := range 3000 {
		S := 1 + it%4
		f, qhat := make([]float64, S), make([]float64, S)
		var sum float64
		for k := range S {
			f[k], qhat[k] = rng.Float64(), 0.1+rng.Float64()
			sum += qhat[k]
		}
		for k := range qhat {
			qhat[k] /= sum
		}
		theta := []float64{0, 0.01, 0.1, 0.5, 2}[it%5]
		for _, p := range []float64{1, 2, math.Inf(1)} {
			qw := adlpmm.WorstWeights(f, qhat, theta, p)
			var want float64
			for k := range qw {
				want += qw[k] * f[k]
			}
			if got := worstOverQ(f, qhat, theta, p); math.Abs(got-want) > 1e-12 {
				t.Fatalf("f %v, q̂ %v, θ %g, p %g: %.17g, WorstWeights' %.17g", f, qhat, theta, p, got, want)
			}
		}
	}
}

// TestClientLossAgrees: the gate's plain f_s equals problems/wdro's
// WorstCaseLoss on heart's clients at random weights, for the hinge loss
// on the box and on R (a golden-section search there, a ternary search
// here) and the epigraph models, within drflAgree; abalone's Huber losses
// (closed forms) within 1e-13.
func TestClientLossAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		data   string
		models []wdro.Model
		tol    float64
	}{
		{"heart", []wdro.Model{{Kappa: 0.5}, {Kappa: 2, Support: wdro.Free}, {Epigraph: true}}, drflAgree},
		{"abalone", []wdro.Model{{Loss: wdro.LossHuber, Kappa: 0.5}, {Loss: wdro.LossHuber, Epigraph: true}}, 1e-13},
	} {
		sp, err := NewSplit(drflDataOrSkip(t, c.data), DefaultData(c.data), 1)
		if err != nil {
			t.Fatal(err)
		}
		for it := range 20 {
			v := make([]float64, len(sp.Features)+1)
			for j := range v {
				v[j] = rng.NormFloat64() * 0.3
			}
			for _, m := range c.models {
				cl := sp.Train[it%len(sp.Train)]
				cl.Rho = []float64{0, 0.01, 0.3}[it%3]
				want, _ := wdro.WorstCaseLoss(cl, m, v)
				if got := clientLoss(cl, m, v); math.Abs(got-want) > c.tol*(1+math.Abs(want)) {
					t.Errorf("%s %+v ρ %g: f_s %.15g, WorstCaseLoss %.15g", c.data, m, cl.Rho, got, want)
				}
			}
		}
	}
}

// TestGateDRFLNoise: on a real noise figure (heart, one repetition, four
// models covering p = 1, 2, ∞, both supports and the epigraph losses) the
// gate's recomputation at the stored weights agrees with every stored
// objective and score; an edited weight, objective or score fails its
// row (a weight moved too little to flip a prediction, the objective's
// alone), and so does a data set the gate cannot find.
func TestGateDRFLNoise(t *testing.T) {
	dirs := append(datasets.SearchPath("", os.Getenv("FEDCON_DATA_DIR")), "../../shared/datasets")
	if _, err := datasets.Load("heart", dirs); err != nil {
		t.Skipf("heart not available: %v", err)
	}
	fig := NoiseFigure{Name: "drfl-figure2", Dataset: "heart", FixedSD: 0.5, Ratio: 1}
	cfg := DefaultConfig().Noise(fig, Params{P: 1}, true, false)
	cfg.Repetitions = 1
	cfg.Levels = cfg.Levels[:2]
	cfg.Params = []Params{
		{Model: ModelDRFL, Rho: 0.01, Kappa: 0.5, Theta: 0.01, P: 1},
		{Model: ModelDRFL, Rho: 0.01, Kappa: 0.5, Theta: 0.05, P: math.Inf(1), Support: wdro.Free},
		{Model: ModelAFL, Theta: 0.1, P: 2},
		{Model: ModelWAFL, Rho: 0.01, Kappa: 0.5, P: 1},
	}
	d, _ := datasets.Load("heart", dirs)
	res, err := RunNoise(context.Background(), d, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	honest, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		edit   func(r *NoiseResult)
		dirs   []string
		failed []string
	}{
		{"honest", func(*NoiseResult) {}, dirs, nil},
		// 1e-3 flips no prediction: only the objective sees it.
		{"weight edited", func(r *NoiseResult) { r.Runs[0][0].V[0] += 1e-3 }, dirs, []string{"objective recomputed"}},
		{"intercept moved", func(r *NoiseResult) { r.Runs[1][0].V[len(r.Runs[1][0].V)-1] += 1 }, dirs, []string{"objective recomputed", "scores recomputed"}},
		{"objective edited", func(r *NoiseResult) { r.Runs[2][0].WorstCase *= 1 + 1e-7 }, dirs, []string{"objective recomputed"}},
		{"test score edited", func(r *NoiseResult) { r.Runs[1][0].Test += 0.01 }, dirs, []string{"scores recomputed"}},
		{"noisy score edited", func(r *NoiseResult) { r.Score[3][2][1][0] += 0.01 }, dirs, []string{"scores recomputed"}},
		{"data not found", func(*NoiseResult) {}, []string{t.TempDir()}, []string{"objective recomputed", "scores recomputed"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var r NoiseResult
			if err := json.Unmarshal(honest, &r); err != nil {
				t.Fatal(err)
			}
			c.edit(&r)
			b, err := json.Marshal(&r)
			if err != nil {
				t.Fatal(err)
			}
			rows := genericDRFL(experiments.VerifyInput{Name: "drfl-figure2", Result: b, DataDirs: c.dirs})
			if len(rows) != 2 {
				t.Fatalf("%d rows: %+v", len(rows), rows)
			}
			var failed []string
			for _, row := range rows {
				if !row.Pass {
					failed = append(failed, row.Rule)
				}
			}
			if strings.Join(failed, ",") != strings.Join(c.failed, ",") {
				t.Errorf("failed %v, want %v (%+v)", failed, c.failed, rows)
			}
		})
	}
}
