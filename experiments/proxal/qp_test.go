package proxal

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/solver"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func smallQP() *QPConfig {
	return &QPConfig{TrialConfig: experiments.TrialConfig{Seed: 3, Trials: 3, RNG: "fedcon"}, Cells: [][]int{{1, 12, 1}, {3, 20, 2}}, MethodConfig: MethodConfig{Beta: 10, SBar: 0.1, Rho: 1, Q: 0.9,
		Eps1: 1e-3, Eps2: 1e-3, MaxOuter: 10000, MaxInner: 10000, InnerTest: solver.InnerTestPaper}}
}

// stripWall removes wall times, the only fields allowed to differ between runs.
func stripWall(t *testing.T, r *QPResult) string {
	t.Helper()
	for i := range r.Trials {
		for _, a := range []*QPAlg{&r.Trials[i].Alg1, &r.Trials[i].CProx} {
			a.Wall, a.Stats.Runtime = 0, 0
		}
	}
	for i := range r.Rows {
		r.Rows[i].Wall1, r.Rows[i].WallC = experiments.MeanStd{}, experiments.MeanStd{}
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestQPDeterministic: a run is a pure function of (config, seed), whatever
// the number of workers.
func TestQPDeterministic(t *testing.T) {
	var ref string
	for _, w := range []int{1, 2, 5} {
		r, err := RunQP(context.Background(), smallQP(), experiments.RunOptions{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		got := stripWall(t, r)
		if ref == "" {
			ref = got
		} else if got != ref {
			t.Fatalf("workers = %d changed the results", w)
		}
	}
	cfg := smallQP()
	cfg.Seed = 4
	r, err := RunQP(context.Background(), cfg, experiments.RunOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if stripWall(t, r) == ref {
		t.Fatal("another seed gave identical results")
	}
}

// TestQPGolden pins the small seeded table (run with -update after an
// intended change, and say why in the commit).
func TestQPGolden(t *testing.T) {
	r, err := RunQP(context.Background(), smallQP(), experiments.RunOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	r.Info = experiments.NewRunInfo("golden", "test", smallQP(), 2)
	got := r.Tables()[0].Markdown()
	path := filepath.Join("testdata", "table4-small.golden.md")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./experiments -run Golden -update)", err)
	}
	if got != string(want) {
		t.Errorf("table changed:\n%s\nwant:\n%s", got, want)
	}
	for _, row := range r.Rows {
		// Every trial converged and certifies Definition 1 with (ε1, ε2).
		if row.Flags != "ok" || row.KKT1[0] > 1e-3 || row.KKT1[1] > 1e-3 || row.KKTC[0] > 1e-3 || row.KKTC[1] > 1e-3 {
			t.Errorf("row %+v", row)
		}
	}
}

func TestQPConfigValidate(t *testing.T) {
	cases := []struct {
		name  string
		mod   func(*QPConfig)
		field string
	}{
		{"negative beta", func(c *QPConfig) { c.Beta = -1 }, "beta"},
		{"zero rho", func(c *QPConfig) { c.Rho = 0 }, "rho"},
		{"q = 1", func(c *QPConfig) { c.Q = 1 }, "q"},
		{"no trials", func(c *QPConfig) { c.Trials = 0 }, "trials"},
		{"0 clients", func(c *QPConfig) { c.Cells = [][]int{{0, 10, 1}} }, "clients"},
		{"dim 0", func(c *QPConfig) { c.Cells = [][]int{{1, 0, 1}} }, "dim"},
		{"short cell", func(c *QPConfig) { c.Cells = [][]int{{1, 10}} }, "cells"},
		{"rng", func(c *QPConfig) { c.RNG = "x" }, "rng"},
		{"NaN eps floor", func(c *QPConfig) { c.EpsFloor = math.NaN() }, "eps_floor"},
		{"Inf eps floor", func(c *QPConfig) { c.EpsFloor = math.Inf(1) }, "eps_floor"},
		{"trials over the cap", func(c *QPConfig) { c.Trials = experiments.MaxTrials + 1 }, "trials"},
		{"max_outer over the cap", func(c *QPConfig) { c.MaxOuter = experiments.MaxIter + 1 }, "max_outer"},
		{"15 + 3 rows in 5 unknowns", func(c *QPConfig) { c.Cells = [][]int{{5, 5, 3}} }, "constraints"},
		{"rows = dim", func(c *QPConfig) { c.Cells = [][]int{{4, 10, 2}} }, "constraints"},
		{"dim 2^20", func(c *QPConfig) { c.Cells = [][]int{{1, 1 << 20, 1}} }, "dim"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := smallQP()
			c.mod(cfg)
			err := cfg.Validate()
			ce, ok := err.(*experiments.ConfigError)
			if !ok || ce.Field != c.field {
				t.Fatalf("err = %v, want ConfigError on %s", err, c.field)
			}
		})
	}
	if err := smallQP().Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestFairConfigValidate: bad fairness configs are ConfigErrors naming the key.
func TestFairConfigValidate(t *testing.T) {
	good := func() *FairConfig {
		return &FairConfig{TrialConfig: experiments.TrialConfig{Seed: 1, Trials: 1, RNG: "fedcon"}, Dataset: "adult-b", Clients: []int{2}, R: 0.1,
			ALConfig: ALConfig{MethodConfig: MethodConfig{Beta: 10, SBar: 1e-3, Rho: 1, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3, MaxOuter: 10, MaxInner: 10, InnerTest: solver.InnerTestPaper}, Subsolver: "newton", RhoRule: solver.RhoFixed, Relax: 1}}
	}
	if err := good().Validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		field string
		mod   func(*FairConfig)
	}{
		{"beta", func(c *FairConfig) { c.Beta = -10 }},
		{"dataset", func(c *FairConfig) { c.Dataset = "adult-a" }},
		{"clients", func(c *FairConfig) { c.Clients = []int{0} }},
		{"subsolver", func(c *FairConfig) { c.Subsolver = "sgd" }},
		{"r", func(c *FairConfig) { c.R = 0 }},
	}
	for _, c := range cases {
		cfg := good()
		c.mod(cfg)
		if ce, ok := cfg.Validate().(*experiments.ConfigError); !ok || ce.Field != c.field {
			t.Errorf("%s: err = %v", c.field, cfg.Validate())
		}
	}
}

// TestQPRowDiverged: as in the classification tables, a diverged QP run is
// flagged, counted and kept out of the solution columns (not the cost
// ones); where every run of an algorithm diverged, both tables print "-".
func TestQPRowDiverged(t *testing.T) {
	run := func(obj, kkt float64, outer int, st solver.Status) QPAlg {
		a := QPAlg{Objective: obj, Violation: kkt, DistOpt: kkt, ObjBand: kkt, Status: st}
		a.Residuals.Stationarity, a.Residuals.Feasibility = kkt, kkt
		a.Stats.OuterIterations = outer
		return a
	}
	trials := []QPTrial{
		{QPRuns: QPRuns{Alg1: run(1, 1e-4, 2, solver.Converged), CProx: run(1, 1e-4, 2, solver.Converged), RelDiff: 1e-6}},
		{QPRuns: QPRuns{Alg1: run(3e19, 2e19, 8, solver.Diverged), CProx: run(1, 2e-4, 4, solver.Converged), RelDiff: 3e19}},
	}
	row := QPRowOf(1, 2, 1, 1, trials, [2]float64{1e-3, 1e-3})
	if row.Diverged1 != 1 || row.DivergedC != 0 || row.RelDiffTrials != 1 || row.Trials != 2 {
		t.Errorf("counts %+v", row.Divergence)
	}
	if row.Obj1.Mean != 1 || row.Viol1.Mean != 1e-4 || row.Dist1.Mean != 1e-4 || row.KKT1 != [2]float64{1e-4, 1e-4} ||
		row.Band1 != 1e-4 || row.RelDiff.Mean != 1e-6 || math.Abs(row.ViolC.Mean-1.5e-4) > 1e-18 {
		t.Errorf("diverged run in the solution columns: %+v", row)
	}
	if row.Outer1.Mean != 5 || !strings.Contains(row.Flags, "A1 Diverged x1") {
		t.Errorf("cost columns or flags: outer %v, flags %q", row.Outer1.Mean, row.Flags)
	}
	trials[0].Alg1.Status = solver.Diverged
	row = QPRowOf(1, 2, 1, 1, trials, [2]float64{1e-3, 1e-3})
	res := &QPResult{Info: experiments.NewRunInfo("t", "test", smallQP(), 1), Rows: []QPRow{row}}
	tabs := res.Tables()
	main, extra := tabs[0].Rows[0], tabs[1].Rows[0]
	if main[3] != "-" || main[5] != "-" || main[6] != "-" || main[4] == "-" || main[7] == "-" {
		t.Errorf("Table 4, every Alg. 1 run diverged: %q", main)
	}
	if extra[7] != "-" || extra[8] == "-" || !strings.HasPrefix(extra[9], "- / ") {
		t.Errorf("Table 4 extra, every Alg. 1 run diverged: %q", extra)
	}
}
