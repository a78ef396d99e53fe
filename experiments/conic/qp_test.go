package conic

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/proxal"
	"github.com/fedcon/fedcon/solver"
)

func smallConicConfig() *QPConfig {
	return &QPConfig{
		TrialConfig: experiments.TrialConfig{Seed: 3, Trials: 2, RNG: "fedcon"},
		Cells:       [][]int{{20, 1, 1}, {24, 3, 2}},
		W0:          "ones", BallParties: "all", BallRatio: 0.5, Subsolver: "newton",
		MethodConfig: proxal.MethodConfig{Beta: 1, SBar: 0.01, Rho: 1, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3,
			MaxOuter: 10000, MaxInner: 10000, InnerTest: solver.InnerTestPaper},
	}
}

func TestConicQPConfigValidate(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(c *QPConfig)
		field string
	}{
		{"numpy stream", func(c *QPConfig) { c.RNG = "numpy" }, "rng"},
		{"bad w0", func(c *QPConfig) { c.W0 = "half" }, "w0"},
		{"negative ball rows", func(c *QPConfig) { c.BallRows = -1 }, "ball_rows"},
		{"ball ratio 1", func(c *QPConfig) { c.BallRows, c.BallRatio = 2, 1 }, "ball_ratio"},
		{"ball parties", func(c *QPConfig) { c.BallRows, c.BallParties = 2, "some" }, "ball_parties"},
		{"subsolver", func(c *QPConfig) { c.Subsolver = "sgd" }, "subsolver"},
		{"cell shape", func(c *QPConfig) { c.Cells = [][]int{{10, 1}} }, "cells"},
		// (n+1)·m̃ = 10 stacked equalities in R^10 leave no room.
		{"too many equalities", func(c *QPConfig) { c.Cells = [][]int{{10, 4, 2}} }, "constraints"},
		{"beta", func(c *QPConfig) { c.Beta = -1 }, "beta"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := smallConicConfig()
			c.edit(cfg)
			var ce *experiments.ConfigError
			if err := cfg.Validate(); !errors.As(err, &ce) || ce.Field != c.field {
				t.Fatalf("Validate() = %v, want a ConfigError on %s", err, c.field)
			}
		})
	}
	if err := smallConicConfig().Validate(); err != nil {
		t.Fatalf("valid config: %v", err)
	}
}

// TestRunConicQP runs small cells with and without norm balls and checks
// each run against the guarantees (Converged, Definition 1's residuals <=
// (ε1, ε2)) and the independent solution (objective within a KKT-derived
// distance, w within O(√ε) of w*), and that results do not depend on workers.
func TestRunConicQP(t *testing.T) {
	cases := []struct {
		name string
		edit func(c *QPConfig)
	}{
		{"eq. (25)", func(*QPConfig) {}},
		// One ball: ExactSingleBall gives f*. β = ρ = 10 keeps the large
		// ball multiplier from needing hundreds of outer iterations.
		{"server ball", func(c *QPConfig) {
			c.BallRows, c.BallParties, c.Beta, c.Rho = 3, "server", 10, 10
		}},
		{"balls everywhere", func(c *QPConfig) { c.BallRows, c.Beta, c.Rho = 2, 10, 10 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && c.name == "balls everywhere" {
				t.Skip("slow")
			}
			cfg := smallConicConfig()
			c.edit(cfg)
			res, err := RunQP(context.Background(), cfg, experiments.RunOptions{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rows) != len(cfg.Cells) || len(res.Trials) != len(cfg.Cells)*cfg.Trials {
				t.Fatalf("%d rows, %d trials", len(res.Rows), len(res.Trials))
			}
			for _, tr := range res.Trials {
				for name, a := range map[string]proxal.QPAlg{"alg1": tr.Alg1, "cprox": tr.CProx} {
					if a.Status != solver.Converged {
						t.Errorf("d=%d n=%d t=%d %s: status %v", tr.D, tr.N, tr.Trial, name, a.Status)
					}
					if a.Residuals.Stationarity > cfg.Eps1 || a.Residuals.Feasibility > cfg.Eps2 {
						t.Errorf("%s: residuals %+v above (ε1, ε2) (Theorem 3.1)", name, a.Residuals)
					}
					// dist_∞(c, -K) <= dist_∞(c, N_{K*}(μ)): N_{K*}(μ) ⊂ -K.
					if a.Violation > a.Residuals.Feasibility*(1+1e-12) {
						t.Errorf("%s: violation %g above the KKT feasibility residual %g", name, a.Violation, a.Residuals.Feasibility)
					}
					if !tr.Exact {
						continue
					}
					// f is 5-strongly convex, so an (ε, ε)-KKT point with
					// multipliers of size O(10) is within ~1e-3 of w* here;
					// 0.05 in w and 0.05·max(1, |f*|) in f are loose bounds
					// that a wrong constraint or cone would still violate.
					if a.DistOpt > 0.05 {
						t.Errorf("%s: ||w - w*||_∞ = %g", name, a.DistOpt)
					}
					if math.Abs(a.Objective-tr.FStar) > 0.05*math.Max(1, math.Abs(tr.FStar)) {
						t.Errorf("%s: objective %v, f* = %v", name, a.Objective, tr.FStar)
					}
				}
				if wantExact := cfg.BallRows == 0 || cfg.BallParties != "all"; tr.Exact != wantExact {
					t.Errorf("exact reference %v, want %v", tr.Exact, wantExact)
				}
			}
			// Determinism: two workers give the same trials, bit for bit.
			res2, err := RunQP(context.Background(), cfg, experiments.RunOptions{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if a, b := stripConicWall(t, res.Trials), stripConicWall(t, res2.Trials); a != b {
				t.Fatalf("results depend on workers")
			}
			res.Info = &experiments.RunInfo{Config: cfg}
			md := res.Tables()[0].Markdown()
			if strings.Contains(md, "NaN") || strings.Contains(md, "Inf") {
				t.Fatalf("table has NaN/Inf:\n%s", md)
			}
		})
	}
}

// stripConicWall encodes trials without their wall times and runtimes.
func stripConicWall(t *testing.T, trials []QPTrial) string {
	t.Helper()
	c := append([]QPTrial(nil), trials...)
	for i := range c {
		c[i].Alg1.Wall, c[i].CProx.Wall = 0, 0
		c[i].Alg1.Stats.Runtime, c[i].CProx.Stats.Runtime = 0, 0
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestConicPublished: the conic paper's Table 1 is found under its key and
// lies within the stated values.
func TestConicPublished(t *testing.T) {
	p := experiments.PublishedIn("conic-published", "table1", "500,10,5")
	if len(p) != 6 || p[0] != -24.7565 || p[1] != -24.7583 {
		t.Fatalf("table1 500,10,5 = %v", p)
	}
	if p := experiments.PublishedIn("conic-published", "table2", "adult-a", "1"); len(p) != 6 || p[1] != 0.9186 {
		t.Fatalf("table2 adult-a 1 = %v", p)
	}
	if p := experiments.PublishedIn("conic-published", "table3", "20"); len(p) != 6 || p[0] != 0.6818 {
		t.Fatalf("table3 20 = %v", p)
	}
}

// TestQPJSONLayout: the shared QPRuns and QPStats are flattened into the
// trial and row objects of both QP result files, so their JSON keys are the
// ones stored trial files and `fedcon check` read.
func TestQPJSONLayout(t *testing.T) {
	keys := func(v any) map[string]bool {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for k := range m {
			out[k] = true
		}
		return out
	}
	for _, c := range []struct {
		name string
		v    any
		want []string
	}{
		{"QPTrial", proxal.QPTrial{}, []string{"n", "d", "m", "trial", "f_star", "nu_star_l1", "alg1", "cprox", "reldiff"}},
		{"QPTrial", QPTrial{}, []string{"d", "n", "m", "trial", "balls", "exact_reference", "f_star", "alg1", "cprox", "reldiff"}},
		{"QPRow", proxal.QPRow{}, []string{"N", "D", "M", "f_star", "objective_alg1", "reldiff", "outer_cprox", "kkt_max_alg1", "flags", "diverged_alg1", "reldiff_trials", "nu_star_l1", "objective_kkt_band_alg1"}},
		{"QPRow", QPRow{}, []string{"D", "N", "M", "exact_reference", "f_star", "objective_cprox", "feasviol_alg1", "dist_opt_cprox", "kkt_max_cprox", "flags", "diverged_cprox", "trials"}},
		{"ClassRow", proxal.ClassRow{}, []string{"dataset", "objective_alg1", "diverged_alg1", "diverged_cprox", "trials", "reldiff_trials", "rows_dropped_by_partition"}},
	} {
		got := keys(c.v)
		for _, k := range c.want {
			if !got[k] {
				t.Errorf("%s JSON lacks %q (has %v)", c.name, k, got)
			}
		}
		if got["QPRuns"] || got["QPStats"] || got["Divergence"] {
			t.Errorf("%s JSON nests the shared struct: %v", c.name, got)
		}
	}
}

// TestConicQPRowDiverged: where every run of Algorithm 1 diverged, both
// conic Table 1 tables print "-" in its solution columns.
func TestConicQPRowDiverged(t *testing.T) {
	alg1 := proxal.QPAlg{Objective: 3e19, Violation: 2e19, DistOpt: 2e19, ObjBand: 2e19, Status: solver.Diverged}
	alg1.Stats.OuterIterations = 8
	cprox := proxal.QPAlg{Objective: 1, Violation: 1e-4, DistOpt: 1e-4, ObjBand: 1e-4, Status: solver.Converged}
	cprox.Residuals.Stationarity, cprox.Residuals.Feasibility = 1e-4, 1e-4
	runs := []*proxal.QPRuns{{Alg1: alg1, CProx: cprox, RelDiff: 3e19}}
	row := struct{ QPStats proxal.QPStats }{proxal.QPStatsOf(runs, [2]float64{1e-3, 1e-3})}
	crow := QPRow{D: 2, N: 1, M: 1, Exact: true, QPStats: row.QPStats}
	cres := &QPResult{Info: experiments.NewRunInfo("t", "test", &QPConfig{}, 1), Rows: []QPRow{crow}}
	cm, ce := cres.Tables()[0].Rows[0], cres.Tables()[1].Rows[0]
	if cm[3] != "-" || cm[4] == "-" || !strings.HasPrefix(cm[6], "- / ") || ce[6] != "-" || ce[7] != "-" || ce[8] == "-" {
		t.Errorf("conic Table 1, every Alg. 1 run diverged: %q / %q", cm, ce)
	}
}
