package drfl

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/problems/wdro"
	"github.com/fedcon/fedcon/solver/adlpmm"
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
	fig := NoiseFigure{Name: "test", Dataset: "synth", Imbalanced: true, FixedSD: 0.3, FixedMean: 0.1, Ratio: 1}
	cfg := DefaultConfig().Noise(fig, Params{P: 1}, true, false)
	cfg.Params = []Params{{Model: ModelStandard, P: 1}, {Model: ModelAFL, Theta: 0.1, P: 1}}
	calls := 0
	store := &experiments.Store{Dir: t.TempDir(), Hash: cfg.TrialHash()}
	res, err := RunNoise(context.Background(), synthDataset(60, 2), cfg, store, func(Progress) { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2*2 || len(res.Figure.Panels) != 3 || len(res.Score[1][2][5]) != 2 {
		t.Fatalf("calls %d, panels %d, shape %d", calls, len(res.Figure.Panels), len(res.Score[1][2][5]))
	}
	for m := range res.Score {
		for k := range 3 {
			for l := range cfg.Levels {
				for _, a := range res.Score[m][k][l] {
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
	// Per-client scores: the worst is their minimum, the pooled accuracy
	// a row-weighted mean of them.
	for m := range res.ClientScore {
		for k := range 3 {
			for l := range cfg.Levels {
				for r, cs := range res.ClientScore[m][k][l] {
					if len(cs) != 3 || slices.Min(cs) != res.WorstClient[m][k][l][r] ||
						res.Score[m][k][l][r] < slices.Min(cs)-1e-12 || res.Score[m][k][l][r] > slices.Max(cs)+1e-12 {
						t.Fatalf("model %d protocol %d level %d rep %d: clients %v, worst %v, pooled %v", m, k, l, r, cs,
							res.WorstClient[m][k][l][r], res.Score[m][k][l][r])
					}
				}
			}
		}
	}
	// A rerun reuses both stored repetitions: no fit, the same numbers.
	again, err := RunNoise(context.Background(), synthDataset(60, 2), cfg, store, func(Progress) { calls++ })
	if err != nil || calls != 4 || again.Score[1][2][5][1] != res.Score[1][2][5][1] || store.Counts().Reused != 2 {
		t.Fatalf("rerun: %v, %d fits, counts %+v", err, calls-4, store.Counts())
	}
	// Repetitions stored before per-client scores were kept get them
	// recomputed from their fits (identical), with no fit; a stored score
	// that the recomputation contradicts is an error.
	for _, doctor := range []bool{false, true} {
		for _, key := range []string{"rep-001", "rep-002"} {
			var st struct {
				Schema     int             `json:"schema"`
				ConfigHash string          `json:"config_hash"`
				Version    string          `json:"fedcon_version"`
				Key        string          `json:"key"`
				Seed       uint64          `json:"seed"`
				Trial      json.RawMessage `json:"trial"`
			}
			b, err := os.ReadFile(store.Path(key))
			if err != nil || json.Unmarshal(b, &st) != nil {
				t.Fatal(err)
			}
			var rep drflRep
			if err := json.Unmarshal(st.Trial, &rep); err != nil {
				t.Fatal(err)
			}
			rep.Clients = nil
			if doctor && key == "rep-002" {
				rep.Acc[1][0][3] += 0.01
			}
			if st.Trial, err = json.Marshal(rep); err != nil {
				t.Fatal(err)
			}
			if b, err = json.Marshal(st); err != nil || os.WriteFile(store.Path(key), b, 0o644) != nil {
				t.Fatal(err)
			}
		}
		old, err := RunNoise(context.Background(), synthDataset(60, 2), cfg, store, func(Progress) { calls++ })
		if doctor {
			if err == nil || !strings.Contains(err.Error(), "differ from the stored ones") {
				t.Fatalf("doctored stored score: %v", err)
			}
			continue
		}
		if err != nil || calls != 4 || !reflect.DeepEqual(old.ClientScore, res.ClientScore) || !reflect.DeepEqual(old.Score, res.Score) {
			t.Fatalf("old repetitions: %v, %d fits, client scores equal %v", err, calls-4, reflect.DeepEqual(old.ClientScore, res.ClientScore))
		}
	}
	// With cross-validation over a 2-value θ grid for AFL.
	cfg.CV, cfg.Folds = &Grid{Theta: []float64{0.01, 0.3}}, 3
	cfg.Repetitions, cfg.Figure.Imbalanced, cfg.Data.Imbalance = 1, false, nil
	res, err = RunNoise(context.Background(), synthDataset(60, 2), cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cv := res.CVs[1][0]; cv.Fits != 2*3 || len(cv.Scores) != 2 || (cv.Best.Theta != 0.01 && cv.Best.Theta != 0.3) || res.Runs[1][0].Params.Theta != cv.Best.Theta {
		t.Fatalf("cv %+v, run params %+v", cv, res.Runs[1][0].Params)
	}
	if cv := res.CVs[0][0]; cv.Fits != 0 {
		t.Errorf("standard FL has nothing to tune, yet %d fits", cv.Fits)
	}
	cfg.Folds = 40
	if _, err := RunNoise(context.Background(), synthDataset(60, 2), cfg, nil, nil); err == nil || !strings.Contains(err.Error(), "fewer than the folds") {
		t.Errorf("40 folds: %v", err)
	}
	cfg.Repetitions = 0
	if _, err := RunNoise(context.Background(), synthDataset(60, 2), cfg, nil, nil); err == nil {
		t.Error("0 repetitions accepted")
	}
}

func TestDRFLGrid(t *testing.T) {
	g := PaperGrid()
	if len(g.Rho) != 15 || len(g.Kappa) != 10 || len(g.Theta) != 6 {
		t.Fatalf("paper grid %d × %d × %d", len(g.Rho), len(g.Kappa), len(g.Theta))
	}
	q := g.Thin(3)
	if len(q.Rho) != 5 || len(q.Kappa) != 4 || len(q.Theta) != 2 {
		t.Fatalf("thinned %d × %d × %d", len(q.Rho), len(q.Kappa), len(q.Theta))
	}
	base := Params{Rho: 1, Kappa: 1, Theta: 1, P: 1}
	for m, want := range map[string]int{ModelDRFL: 5 * 4 * 2, ModelAFL: 2, ModelWAFL: 5 * 4, ModelDRFA: 1, ModelStandard: 1} {
		base.Model = m
		if got := len(q.candidates(base)); got != want {
			t.Errorf("%s: %d candidates, want %d", m, got, want)
		}
	}
}

// TestCrossValidate: scores do not depend on the workers (folds run
// concurrently), p = 1 fits are central LPs (with Algorithm 1 as the
// fallback) and p = 2 fits Algorithm 1, and Best is the candidate with the
// best score.
func TestCrossValidate(t *testing.T) {
	sp, err := NewSplit(synthDataset(90, 2), DataConfig{TrainShare: 0.6, Clients: 3}, 3)
	if err != nil {
		t.Fatal(err)
	}
	grid := Grid{Rho: []float64{1e-3, 0.1}, Kappa: []float64{0.5}, Theta: []float64{0.01, 0.5}}
	norms := []float64{1, 2}
	if testing.Short() {
		norms = norms[:1] // p = 2 runs Algorithm 1 24 times
	}
	for _, p := range norms {
		base := Params{Model: ModelDRFL, Kappa: 0.5, P: p}
		var first *CV
		for _, w := range []int{1, 3} {
			cv, err := CrossValidate(context.Background(), sp.Train, base, grid, 3, 7, &adlpmm.Settings{Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = cv
				continue
			}
			for i := range cv.Scores {
				if cv.Scores[i] != first.Scores[i] {
					t.Fatalf("p %v: scores %v with 3 workers, %v with 1", p, cv.Scores, first.Scores)
				}
			}
		}
		// p = 1: central LPs, but for a fit on which the interior point
		// stalls (Algorithm 1 then); p = 2: Algorithm 1 only.
		if first.Fits != 4*3 || (p == 1) != (first.Central > first.Fits/2) || p == 2 && first.Central != 0 {
			t.Errorf("p %v: %d fits, %d central", p, first.Fits, first.Central)
		}
		bi := 0
		for i, s := range first.Scores {
			if s > first.Scores[bi] {
				bi = i
			}
		}
		if b := first.Candidates[bi]; b.Rho != first.Best.Rho || b.Theta != first.Best.Theta {
			t.Errorf("p %v: best %+v, scores %v", p, first.Best, first.Scores)
		}
	}
}

// TestDRFLNoiseTrialHash: every setting that changes a repetition's
// numbers changes the hash its trial files are stored under (the number
// of repetitions and the workers do not).
func TestDRFLNoiseTrialHash(t *testing.T) {
	c := DefaultConfig()
	base := Params{Model: ModelDRFL, Rho: 0.01, Kappa: 0.5, Theta: 0.01, P: 1}
	mk := func() NoiseConfig { return c.Noise(c.FigureRows("drfl-figure5")[0], base, false, true) }
	h0 := mk().TrialHash()
	changed := []struct {
		name string
		edit func(n *NoiseConfig)
	}{
		{"p", func(n *NoiseConfig) { n.Params[0].P = math.Inf(1) }},
		{"support", func(n *NoiseConfig) { n.Params[0].Support = wdro.Free }},
		{"rho", func(n *NoiseConfig) { n.Params[0].Rho = 0.1 }},
		{"qhat", func(n *NoiseConfig) { n.Params[0].QHat = []float64{0.2, 0.3, 0.5} }},
		{"epsilon", func(n *NoiseConfig) { n.Params[0].Epsilon = 2 }},
		{"c", func(n *NoiseConfig) { n.C = 2 }},
		{"tol", func(n *NoiseConfig) { n.Tol = 1e-5 }},
		{"max_rounds", func(n *NoiseConfig) { n.MaxRounds = 10 }},
		{"train_share", func(n *NoiseConfig) { n.Data.TrainShare = 0.7 }},
		{"clients", func(n *NoiseConfig) { n.Data.Clients = 4 }},
		{"train noise", func(n *NoiseConfig) { n.Data.NoiseSD = 1 }},
		{"imbalance", func(n *NoiseConfig) { n.Data.Imbalance[0] = 0.4 }},
		{"protocol", func(n *NoiseConfig) { n.Figure.Ratio = 1 }},
		{"levels", func(n *NoiseConfig) { n.Levels = n.Levels[:3] }},
		{"seed", func(n *NoiseConfig) { n.Seed = 2 }},
		{"grid", func(n *NoiseConfig) { n.CV = &Grid{Rho: []float64{1}} }},
		{"folds", func(n *NoiseConfig) { n.Folds = 3 }},
	}
	for _, tc := range changed {
		n := mk()
		tc.edit(&n)
		if n.TrialHash() == h0 {
			t.Errorf("%s: same hash", tc.name)
		}
	}
	n := mk()
	n.Repetitions, n.Workers = 3, 7
	if n.TrialHash() != h0 {
		t.Error("repetitions or workers changed the hash")
	}
}

// TestRunDRFLNoiseWorkers: a cross-validated noise figure is the same for
// any number of workers, bit for bit, but for the wall times.
func TestRunDRFLNoiseWorkers(t *testing.T) {
	fig := NoiseFigure{Name: "test", Dataset: "synth", FixedSD: 0.3, FixedMean: 0.1, Ratio: 1}
	cfg := DefaultConfig().Noise(fig, Params{Rho: 0.01, Kappa: 0.5, Theta: 0.01, P: 1}, true, false)
	cfg.Params = []Params{{Model: ModelDRFL, Rho: 0.01, Kappa: 0.5, Theta: 0.01, P: 1}, {Model: ModelAFL, Theta: 0.1, P: 1}, {Model: ModelWAFL, Rho: 0.01, Kappa: 0.5, P: 1}}
	cfg.CV, cfg.Folds, cfg.Repetitions = &Grid{Rho: []float64{1e-3, 0.1}, Kappa: []float64{0.5}, Theta: []float64{0.01, 1}}, 3, 1
	var ref []byte
	for _, w := range []int{1, 3} {
		cfg.Workers = w
		res, err := RunNoise(context.Background(), synthDataset(60, 2), cfg, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, runs := range res.Runs {
			for _, r := range runs {
				r.Seconds = 0
			}
		}
		js, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = js
		} else if string(js) != string(ref) {
			t.Fatalf("workers %d changed the figure's JSON", w)
		}
	}
}
