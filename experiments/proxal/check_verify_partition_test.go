package proxal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/internal/testutil"
	"github.com/fedcon/fedcon/solver"
)

// writeClassRun runs a Neyman-Pearson (table1) or fairness (table2)
// config into dir as `fedcon run` does; forge edits the rows before the
// files are written, so that the tables agree with them.
func writeClassRun(t *testing.T, dir, name string, cfg any, dirs []string, forge func([]ClassRow)) {
	t.Helper()
	info := experiments.NewRunInfo(name, "test", cfg, 1)
	var (
		s      *experiments.Store
		seed   uint64
		res    any
		rows   []ClassRow
		tables func() []*experiments.Table
		err    error
	)
	switch c := cfg.(type) {
	case *NPConfig:
		s, seed = &experiments.Store{Dir: filepath.Join(dir, "trials"), Hash: c.TrialHash(), Version: "test"}, c.Seed
		var r *NPResult
		if r, err = RunNP(context.Background(), c, dirs, experiments.RunOptions{Workers: 2, Store: s}); err == nil {
			r.Info, res, rows, tables = info, r, r.Rows, r.Tables
		}
	case *FairConfig:
		s, seed = &experiments.Store{Dir: filepath.Join(dir, "trials"), Hash: c.TrialHash(), Version: "test"}, c.Seed
		var r *FairResult
		if r, err = RunFair(context.Background(), c, dirs, experiments.RunOptions{Workers: 2, Store: s}); err == nil {
			r.Info, res, rows, tables = info, r, r.Rows, r.Tables
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	info.Finish()
	if forge != nil {
		forge(rows)
	}
	if _, err := experiments.WriteOutputs(dir, name, res, tables()...); err != nil {
		t.Fatal(err)
	}
	m, err := experiments.NewManifest(info, seed, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := experiments.WriteJSON(filepath.Join(dir, "manifest.json"), m); err != nil {
		t.Fatal(err)
	}
}

// TestGatePartitionTampering: the columns a class table takes from the data
// split (rows dropped by the partition, unconstrained feasibility) are
// recomputed from the data by the gate; a table forged consistently in
// any of them (rows, CSV and Markdown together) fails the partition rule,
// and only it.
func TestGatePartitionTampering(t *testing.T) {
	testutil.Slow(t)
	dirs := dataDirs(t)
	np := &NPConfig{TrialConfig: experiments.TrialConfig{Seed: 2, Trials: 1, RNG: "fedcon"}, Datasets: []string{"breast-cancer-wisc"}, Clients: []int{2, 7}, R: 0.2, ADMMStart: "wk",
		ALConfig: ALConfig{MethodConfig: MethodConfig{Beta: 300, SBar: 1e-3, Rho: 0.01, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3, MaxOuter: 30, MaxInner: 100, InnerTest: solver.InnerTestPaper}, Subsolver: "newton", RhoRule: solver.RhoFixed, Relax: 1}}
	fair := &FairConfig{TrialConfig: experiments.TrialConfig{Seed: 2, Trials: 1, RNG: "numpy"}, Dataset: "adult-b", Clients: []int{2, 5}, R: 0.1,
		ALConfig: ALConfig{MethodConfig: MethodConfig{Beta: 50, SBar: 0.01, Rho: 0.1, Q: 0.9, EpsFloor: 1e-10, Eps1: 1e-3, Eps2: 1e-3, MaxOuter: 3, MaxInner: 5, InnerTest: solver.InnerTestPaper}, Subsolver: "newton", RhoRule: solver.RhoFixed, Relax: 1}}
	for _, c := range []struct {
		name  string
		table string
		cfg   any
		forge func([]ClassRow)
		fail  string // "" for the honest run
	}{
		{"np honest", "table1", np, nil, ""},
		{"np rows dropped + 1", "table1", np, func(r []ClassRow) { r[1].Dropped++ }, "rows_dropped_by_partition"},
		{"np unconstrained mean halved", "table1", np, func(r []ClassRow) { r[0].Uncons1.Mean /= 2 }, "unconstrained_feas.mean"},
		{"np unconstrained std edited", "table1", np, func(r []ClassRow) { r[1].Uncons1.Std += 1e-6 }, "unconstrained_feas.std"},
		{"np unconstrained max lowered", "table1", np, func(r []ClassRow) { r[1].Uncons1Max = r[1].Uncons1.Mean }, "unconstrained_feas_max"},
		{"fair honest", "table2", fair, nil, ""},
		{"fair rows dropped - 1", "table2", fair, func(r []ClassRow) { r[0].Dropped-- }, "rows_dropped_by_partition"},
		{"fair unconstrained max doubled", "table2", fair, func(r []ClassRow) { r[1].Uncons1Max *= 2 }, "unconstrained_feas_max"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeClassRun(t, dir, c.table, c.cfg, dirs, c.forge)
			b, err := os.ReadFile(filepath.Join(dir, c.table+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var failed []string
			for _, r := range experiments.VerifyResult(dir, c.table, b, dirs) {
				if !r.Pass {
					failed = append(failed, r.Rule+": "+r.Detail)
				}
			}
			switch {
			case c.fail == "" && len(failed) > 0:
				t.Fatalf("honest run fails the gate: %v", failed)
			case c.fail != "" && (len(failed) != 1 || !strings.HasPrefix(failed[0], "partition recomputed") || !strings.Contains(failed[0], c.fail)):
				t.Fatalf("failed %v, want only the partition rule naming %s", failed, c.fail)
			}
		})
	}
}
