package conic

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/proxal"
	"github.com/fedcon/fedcon/internal/testutil"
	"github.com/fedcon/fedcon/solver"
)

// writeConicClassRun runs a conic Table 2 (NP) or Table 3 (fairness)
// config into dir as `fedcon reproduce conic-table2/3` does; forge edits
// the rows before the files are written, so that the tables agree with them.
func writeConicClassRun(t *testing.T, dir, name string, cfg any, dirs []string, forge func([]proxal.ClassRow)) {
	t.Helper()
	info := experiments.NewRunInfo(name, "test", cfg, 1)
	var (
		res  *ClassResult
		s    *experiments.Store
		seed uint64
		err  error
	)
	switch c := cfg.(type) {
	case *proxal.NPConfig:
		s, seed = &experiments.Store{Dir: filepath.Join(dir, "trials"), Hash: c.TrialHash(), Version: "test"}, c.Seed
		res, err = RunNP(context.Background(), c, dirs, experiments.RunOptions{Workers: 2, Store: s})
	case *proxal.FairConfig:
		s, seed = &experiments.Store{Dir: filepath.Join(dir, "trials"), Hash: c.TrialHash(), Version: "test"}, c.Seed
		res, err = RunFair(context.Background(), c, dirs, experiments.RunOptions{Workers: 2, Store: s})
	default:
		t.Fatalf("config %T", cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	res.Info = info
	info.Finish()
	if forge != nil {
		forge(res.Rows)
	}
	if _, err := experiments.WriteOutputs(dir, name, res, res.Tables()...); err != nil {
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

// TestGateConicPartitionTampering: the conic Tables 2-3 take the same
// data-split columns as the core Tables 1-2, and the gate recomputes them
// from the data sets on the search path it is given: a table forged
// consistently in any of them (rows, CSV and Markdown together) fails the
// partition rule, and only it; an honest table whose data set is not on
// that path fails it and the recomputed certificate, which needs the data too.
func TestGateConicPartitionTampering(t *testing.T) {
	testutil.Slow(t)
	dirs := conicDataDirs(t)
	// The conic settings (w0, β, ρ_i, r) with few iterations: seconds.
	al := proxal.ALConfig{MethodConfig: proxal.MethodConfig{Beta: 300, SBar: 1e-3, Rho: 0.01, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3,
		MaxOuter: 30, MaxInner: 100, InnerTest: solver.InnerTestPaper}, Subsolver: "newton", RhoRule: solver.RhoFixed, Relax: 1}
	np := &proxal.NPConfig{TrialConfig: experiments.TrialConfig{Seed: 2, Trials: 1, RNG: "fedcon"}, Datasets: []string{"breast-cancer-wisc"},
		Clients: []int{2, 7}, R: 0.2, W0: "ones", ADMMStart: "wk", ALConfig: al}
	al.Beta, al.Rho, al.EpsFloor, al.MaxOuter, al.MaxInner = 10, 1e8, 1e-10, 3, 5
	fair := &proxal.FairConfig{TrialConfig: experiments.TrialConfig{Seed: 2, Trials: 1, RNG: "numpy"}, Dataset: "adult-b", Clients: []int{2, 5},
		R: 0.01, W0: "zeros", ALConfig: al}
	empty := []string{t.TempDir()}
	for _, c := range []struct {
		name  string
		table string
		cfg   any
		dirs  []string // the gate's search path
		forge func([]proxal.ClassRow)
		fail  string // "" for the honest run
	}{
		{"np honest", "conic-table2", np, dirs, nil, ""},
		{"np rows dropped + 1", "conic-table2", np, dirs, func(r []proxal.ClassRow) { r[1].Dropped++ }, "rows_dropped_by_partition"},
		{"np unconstrained mean halved", "conic-table2", np, dirs, func(r []proxal.ClassRow) { r[0].Uncons1.Mean /= 2 }, "unconstrained_feas.mean"},
		{"np unconstrained std edited", "conic-table2", np, dirs, func(r []proxal.ClassRow) { r[1].Uncons1.Std += 1e-6 }, "unconstrained_feas.std"},
		{"np unconstrained max lowered", "conic-table2", np, dirs, func(r []proxal.ClassRow) { r[1].Uncons1Max = r[1].Uncons1.Mean }, "unconstrained_feas_max"},
		{"np data not on the path", "conic-table2", np, empty, nil, empty[0]},
		{"fair honest", "conic-table3", fair, dirs, nil, ""},
		{"fair rows dropped - 1", "conic-table3", fair, dirs, func(r []proxal.ClassRow) { r[0].Dropped-- }, "rows_dropped_by_partition"},
		{"fair unconstrained mean halved", "conic-table3", fair, dirs, func(r []proxal.ClassRow) { r[1].Uncons1.Mean /= 2 }, "unconstrained_feas.mean"},
		{"fair unconstrained max doubled", "conic-table3", fair, dirs, func(r []proxal.ClassRow) { r[1].Uncons1Max *= 2 }, "unconstrained_feas_max"},
		{"fair data not on the path", "conic-table3", fair, empty, nil, empty[0]},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeConicClassRun(t, dir, c.table, c.cfg, dirs, c.forge)
			b, err := os.ReadFile(filepath.Join(dir, c.table+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var failed []string
			for _, r := range experiments.VerifyResult(dir, c.table, b, c.dirs) {
				if !r.Pass {
					failed = append(failed, r.Rule+": "+r.Detail)
				}
			}
			// Without the data, the recomputed certificate (and for
			// Neyman-Pearson the independent optimum) cannot be checked
			// either: they fail too, naming the path.
			want := []string{"partition recomputed"}
			if c.dirs[0] == empty[0] {
				want = append(want, "certificate recomputed")
				if c.table == "conic-table2" {
					want = append(want, "objective vs independent optimum")
				}
			}
			ok := len(failed) == len(want)
			for i := 0; ok && i < len(want); i++ {
				ok = strings.HasPrefix(failed[i], want[i]) && strings.Contains(failed[i], c.fail)
			}
			switch {
			case c.fail == "" && len(failed) > 0:
				t.Fatalf("honest run fails the gate: %v", failed)
			case c.fail != "" && !ok:
				t.Fatalf("failed %v, want only the rules %v naming %s", failed, want, c.fail)
			}
		})
	}
}

// TestGateConicOptimum: conic Table 2 (Neyman-Pearson with the conic
// paper's settings) gets "objective vs independent optimum", the gate's
// barrier solve of each cell's partition (n <= 20): an honest table passes
// it, and one whose trial's objective is moved outside its band, the table
// rebuilt from the forged trial file, fails it naming the run.
func TestGateConicOptimum(t *testing.T) {
	dirs := conicDataDirs(t)
	al := proxal.ALConfig{MethodConfig: proxal.MethodConfig{Beta: 300, SBar: 1e-3, Rho: 0.01, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3,
		MaxOuter: 30, MaxInner: 100, InnerTest: solver.InnerTestPaper}, Subsolver: "newton", RhoRule: solver.RhoFixed, Relax: 1}
	np := &proxal.NPConfig{TrialConfig: experiments.TrialConfig{Seed: 2, Trials: 1, RNG: "fedcon"}, Datasets: []string{"breast-cancer-wisc"},
		Clients: []int{2}, R: 0.2, W0: "ones", ADMMStart: "wk", ALConfig: al}
	for _, c := range []struct {
		name  string
		delta float64 // added to the cProx-AL run's stored objective
		pass  bool
		want  string
	}{
		{"honest", 0, true, "2 runs in 1 cells"},
		{"objective raised by 1e-3", 1e-3, false, "breast-cancer-wisc n=2 trial 0 cProx-AL: objective"},
		{"objective lowered by 1e-3", -1e-3, false, "breast-cancer-wisc n=2 trial 0 cProx-AL: objective"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeConicClassRun(t, dir, "conic-table2", np, dirs, nil)
			if c.delta != 0 {
				p := filepath.Join(dir, "trials", "breast-cancer-wisc-n2-t00.json")
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				var f map[string]any
				if err := json.Unmarshal(b, &f); err != nil {
					t.Fatal(err)
				}
				a := f["trial"].(map[string]any)["cprox"].(map[string]any)
				a["objective"] = a["objective"].(float64) + c.delta
				if b, err = json.Marshal(f); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
				writeConicClassRun(t, dir, "conic-table2", np, dirs, nil) // the forger's rebuild
			}
			b, err := os.ReadFile(filepath.Join(dir, "conic-table2.json"))
			if err != nil {
				t.Fatal(err)
			}
			rows := experiments.VerifyResult(dir, "conic-table2", b, dirs)
			row := ruleRow(t, rows, "objective vs independent optimum")
			if row.Pass != c.pass || !strings.Contains(row.Detail, c.want) {
				t.Fatalf("pass %v, %q; want pass %v naming %q", row.Pass, row.Detail, c.pass, c.want)
			}
		})
	}
}
