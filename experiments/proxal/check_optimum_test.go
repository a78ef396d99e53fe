package proxal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/internal/recheck"
	"github.com/fedcon/fedcon/solver"
)

// TestGateOptimum: the "objective vs independent optimum" rule on a
// Neyman-Pearson table. The honest runs (the paper's rule and caps) pass
// whatever their status: the band is a theorem at any point whose
// residuals are true. A trial whose objective is moved beyond
// its band, or whose w is replaced by another point with the objective and
// losses recomputed there (its claimed residuals kept, as a forger would
// keep a certificate), with the tables rebuilt from the forged file, fails
// it.
func TestGateOptimum(t *testing.T) {
	dirs := dataDirs(t)
	cfg := &NPConfig{TrialConfig: experiments.TrialConfig{Seed: 2, Trials: 1, RNG: "fedcon"}, Datasets: []string{"breast-cancer-wisc"}, Clients: []int{3}, R: 0.2, ADMMStart: "wk",
		ALConfig: ALConfig{MethodConfig: MethodConfig{Beta: 300, SBar: 1e-3, Rho: 0.01, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3, MaxOuter: 30, MaxInner: 100, InnerTest: solver.InnerTestPaper}, Subsolver: "newton", RhoRule: solver.RhoFixed, Relax: 1}}
	cell := experiments.VerifyCell{Key: "breast-cancer-wisc-n3", Label: "breast-cancer-wisc n=3", Dataset: "breast-cancer-wisc", N: 3}
	pc, err := npPoints(cfg, dirs)(cell)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := recheck.NPReference(pc.np.parts, pc.np.n, pc.np.r, pc.d)
	if err != nil {
		t.Fatal(err)
	}
	// band returns run a's band at its stored values.
	band := func(a map[string]any) OptimumBand {
		var w []float64
		for _, x := range a["w"].([]any) {
			w = append(w, x.(float64))
		}
		var mu [][]float64
		for _, blk := range a["mu"].([]any) {
			m := []float64{}
			l, _ := blk.([]any) // the server's block is null
			for _, x := range l {
				m = append(m, x.(float64))
			}
			mu = append(mu, m)
		}
		parties, _, _ := pc.eval(w)
		_, _, ss, fs, err := recheck.KKT(parties, mu)
		if err != nil {
			t.Fatal(err)
		}
		res := a["kkt_residuals"].(map[string]any)
		return NPOptimumBand(ref, w, mu, a["objective"].(float64), res["stationarity"].(float64), res["feasibility"].(float64), ss, fs)
	}
	for _, c := range []struct {
		name string
		edit func(m map[string]any)
		fail string // in the rule's detail; "" for the honest run
	}{
		{"honest", nil, ""},
		{"objective above its band", func(m map[string]any) {
			a := alg(m, "cprox")
			a["objective"] = ref.F + 2*band(a).Up + 1e-9
		}, "cProx-AL: objective"},
		{"objective below its band", func(m map[string]any) {
			a := alg(m, "alg1")
			a["objective"] = ref.F - 2*band(a).Down - 1e-9
		}, "Algorithm 1: objective"},
		{"w replaced, objective and losses recomputed there", func(m map[string]any) {
			a := alg(m, "cprox")
			w := a["w"].([]any)
			wf := make([]float64, len(w))
			for j, x := range w {
				wf[j] = 0.5 * x.(float64)
				w[j] = wf[j]
			}
			_, l0, l1 := pc.eval(wf)
			var sum float64
			for i := range l0 {
				a["loss0"].([]any)[i], a["loss1"].([]any)[i] = l0[i], l1[i]
				sum += l0[i]
			}
			a["objective"] = sum / float64(len(l0))
		}, "cProx-AL: objective"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeClassRun(t, dir, "table1", cfg, dirs, nil)
			if c.edit != nil {
				editJSON(t, filepath.Join(dir, "trials", "breast-cancer-wisc-n3-t00.json"), func(m map[string]any) { c.edit(m) })
				writeClassRun(t, dir, "table1", cfg, dirs, nil) // the forger's rebuild from the edited trial
			}
			b, err := os.ReadFile(filepath.Join(dir, "table1.json"))
			if err != nil {
				t.Fatal(err)
			}
			var row *experiments.CheckRow
			for _, r := range experiments.VerifyResult(dir, "table1", b, dirs) {
				if r.Rule == "objective vs independent optimum" {
					row = &r
				}
			}
			switch {
			case row == nil:
				t.Fatal("no objective vs independent optimum row")
			case c.fail == "" && !row.Pass:
				t.Fatalf("honest run fails: %s", row.Detail)
			case c.fail == "" && !strings.Contains(row.Detail, "2 runs in 1 cells"):
				t.Fatalf("honest row does not count its runs: %s", row.Detail)
			case c.fail != "" && (row.Pass || !strings.Contains(row.Detail, c.fail)):
				t.Fatalf("pass %v, detail %q, want a failure naming %q", row.Pass, row.Detail, c.fail)
			}
			t.Log(row.Detail)
		})
	}
}

// TestGenericOptimum: a `run np` directory (generic rules, no reference
// file) gets "objective vs independent optimum" too: it passes honest,
// fails with a trial's objective moved below its band (the result rebuilt
// from the forged trial file), names runs without w as not checked, and a
// `run fair` directory has no such row (its disparity constraint is not
// convex: no independent solve is a global optimum).
func TestGenericOptimum(t *testing.T) {
	dirs := dataDirs(t)
	al := ALConfig{MethodConfig: MethodConfig{Beta: 300, SBar: 1e-3, Rho: 0.01, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3, MaxOuter: 30, MaxInner: 100, InnerTest: solver.InnerTestPaper}, Subsolver: "newton", RhoRule: solver.RhoFixed, Relax: 1}
	np := &NPConfig{TrialConfig: experiments.TrialConfig{Seed: 2, Trials: 1, RNG: "fedcon"}, Datasets: []string{"breast-cancer-wisc"}, Clients: []int{2}, R: 0.2, ADMMStart: "wk", ALConfig: al}
	const name = "np-breast-cancer-wisc-n2"
	// optimumRow is the rule's row among the generic rules, which must
	// hold the recomputed certificate (the result was read as a class run).
	optimumRow := func(dir, name string) *experiments.CheckRow {
		f := experiments.Found{Name: name, Dir: dir, Result: name + ".json", Manifest: "manifest.json"}
		var row *experiments.CheckRow
		cert := false
		for _, r := range experiments.GenericCheck(f, experiments.GateOptions{DataDirs: dirs}) {
			cert = cert || r.Rule == "certificate recomputed"
			if r.Rule == "objective vs independent optimum" {
				row = &r
			}
		}
		if !cert {
			t.Fatalf("%s: no certificate recomputed row among the generic rules", name)
		}
		return row
	}
	for _, c := range []struct {
		mode string
		edit func(m map[string]any) // of the trial file; the result rebuilt
		pass bool
		want string
	}{
		{"honest", nil, true, "2 runs in 1 cells"},
		{"objective lowered by 1e-3", func(m map[string]any) {
			a := alg(m, "alg1")
			a["objective"] = a["objective"].(float64) - 1e-3
		}, false, "trial 0 Algorithm 1: objective"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), name)
			writeClassRun(t, dir, name, np, dirs, nil)
			if c.edit != nil {
				editJSON(t, filepath.Join(dir, "trials", "breast-cancer-wisc-n2-t00.json"), c.edit)
				writeClassRun(t, dir, name, np, dirs, nil)
			}
			row := optimumRow(dir, name)
			switch {
			case row == nil:
				t.Fatal("no objective vs independent optimum row among the generic rules")
			case row.Pass != c.pass || !strings.Contains(row.Detail, c.want):
				t.Fatalf("pass %v, %q; want pass %v naming %q", row.Pass, row.Detail, c.pass, c.want)
			}
		})
	}
	t.Run("fair", func(t *testing.T) {
		al := al
		al.Beta, al.Rho, al.EpsFloor, al.MaxOuter, al.MaxInner = 10, 1e8, 1e-10, 3, 5
		fair := &FairConfig{TrialConfig: experiments.TrialConfig{Seed: 2, Trials: 1, RNG: "numpy"}, Dataset: "adult-b", Clients: []int{2}, R: 0.01, W0: "zeros", ALConfig: al}
		dir := filepath.Join(t.TempDir(), "fair-n2")
		writeClassRun(t, dir, "fair-n2", fair, dirs, nil)
		if row := optimumRow(dir, "fair-n2"); row != nil {
			t.Fatalf("a fairness result has an independent optimum row: %+v", row)
		}
	})
}

// TestNPReferenceMemo: the memoised solve is recheck.NPReference's, met
// again for the same partition (the same pointer back) and solved anew for
// another threshold r.
func TestNPReferenceMemo(t *testing.T) {
	dirs := dataDirs(t)
	cfg := &NPConfig{TrialConfig: experiments.TrialConfig{Seed: 2, Trials: 1, RNG: "fedcon"}, Datasets: []string{"breast-cancer-wisc"}, Clients: []int{3}, R: 0.2}
	cell := experiments.VerifyCell{Key: "breast-cancer-wisc-n3", Label: "breast-cancer-wisc n=3", Dataset: "breast-cancer-wisc", N: 3}
	pc, err := npPoints(cfg, dirs)(cell)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := recheck.NPReference(pc.np.parts, pc.np.n, pc.np.r, pc.d)
	if err != nil {
		t.Fatal(err)
	}
	a, err := pc.np.reference(pc.d)
	if err != nil {
		t.Fatal(err)
	}
	b, err := pc.np.reference(pc.d)
	if err != nil {
		t.Fatal(err)
	}
	if a != b || a.F != direct.F {
		t.Fatalf("memo %p then %p, f* %.17g; direct f* %.17g", a, b, a.F, direct.F)
	}
	other := *pc.np
	other.r = 0.3
	c, err := other.reference(pc.d)
	if err != nil {
		t.Fatal(err)
	}
	if c == a || !(c.F < a.F) { // a looser constraint: a lower optimum
		t.Fatalf("r = 0.3: f* %.17g, r = 0.2: %.17g", c.F, a.F)
	}
}
