package drfl

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/problems/wdro"
	"github.com/fedcon/fedcon/solver/adlpmm"
)

// TestDRFLPreset: configs/drfl/drfl.yaml holds the values the DRFL code
// used before it was a preset (so results are unchanged), and the
// constants of the lower layers, which cannot read it, equal it.
func TestDRFLPreset(t *testing.T) {
	c := DefaultConfig()
	cases := []struct {
		name      string
		got, want any
	}{
		{"c", c.C, adlpmm.DefaultC},
		{"tol", c.Tol, adlpmm.DefaultTol},
		{"max_rounds", c.MaxRounds, adlpmm.DefaultMaxRounds},
		{"epsilon", c.Epsilon, wdro.DefaultHuberEpsilon},
		{"p, qhat, support", []any{c.P, c.QHat, c.Support}, []any{Norm(1), "size", wdro.Box}},
		{"rho, kappa, theta, seed", []any{c.Rho, c.Kappa, c.Theta, c.Seed}, []any{"0.01", 0.5, 0.01, uint64(1)}},
		{"heart split", c.Data("heart", false), DataConfig{TrainShare: 0.6, Clients: 3, NoiseSD: 0.5}},
		{"abalone split", c.Data("abalone", false), DataConfig{TrainShare: 0.6, Clients: 3, NoiseSD: 0.5}},
		{"breast cancer split", c.Data("breast-cancer-wisc", true), DataConfig{TrainShare: 0.6, Clients: 3, NoiseMean: 0.5, NoiseSD: 0.5, Imbalance: []float64{0.5, 0.5, 1}}},
		{"other datasets' split", DefaultData("adult-a"), DataConfig{TrainShare: 0.6, Clients: 3, NoiseSD: 0.5}},
		{"figure2", c.FigureRows("drfl-figure2"), []NoiseFigure{
			{Name: "drfl-figure2", Dataset: "heart", FixedSD: 0.5, FixedMean: 0, Ratio: 1},
			{Name: "drfl-figure2", Dataset: "abalone", FixedSD: 0.5, FixedMean: 0, Ratio: 1}}},
		{"figure3", c.FigureRows("drfl-figure3"), []NoiseFigure{{Name: "drfl-figure3", Dataset: "breast-cancer-wisc", FixedSD: 2, FixedMean: 0, Ratio: 2}}},
		{"figure4", c.FigureRows("drfl-figure4"), []NoiseFigure{{Name: "drfl-figure4", Dataset: "breast-cancer-wisc", Imbalanced: true, FixedSD: 0.4, FixedMean: 0.1, Ratio: 2}}},
		{"figure5", c.FigureRows("drfl-figure5"), []NoiseFigure{{Name: "drfl-figure5", Dataset: "heart", Imbalanced: true, FixedSD: 0.1, FixedMean: 0.5, Ratio: 0.5}}},
		{"figure1", DefaultFigure1(), Figure1Config{Seed: 1, Runs: 100, Samples: 1000, RhoStep: 1e-5, RhoMax: 0.5, Draws: 10000}},
		{"figure1 quick", c.Figure1Config(true), Figure1Config{Seed: 1, Runs: 100, Samples: 1000, RhoStep: 1e-4, RhoMax: 0.5, Draws: 2000}},
		{"folds, quick thinning", []int{c.Folds, c.QuickGridThin}, []int{5, 3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !reflect.DeepEqual(tc.got, tc.want) {
				t.Errorf("preset %+v, want %+v", tc.got, tc.want)
			}
		})
	}
	if err := c.ValidateData(); err != nil {
		t.Error(err)
	}
	if err := c.ValidateNoise(true); err != nil {
		t.Error(err)
	}
}

// TestDRFLPresetNoise: the noise runs the preset builds are those of the
// code before the preset: 10 repetitions at 0, 0.2, …, 2, quick 2 at 0,
// 0.4, …, 2, the five models at the base parameters, the grid thinned
// to 5 × 4 × 2 with --quick.
func TestDRFLPresetNoise(t *testing.T) {
	c := DefaultConfig()
	fig := c.FigureRows("drfl-figure4")[0]
	base := Params{Model: ModelDRFL, Rho: 0.01, Kappa: 0.5, Theta: 0.01, P: 1}
	full := c.Noise(fig, base, false, false)
	if want := []float64{0, 0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.6, 1.8, 2}; !reflect.DeepEqual(full.Levels, want) || full.Repetitions != 10 || full.CV != nil {
		t.Errorf("full run: levels %v, %d repetitions, cv %v", full.Levels, full.Repetitions, full.CV)
	}
	if len(full.Params) != 5 || full.Params[3].Model != ModelWAFL || full.Params[3].Rho != 0.01 || full.Seed != 1 {
		t.Errorf("params %+v, seed %d", full.Params, full.Seed)
	}
	if !reflect.DeepEqual(full.Data.Imbalance, []float64{0.5, 0.5, 1}) || full.Data.NoiseMean != 0.5 || full.C != 1 || full.Tol != 1e-4 || full.MaxRounds != 10000 {
		t.Errorf("data %+v, solver %v %v %v", full.Data, full.C, full.Tol, full.MaxRounds)
	}
	quick := c.Noise(fig, base, true, true)
	if want := []float64{0, 0.4, 0.8, 1.2, 1.6, 2}; !reflect.DeepEqual(quick.Levels, want) || quick.Repetitions != 2 {
		t.Errorf("quick run: levels %v, %d repetitions", quick.Levels, quick.Repetitions)
	}
	if g := quick.CV; g == nil || len(g.Rho) != 5 || len(g.Kappa) != 4 || len(g.Theta) != 2 || quick.Folds != 5 {
		t.Errorf("quick grid %+v, folds %d", g, quick.Folds)
	}
}

// TestDRFLConfigClone: two copies of the preset share no slice or map,
// so that a caller's edit cannot reach the cached preset.
func TestDRFLConfigClone(t *testing.T) {
	var walk func(path string, a, b reflect.Value)
	walk = func(path string, a, b reflect.Value) {
		switch a.Kind() {
		case reflect.Slice, reflect.Map:
			if a.Len() > 0 && a.Pointer() == b.Pointer() {
				t.Errorf("%s is shared", path)
			}
			if a.Kind() == reflect.Slice {
				for i := range a.Len() {
					walk(path+"[]", a.Index(i), b.Index(i))
				}
			}
		case reflect.Struct:
			for i := range a.NumField() {
				walk(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i))
			}
		case reflect.Pointer:
			t.Errorf("%s: a pointer, which Clone does not copy", path)
		}
	}
	walk("Config", reflect.ValueOf(*DefaultConfig()), reflect.ValueOf(*DefaultConfig()))
}

// TestPaperDRFLGrid: the preset's grid is the one Section 6.1 prints,
// value for value and in its order.
func TestPaperDRFLGrid(t *testing.T) {
	paper := Grid{
		Rho:   []float64{1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 2e-6, 2e-5, 2e-4, 2e-3, 2e-2, 5e-6, 5e-4, 5e-2, 5e-1, 1e+0},
		Kappa: []float64{1e-1, 2e-1, 3e-1, 4e-1, 5e-1, 6e-1, 7e-1, 8e-1, 9e-1, 1e+0},
		Theta: []float64{1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1e+0},
	}
	if got := PaperGrid(); !reflect.DeepEqual(got, paper) {
		t.Fatalf("preset grid %+v\nthe paper's %+v", got, paper)
	}
}

// TestDRFLConfigValidate: each bad key is a *ConfigError naming it.
func TestDRFLConfigValidate(t *testing.T) {
	cases := []struct {
		key  string
		edit func(c *Config)
		cv   bool
	}{
		{"train_share", func(c *Config) { c.TrainShare = 1 }, false},
		{"clients", func(c *Config) { c.Clients = 0 }, false},
		{"imbalance", func(c *Config) { c.Clients = 4 }, false},
		{"imbalance", func(c *Config) { c.Imbalance = []float64{0.5, 0, 1} }, false},
		{"train_noise.heart", func(c *Config) { c.TrainNoise["heart"] = TrainNoise{SD: -1} }, false},
		{"train_noise.default", func(c *Config) { delete(c.TrainNoise, "default") }, false},
		{"repetitions", func(c *Config) { c.Repetitions = 0 }, false},
		{"quick_repetitions", func(c *Config) { c.QuickRepetitions = -1 }, false},
		{"noise_max", func(c *Config) { c.NoiseMax = math.Inf(1) }, false},
		{"noise_step", func(c *Config) { c.NoiseStep = 0 }, false},
		{"quick_noise_step", func(c *Config) { c.QuickNoiseStep = 1e-9 }, false},
		{"figure3", func(c *Config) { c.Figure3 = nil }, false},
		{"figure5", func(c *Config) { c.Figure5[0].FixedSD = -0.1 }, false},
		{"figure2", func(c *Config) { c.Figure2[1].Dataset = "" }, false},
		{"folds", func(c *Config) { c.Folds = 1 }, true},
		{"quick_grid_thin", func(c *Config) { c.QuickGridThin = 0 }, true},
		{"cv_grid.kappa", func(c *Config) { c.Grid.Kappa = []float64{0, 0.5} }, true},
		{"cv_grid.rho", func(c *Config) { c.Grid.Rho = nil }, true},
		{"cv_grid.theta", func(c *Config) { c.Grid.Theta = []float64{-1} }, true},
	}
	for _, tc := range cases {
		t.Run(tc.key, func(t *testing.T) {
			c := DefaultConfig()
			tc.edit(c)
			err := c.ValidateData()
			if err == nil {
				err = c.ValidateNoise(tc.cv)
			}
			if err == nil || !strings.Contains(err.Error(), tc.key+" = ") {
				t.Fatalf("err %v, want one naming %s", err, tc.key)
			}
		})
	}
	// The grid matters only with --cv; a bad folds value is an error
	// either way.
	c := DefaultConfig()
	c.Grid.Rho = nil
	if err := c.ValidateNoise(false); err != nil {
		t.Errorf("without cv: %v", err)
	}
	c.Folds = 1
	if err := c.ValidateNoise(false); err == nil || !strings.Contains(err.Error(), "folds = 1") {
		t.Errorf("folds = 1 without cv: err %v", err)
	}
}
