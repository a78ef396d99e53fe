package proxal

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/internal/recheck"
	"github.com/fedcon/fedcon/internal/testutil"
	"github.com/fedcon/fedcon/problems"
	"github.com/fedcon/fedcon/solver"
)

// near reports agreement to 1e-12 relative to the magnitude: two float64
// evaluations of the same sums over 40 rows in another order differ by
// about 40·u ≈ 5e-15 of it.
func near(a, b, scale float64) bool { return math.Abs(a-b) <= 1e-12*(1+math.Abs(scale)) }

// TestRecheckAgreesWithProblems: at random points of random data, the
// gate's plain recomputation (internal/recheck) gives the values, gradients,
// constraints and constraint gradients of problems' Neyman-Pearson and
// fairness parties, which the solver runs on.
func TestRecheckAgreesWithProblems(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	const m, d = 40, 6
	x := mat.NewDense(m, d, nil)
	y, g := make([]float64, m), make([]int, m)
	for i := range m {
		for j := range d {
			x.Set(i, j, rng.NormFloat64())
		}
		y[i], g[i] = float64(rng.IntN(2)), rng.IntN(2)
	}
	all := make([]int, m)
	for i := range all {
		all[i] = i
	}
	var c0, c1 []int
	for i := range m {
		if y[i] == 1 {
			c1 = append(c1, i)
		} else {
			c0 = append(c0, i)
		}
	}
	ds := &datasets.Dataset{X: x, Y: y}
	for trial := range 20 {
		w := make([]float64, d)
		for j := range w {
			w[j] = 3 * rng.NormFloat64() // margins up to ±20: both softplus branches
		}
		type eval struct {
			name    string
			problem func(grad, c, jac []float64) float64
			re      recheck.Party
		}
		npc := &problems.NPClient{Class0: problems.NewRows(x, c0), Class1: problems.NewRows(x, c1), Scale: 1.0 / 3, R: 0.2}
		rnp, _, _ := recheck.NP(rowsOf(x, c0), rowsOf(x, c1), 3, 0.2, w)
		fp := FairParty(ds, g, all, 0.25, 0.1)
		rfp, _, _ := recheck.Fair(rowsOf(x, all), y, g, 0.25, 0.1, w)
		for _, e := range []eval{
			{"np", func(grad, c, jac []float64) float64 { return npc.Eval(w, grad, c, jac) }, rnp},
			{"fair", func(grad, c, jac []float64) float64 { return fp.Eval(w, grad, c, jac) }, rfp},
		} {
			k := len(e.re.C)
			grad, c, jac := make([]float64, d), make([]float64, k), make([]float64, k*d)
			f := e.problem(grad, c, jac)
			if !near(f, e.re.F, f) {
				t.Errorf("trial %d %s: f %.17g, recheck %.17g", trial, e.name, f, e.re.F)
			}
			for j := range d {
				if !near(grad[j], e.re.Grad[j], 1) {
					t.Errorf("trial %d %s: ∇f[%d] %.17g, recheck %.17g", trial, e.name, j, grad[j], e.re.Grad[j])
				}
				for i := range k {
					if !near(jac[i*d+j], e.re.Jac[i][j], 1) {
						t.Errorf("trial %d %s: ∇c%d[%d] %.17g, recheck %.17g", trial, e.name, i, j, jac[i*d+j], e.re.Jac[i][j])
					}
				}
			}
			for i := range k {
				if !near(c[i], e.re.C[i], c[i]) {
					t.Errorf("trial %d %s: c%d %.17g, recheck %.17g", trial, e.name, i, c[i], e.re.C[i])
				}
			}
		}
	}
}

// TestGatePointTampering: the gate recomputes each run's certificate at its
// stored point from the data. A trial file forged in its point, its
// multipliers, its losses or its status, with the tables rebuilt from the
// forged files (so that every other rule agrees with them), fails the
// certificate rule; the honest run passes it.
func TestGatePointTampering(t *testing.T) {
	testutil.Slow(t)
	dirs := dataDirs(t)
	np := &NPConfig{TrialConfig: experiments.TrialConfig{Seed: 2, Trials: 1, RNG: "fedcon"}, Datasets: []string{"breast-cancer-wisc"}, Clients: []int{3}, R: 0.2, ADMMStart: "wk",
		ALConfig: ALConfig{MethodConfig: MethodConfig{Beta: 300, SBar: 1e-3, Rho: 0.01, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3, MaxOuter: 30, MaxInner: 100, InnerTest: solver.InnerTestPaper}, Subsolver: "newton", RhoRule: solver.RhoFixed, Relax: 1}}
	fair := &FairConfig{TrialConfig: experiments.TrialConfig{Seed: 2, Trials: 1, RNG: "numpy"}, Dataset: "adult-b", Clients: []int{2}, R: 0.1,
		ALConfig: ALConfig{MethodConfig: MethodConfig{Beta: 50, SBar: 0.01, Rho: 0.1, Q: 0.9, EpsFloor: 1e-10, Eps1: 1e-3, Eps2: 1e-3, MaxOuter: 3, MaxInner: 5, InnerTest: solver.InnerTestPaper}, Subsolver: "newton", RhoRule: solver.RhoFixed, Relax: 1}}
	scale := func(v any, f float64) float64 { return v.(float64) * f }
	for _, c := range []struct {
		name, table, trial string
		cfg                any
		edit               func(m map[string]any)
		fail               string // in the certificate rule's detail; "" for the honest run
		note               string // in the certificate rule's detail when it passes
	}{
		{"np honest", "table1", "breast-cancer-wisc-n3-t00", np, nil, "", "the status against the stored inner cap"},
		{"np capped subproblem called Converged", "table1", "breast-cancer-wisc-n3-t00", np, func(m map[string]any) {
			a := alg(m, "cprox") // Converged, uncapped
			a["inner_capped"] = true
		}, "stopped at its inner cap", ""},
		{"np InnerIterationLimit without a cap", "table1", "breast-cancer-wisc-n3-t00", np, func(m map[string]any) {
			alg(m, "alg1")["inner_capped"] = false // InnerIterationLimit, capped
		}, "met its test (10)", ""},
		// A file of an older fedcon stores no cap: not checked, said, not failed.
		{"np inner cap not stored", "table1", "breast-cancer-wisc-n3-t00", np, func(m map[string]any) {
			delete(alg(m, "alg1"), "inner_capped")
			delete(alg(m, "cprox"), "inner_capped")
		}, "", "the inner cap not checked on 2 runs"},
		{"np w edited", "table1", "breast-cancer-wisc-n3-t00", np, func(m map[string]any) {
			w := alg(m, "alg1")["w"].([]any)
			w[0] = w[0].(float64) + 1e-3
		}, "Algorithm 1", ""},
		{"np w truncated", "table1", "breast-cancer-wisc-n3-t00", np, func(m map[string]any) {
			a := alg(m, "cprox")
			a["w"] = a["w"].([]any)[1:]
		}, "w has", ""},
		{"np μ edited", "table1", "breast-cancer-wisc-n3-t00", np, func(m map[string]any) {
			mu := alg(m, "cprox")["mu"].([]any)[1].([]any)
			mu[0] = scale(mu[0], 1.5) + 0.01 // an inactive constraint's μ is 0
		}, "residuals", ""},
		{"np μ negative", "table1", "breast-cancer-wisc-n3-t00", np, func(m map[string]any) {
			mu := alg(m, "alg1")["mu"].([]any)[2].([]any)
			mu[0] = -1.0
		}, "dual cone", ""},
		{"np μ block dropped", "table1", "breast-cancer-wisc-n3-t00", np, func(m map[string]any) {
			a := alg(m, "alg1")
			a["mu"] = a["mu"].([]any)[:2]
		}, "multiplier blocks", ""},
		{"np a client's loss lowered", "table1", "breast-cancer-wisc-n3-t00", np, func(m map[string]any) {
			l := alg(m, "alg1")["loss1"].([]any)
			l[1] = scale(l[1], 0.9)
		}, "loss1[1]", ""},
		{"np status promoted with its residuals", "table1", "breast-cancer-wisc-n3-t00", np, func(m map[string]any) {
			a := alg(m, "cprox")
			a["status"], a["test_status"] = "Converged", "Converged"
			a["kkt_residuals"] = map[string]any{"stationarity": 1e-4, "feasibility": 1e-4}
		}, "residuals", ""},
		{"fair honest", "table2", "adult-b-n2-t00", fair, nil, "", "the status against the stored inner cap"},
		{"fair w edited", "table2", "adult-b-n2-t00", fair, func(m map[string]any) {
			w := alg(m, "cprox")["w"].([]any)
			w[3] = scale(w[3], 1.01)
		}, "cProx-AL", ""},
		{"fair server μ edited", "table2", "adult-b-n2-t00", fair, func(m map[string]any) {
			mu := alg(m, "alg1")["mu"].([]any)[0].([]any)
			mu[0], mu[1] = scale(mu[0], 1)+0.5, scale(mu[1], 1)+0.5
		}, "residuals", ""},
		{"fair objective and losses scaled together", "table2", "adult-b-n2-t00", fair, func(m map[string]any) {
			a := alg(m, "alg1")
			for i, l := range a["loss0"].([]any) {
				a["loss0"].([]any)[i] = scale(l, 0.5)
			}
			a["objective"] = scale(a["objective"], 0.5)
		}, "loss0[0]", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeClassRun(t, dir, c.table, c.cfg, dirs, nil)
			if c.edit != nil {
				editJSON(t, filepath.Join(dir, "trials", c.trial+".json"), func(m map[string]any) { c.edit(m) })
				writeClassRun(t, dir, c.table, c.cfg, dirs, nil) // the forger's rebuild from the edited trial
			}
			b, err := os.ReadFile(filepath.Join(dir, c.table+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var failed []string
			cert, detail := false, ""
			for _, r := range experiments.VerifyResult(dir, c.table, b, dirs) {
				if r.Rule == "certificate recomputed" {
					cert, detail = true, r.Detail
				}
				if !r.Pass {
					failed = append(failed, r.Rule+": "+r.Detail)
				}
			}
			switch {
			case !cert:
				t.Fatalf("no certificate rule")
			case c.fail == "" && len(failed) > 0:
				t.Fatalf("honest run fails the gate: %v", failed)
			case c.fail != "" && !certFailed(failed, c.fail):
				t.Fatalf("failed %v, want the certificate rule naming %q", failed, c.fail)
			case c.note != "" && !strings.Contains(detail, c.note):
				t.Fatalf("certificate rule %q does not say %q", detail, c.note)
			}
		})
	}
}

// certFailed reports whether the certificate rule failed naming what.
func certFailed(failed []string, what string) bool {
	for _, f := range failed {
		if strings.HasPrefix(f, "certificate recomputed") && strings.Contains(f, what) {
			return true
		}
	}
	return false
}

// TestClassTrialSchema: a class trial file of the format before w and μ
// were stored is refused with one line asking for a rerun; so is a QP
// (Table 4) trial file.
func TestClassTrialSchema(t *testing.T) {
	for _, c := range []struct {
		name   string
		schema int
		v      any
		err    string // "" for accepted as far as the schema goes
	}{
		{"class schema 3", 3, &ClassTrial{}, "trial schema 3, want 4 (written by an older fedcon): rerun the experiment"},
		{"class no schema", 0, &ClassTrial{}, "no trial schema (an older format), want schema 4: rerun the experiment"},
		{"class schema 5", 5, &ClassTrial{}, "trial schema 5, want 4"},
		{"qp schema 3", 3, &QPTrial{}, "trial schema 3, want 4 (written by an older fedcon): rerun the experiment"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := []byte(`{"schema": ` + strconv.Itoa(c.schema) + `, "config_hash": "0123456789abcdef", "fedcon_version": "x", "key": "k", "seed": 1, "trial": {}}`)
			_, err := experiments.DecodeTrial(b, "k", "0123456789abcdef", c.v)
			if err == nil || err.Error() != c.err {
				t.Fatalf("err %v, want %q", err, c.err)
			}
		})
	}
}

// TestGenericPointCheck: a `run np` directory, which has no reference
// file, gets the recomputed certificate among its generic rules: it passes
// honest, fails with a forged w (the result rebuilt from the forged trial
// file), and asks for a rerun of a result an older fedcon wrote without w.
func TestGenericPointCheck(t *testing.T) {
	dirs := dataDirs(t)
	np := &NPConfig{TrialConfig: experiments.TrialConfig{Seed: 2, Trials: 1, RNG: "fedcon"}, Datasets: []string{"breast-cancer-wisc"}, Clients: []int{2}, R: 0.2, ADMMStart: "wk",
		ALConfig: ALConfig{MethodConfig: MethodConfig{Beta: 300, SBar: 1e-3, Rho: 0.01, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3, MaxOuter: 30, MaxInner: 100, InnerTest: solver.InnerTestPaper}, Subsolver: "newton", RhoRule: solver.RhoFixed, Relax: 1}}
	for _, mode := range []string{"honest", "forged", "old"} {
		forge := mode != "honest"
		dir := filepath.Join(t.TempDir(), "np-breast-cancer-wisc-n2")
		writeClassRun(t, dir, "np-breast-cancer-wisc-n2", np, dirs, nil)
		switch mode {
		case "old": // as an older fedcon wrote it: schema 3, no w, no mu
			strip := func(tr map[string]any) {
				for _, a := range []string{"alg1", "cprox"} {
					delete(tr[a].(map[string]any), "w")
					delete(tr[a].(map[string]any), "mu")
				}
			}
			editJSON(t, filepath.Join(dir, "trials", "breast-cancer-wisc-n2-t00.json"), func(m map[string]any) {
				m["schema"] = 3.0
				strip(trialOf(m))
			})
			editJSON(t, filepath.Join(dir, "np-breast-cancer-wisc-n2.json"), func(m map[string]any) {
				strip(m["trials"].([]any)[0].(map[string]any))
			})
		case "forged":
			editJSON(t, filepath.Join(dir, "trials", "breast-cancer-wisc-n2-t00.json"), func(m map[string]any) {
				w := alg(m, "cprox")["w"].([]any)
				w[1] = w[1].(float64) - 1e-3
			})
			writeClassRun(t, dir, "np-breast-cancer-wisc-n2", np, dirs, nil)
		}
		f := experiments.Found{Name: "np-breast-cancer-wisc-n2", Dir: dir, Result: "np-breast-cancer-wisc-n2.json", Manifest: "manifest.json"}
		cert, failed := certificateRow(experiments.GenericCheck(f, experiments.GateOptions{DataDirs: dirs}))
		switch {
		case cert == nil:
			t.Fatalf("%s: no certificate rule among the generic rules", mode)
		case !forge && len(failed) > 0:
			t.Fatalf("honest run fails: %v", failed)
		case forge && (cert.Pass || len(failed) != 1):
			t.Fatalf("%s: failed %v, want only the certificate rule", mode, failed)
		case mode == "old" && !strings.Contains(cert.Detail, "rerun the experiment"):
			t.Fatalf("old result: %q does not ask for a rerun", cert.Detail)
		}
	}
}

// TestRecheckAgreesWithQP: at random points of a drawn Table 4 instance,
// recheck's QP party gives problems' values, gradients and constraints.
func TestRecheckAgreesWithQP(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 11))
	const d, n, m = 12, 3, 2
	inst, err := problems.NewLCQP(rng, d, n, m)
	if err != nil {
		t.Fatal(err)
	}
	for trial := range 10 {
		w := make([]float64, d)
		for j := range w {
			w[j] = 2 * rng.NormFloat64()
		}
		for i, cl := range append([]*problems.QPParty{inst.Server}, inst.Clients...) {
			var a, c [][]float64
			if cl.A != nil {
				a = denseRows(cl.A)
			}
			if cl.C != nil {
				c = denseRows(cl.C)
			}
			re := recheck.QP(a, cl.B, c, cl.D, w)
			grad, cv, jac := make([]float64, d), make([]float64, m), make([]float64, m*d)
			f := cl.Eval(w, grad, cv, jac)
			if !near(f, re.F, f) {
				t.Errorf("trial %d party %d: f %.17g, recheck %.17g", trial, i, f, re.F)
			}
			for j := range d {
				if !near(grad[j], re.Grad[j], grad[j]) {
					t.Errorf("trial %d party %d: ∇f[%d] %.17g, recheck %.17g", trial, i, j, grad[j], re.Grad[j])
				}
				for k := range m {
					if jac[k*d+j] != re.Jac[k][j] {
						t.Errorf("trial %d party %d: ∇c%d[%d] %.17g, recheck %.17g", trial, i, k, j, jac[k*d+j], re.Jac[k][j])
					}
				}
			}
			for k := range m {
				if !near(cv[k], re.C[k], cv[k]) {
					t.Errorf("trial %d party %d: c%d %.17g, recheck %.17g", trial, i, k, cv[k], re.C[k])
				}
			}
		}
	}
}

// TestGenericQPPointCheck: a QP result checked by the generic rules (as
// `run qp` is) gets the recomputed certificate: honest it passes, with a
// forged μ (result rebuilt from the forged trial file) it fails alone.
func TestGenericQPPointCheck(t *testing.T) {
	cfg := gateQP()
	for _, forge := range []bool{false, true} {
		dir := t.TempDir()
		writeQPRun(t, dir, cfg)
		if forge {
			editJSON(t, filepath.Join(dir, "trials", "n2-d16-m2-t01.json"), func(m map[string]any) {
				mu := alg(m, "alg1")["mu"].([]any)[2].([]any)
				mu[1] = mu[1].(float64) - 1e-3
			})
			writeQPRun(t, dir, cfg)
		}
		f := experiments.Found{Name: "qp", Dir: dir, Result: "table4.json", Manifest: "manifest.json"}
		cert, failed := certificateRow(experiments.GenericCheck(f, experiments.GateOptions{}))
		switch {
		case cert == nil:
			t.Fatalf("forged %v: no certificate rule among the generic rules", forge)
		case !forge && len(failed) > 0:
			t.Fatalf("honest run fails: %v", failed)
		case forge && (cert.Pass || len(failed) != 1 || !strings.Contains(cert.Detail, "n=2 d=16 m=2 trial 1 Algorithm 1")):
			t.Fatalf("forged μ: failed %v, want only the certificate rule naming the trial", failed)
		}
	}
}

// certificateRow picks the "certificate recomputed" row out of a generic
// check and lists every failing row.
func certificateRow(rows []experiments.CheckRow) (cert *experiments.CheckRow, failed []string) {
	for _, r := range rows {
		if r.Rule == "certificate recomputed" {
			cert = &r
		}
		if !r.Pass {
			failed = append(failed, r.Rule+": "+r.Detail)
		}
	}
	return cert, failed
}

// TestEqQPAgreesWithExactKKT: the gate's independent optimum (recheck.EqQP,
// range-space Cholesky) and the run's (problems.LCQP.ExactKKT, LU of the
// KKT matrix) agree on Table 4 cells of both RNGs far within solveAgree,
// the bound the gate states for them.
func TestEqQPAgreesWithExactKKT(t *testing.T) {
	cells := [][3]int{{1, 100, 1}, {5, 100, 1}, {10, 300, 3}}
	if !testing.Short() {
		cells = append(cells, [3]int{10, 500, 5})
	}
	for _, rng := range []experiments.RNG{"fedcon", "numpy"} {
		for _, c := range cells {
			cfg := &QPConfig{TrialConfig: experiments.TrialConfig{Seed: 1, RNG: rng}}
			inst, err := QPInstance(cfg, c[0], c[1], c[2])
			if err != nil {
				t.Fatal(err)
			}
			ws, nus, fs, err := inst.ExactKKT()
			if err != nil {
				t.Fatal(err)
			}
			cfg.Cells = [][]int{c[:]}
			vc := experiments.VerifyCell{Key: "k", N: c[0], D: c[1], M: c[2]}
			qc := qpCells(cfg, []experiments.VerifyCell{vc}, map[string][]QPTrial{"k": {{}}})["k"]
			if qc.err != nil {
				t.Fatal(qc.err)
			}
			var dw, wmax, nu1 float64
			for j := range ws {
				dw, wmax = math.Max(dw, math.Abs(ws[j]-qc.wstar[j])), math.Max(wmax, math.Abs(ws[j]))
			}
			for _, x := range nus {
				nu1 += math.Abs(x)
			}
			// A factor of 100 inside the bound: measured 2e-15 in w*, 5e-16 in f* and ||ν*||₁.
			for _, e := range []struct {
				what     string
				diff, to float64
			}{{"w*", dw, 1 + wmax}, {"f*", math.Abs(fs - qc.fstar), 1 + qc.fScale}, {"||ν*||₁", math.Abs(nu1 - qc.nu1), 1 + nu1}} {
				if e.diff > solveAgree/100*e.to {
					t.Errorf("%s %v: %s differs by %.3g, above solveAgree/100 × %.3g", rng, c, e.what, e.diff, e.to)
				}
			}
		}
	}
}

// TestGateSwappedData: a results directory checked against data files other
// than those it was run on fails the recomputed certificate, naming the
// stored identity of the data: the pinned SHA-256 of a built-in data set's
// file, or the data.sha256 that a run on a user's file records. An
// unmodified copy of the same files passes.
func TestGateSwappedData(t *testing.T) {
	dirs := dataDirs(t)
	mc := MethodConfig{Beta: 300, SBar: 1e-3, Rho: 0.01, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3, MaxOuter: 30, MaxInner: 100, InnerTest: solver.InnerTestPaper}
	const bcw = "breast-cancer-wisconsin/breast-cancer-wisconsin.data"
	// A user's file: the built-in rows as CSV with a header, label last.
	raw, err := os.ReadFile(filepath.Join(dirs[0], bcw))
	if err != nil {
		t.Fatal(err)
	}
	var csv strings.Builder
	csv.WriteString("id,a1,a2,a3,a4,a5,a6,a7,a8,a9,y\n")
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if !strings.Contains(l, "?") {
			csv.WriteString(l + "\n")
		}
	}
	// swap edits one feature of the first data row: 5 -> 6.
	swap := func(t *testing.T, p string) {
		editText(t, p, func(s string) string { return strings.Replace(s, "1000025,5,", "1000025,6,", 1) })
	}
	for _, c := range []struct {
		name string
		own  bool
		edit bool
		fail string // in the certificate rule's detail; "" for an unmodified copy
	}{
		{"built-in copy", false, false, ""},
		{"built-in file edited", false, true, "sha-256"},
		{"own file unchanged", true, false, ""},
		{"own file edited", true, true, "data.sha256"},
	} {
		t.Run(c.name, func(t *testing.T) {
			np := &NPConfig{TrialConfig: experiments.TrialConfig{Seed: 2, Trials: 1, RNG: "fedcon"}, Clients: []int{3}, R: 0.2, ADMMStart: "wk",
				ALConfig: ALConfig{MethodConfig: mc, Subsolver: "newton", RhoRule: solver.RhoFixed, Relax: 1}}
			data := t.TempDir()
			name, file := "table1", filepath.Join(data, bcw)
			if c.own {
				name, file = "np-own", filepath.Join(data, "own.csv")
				np.Data = &DataSource{File: file, Partition: "iid"}
				np.Data.Label = "y"
				np.Data.Drop = []string{"id"}
				if err := os.WriteFile(file, []byte(csv.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				np.Datasets = []string{"breast-cancer-wisc"}
				copyDir(t, filepath.Join(dirs[0], filepath.Dir(bcw)), filepath.Dir(file))
			}
			dir := filepath.Join(t.TempDir(), name)
			writeClassRun(t, dir, name, np, []string{data}, nil)
			if c.edit {
				swap(t, file)
			}
			b, err := os.ReadFile(filepath.Join(dir, name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var rows []experiments.CheckRow
			if c.own { // no reference file: the generic rules
				rows = experiments.GenericCheck(experiments.Found{Name: name, Dir: dir, Result: name + ".json", Manifest: "manifest.json"}, experiments.GateOptions{DataDirs: []string{data}})
			} else {
				rows = experiments.VerifyResult(dir, name, b, []string{data})
			}
			cert, failed := certificateRow(rows)
			switch {
			case cert == nil:
				t.Fatal("no certificate rule")
			case c.fail == "" && len(failed) > 0:
				t.Fatalf("the unmodified data fail the gate: %v", failed)
			case c.fail != "" && !certFailed(failed, c.fail):
				t.Fatalf("failed %v, want the certificate rule naming %q", failed, c.fail)
			}
		})
	}
}
