package ssca

import (
	"errors"
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/solver"
)

func sscaTestConfig() *Config {
	return &Config{Seed: 1, Runs: 100, Dataset: "fashion-mnist", Clients: 10, Hidden: 128, Rounds: 100, Tau: 0.1, C: 1e5,
		Lambda: 1e-3, U: map[string]float64{"fashion-mnist": 0.6}, GammaOffset: 0.05, Labels: "all", EvalPrecision: "float32",
		SampleSteps: []Step{{1, 0.4, 0.4, 0.4}}, FeatureSteps: []Step{{10, 0.4, 0.4, 0.4}},
		SampleBatches: []int{1}, FeatureBatches: []int{10}, FedAvg: []FedAvgRun{{1, 1}}, FSGDBatches: []int{10},
		SGDRates: map[string]SGDRate{"fedavg-b1-e1": {0.1, 0}, "fsgd-b10": {0.1, 0}}}
}

func TestSSCAConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*Config)
		field string
	}{
		{"ok", func(*Config) {}, ""},
		{"U <= 0", func(c *Config) { c.U["fashion-mnist"] = 0 }, "u.fashion-mnist"},
		{"U missing for mnist", func(c *Config) { c.Dataset = "mnist" }, "u.mnist"},
		{"alpha", func(c *Config) { c.SampleSteps[0].Alpha = 0 }, "alpha"},
		{"no step row", func(c *Config) { c.SampleBatches = []int{7} }, "sample_steps"},
		{"no sgd rate", func(c *Config) { c.FSGDBatches = []int{100} }, "sgd_rates"},
		{"labels", func(c *Config) { c.Labels = "x" }, "labels"},
		{"eval_precision", func(c *Config) { c.EvalPrecision = "float16" }, "eval_precision"},
		{"eval_precision empty", func(c *Config) { c.EvalPrecision = "" }, "eval_precision"},
		{"eval_precision float64", func(c *Config) { c.EvalPrecision = "float64" }, ""},
		{"lambda", func(c *Config) { c.Lambda = -1 }, "lambda"},
		{"gamma_offset 0", func(c *Config) { c.GammaOffset = 0 }, "gamma_offset"},
		{"gamma_offset inf", func(c *Config) { c.GammaOffset = math.Inf(1) }, "gamma_offset"},
		{"lambda_sweep inf", func(c *Config) { c.LambdaSweep = []float64{1e-3, math.Inf(1)} }, "lambda_sweep"},
		{"sgd rate a < 0", func(c *Config) { c.SGDRates["fsgd-b10"] = SGDRate{-1, 0} }, "sgd_rates.fsgd-b10"},
		{"sgd rate a inf", func(c *Config) { c.SGDRates["fsgd-b10"] = SGDRate{math.Inf(1), 0} }, "sgd_rates.fsgd-b10"},
		{"sgd rate beta > 1", func(c *Config) { c.SGDRates["fedavg-b1-e1"] = SGDRate{0.1, 3} }, "sgd_rates.fedavg-b1-e1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := sscaTestConfig()
			tc.edit(c)
			err := c.Validate()
			var ce *experiments.ConfigError
			if tc.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.As(err, &ce) || ce.Field != tc.field {
				t.Fatalf("err = %v, want field %s", err, tc.field)
			}
		})
	}
}

func TestSSCAQuickAndKeys(t *testing.T) {
	c := sscaTestConfig()
	h := c.TrialHash()
	c.Runs = 3
	if c.TrialHash() != h {
		t.Error("the number of runs changes the trial hash: adding runs would not reuse")
	}
	c.EvalPrecision = "float64"
	if c.TrialHash() == h {
		t.Error("eval_precision does not change the trial hash: float64 trials would be reused as float32")
	}
	c.EvalPrecision = "float32"
	c.Quick()
	if c.Runs != QuickRuns || c.FigureRuns("figure4") != 1 || c.FigureRuns("figure2") != 2 || c.TrialHash() == h {
		t.Errorf("quick: %+v", c)
	}
	at := c.evalAt(Spec{})
	if !at(1) || at(5) || !at(10) || !at(100) {
		t.Error("quick evaluation schedule")
	}
	full := sscaTestConfig().evalAt(Spec{})
	if !full(7) || full(11) || !full(15) {
		t.Error("full evaluation schedule: t <= 10, then every 5")
	}
	keys := map[string]bool{}
	for _, s := range sscaTestConfig().allSpecs() {
		if keys[s.Key()] {
			t.Errorf("duplicate key %s", s.Key())
		}
		keys[s.Key()] = true
	}
}

func TestSGDGridSeedsDisjoint(t *testing.T) {
	c := sscaTestConfig()
	g := &SGDGrid{A: []float64{0.1}, Beta: []float64{0}, Seed: 50, Seeds: 5}
	var ce *experiments.ConfigError
	if err := g.Validate(c); !errors.As(err, &ce) || ce.Field != "seed" {
		t.Fatalf("overlapping seeds accepted: %v", err)
	}
	g.Seed = 101
	if err := g.Validate(c); err != nil {
		t.Fatal(err)
	}
}

// TestUnreadKeys: the keys only some curves read, refused where no curve
// reads them: Figure 4 sweeps U and λ and has no SGD baseline, Figure 2
// has no feature-based curve, Figure 3 reads them all.
func TestUnreadKeys(t *testing.T) {
	for _, tc := range []struct {
		name  string
		specs []Spec
		want  []string
	}{
		{"figure2", FigureCurves("figure2"), []string{"labels"}},
		{"figure3", FigureCurves("figure3"), nil},
		{"figure4", FigureCurves("figure4"), []string{"lambda", "sgd_rates", "u"}},
		{"all", append(append(FigureCurves("figure2"), FigureCurves("figure3")...), FigureCurves("figure4")...), nil},
		{"alg1", []Spec{{Algo: "alg1"}}, []string{"c", "labels", "sgd_rates", "u"}},
		{"alg2", []Spec{{Algo: "alg2"}}, []string{"labels", "lambda", "sgd_rates"}},
		{"alg4", []Spec{{Algo: "alg4"}}, []string{"lambda", "sgd_rates"}},
		{"fedavg", []Spec{{Algo: "fedavg"}}, []string{"c", "labels", "tau", "u"}},
		{"fsgd", []Spec{{Algo: "fsgd"}}, []string{"c", "tau", "u"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := slices.Sorted(maps.Keys(UnreadKeys(tc.specs)))
			if !slices.Equal(got, tc.want) {
				t.Errorf("unread %v, want %v", got, tc.want)
			}
		})
	}
}

// TestStatusDiverged: the status a diverged run's trial file records is
// the solver's name for it, which the tables and claims compare against.
func TestStatusDiverged(t *testing.T) {
	if got := solver.Diverged.String(); statusDiverged != got {
		t.Fatalf("statusDiverged = %q, solver.Diverged is %q", statusDiverged, got)
	}
}
