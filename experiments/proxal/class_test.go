package proxal

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/solver"
)

func dataDirs(t *testing.T) []string {
	t.Helper()
	dir := os.Getenv("FEDCON_DATA_DIR")
	if dir == "" {
		t.Skip("FEDCON_DATA_DIR not set: real-data test skipped")
	}
	return []string{dir}
}

func stripClassWall(t *testing.T, trials []ClassTrial) string {
	t.Helper()
	for i := range trials {
		for _, a := range []*ClassAlg{&trials[i].Alg1, &trials[i].CProx} {
			a.Wall, a.Stats.Runtime = 0, 0
		}
	}
	b, err := json.Marshal(trials)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestClassDeterministic: NP and fairness runs are pure functions of the
// config and seed, whatever the worker count; terminated runs are feasible.
func TestClassDeterministic(t *testing.T) {
	dirs := dataDirs(t)
	np := &NPConfig{TrialConfig: experiments.TrialConfig{Seed: 2, Trials: 2, RNG: "fedcon"}, Datasets: []string{"breast-cancer-wisc"}, Clients: []int{3}, R: 0.2, ADMMStart: "wk",
		ALConfig: ALConfig{MethodConfig: MethodConfig{Beta: 300, SBar: 1e-3, Rho: 0.01, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3, MaxOuter: 100, MaxInner: 300, InnerTest: solver.InnerTestPaper}, Subsolver: "newton", RhoRule: solver.RhoFixed, Relax: 1}}
	var ref string
	for _, w := range []int{1, 2} {
		r, err := RunNP(context.Background(), np, dirs, experiments.RunOptions{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if got := stripClassWall(t, r.Trials); ref == "" {
			ref = got
		} else if got != ref {
			t.Fatal("NP results depend on the worker count")
		}
		for _, tr := range r.Trials {
			// Converged runs are (ε1, ε2)-optimal: class-1 loss <= r + ε2.
			if experiments.MaxOf(tr.Alg1.Loss1) > np.R+np.Eps2 || experiments.MaxOf(tr.CProx.Loss1) > np.R+np.Eps2 {
				t.Errorf("infeasible NP trial %+v", tr)
			}
		}
	}
	fair := &FairConfig{TrialConfig: experiments.TrialConfig{Seed: 2, Trials: 2, RNG: "numpy"}, Dataset: "adult-b", Clients: []int{2}, R: 0.1,
		ALConfig: ALConfig{MethodConfig: MethodConfig{Beta: 50, SBar: 0.01, Rho: 0.1, Q: 0.9, EpsFloor: 1e-10, Eps1: 1e-3, Eps2: 1e-3, MaxOuter: 3, MaxInner: 5, InnerTest: solver.InnerTestPaper}, Subsolver: "newton", RhoRule: solver.RhoFixed, Relax: 1}}
	ref = ""
	for _, w := range []int{1, 2} {
		r, err := RunFair(context.Background(), fair, dirs, experiments.RunOptions{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if got := stripClassWall(t, r.Trials); ref == "" {
			ref = got
		} else if got != ref {
			t.Fatal("fairness results depend on the worker count")
		}
	}
}

// TestMonksNewtonRegression pins a divergence once seen: cProx-AL with
// Newton on monks-1 (rank-deficient one-hot design), n = 5, trial 8,
// accepted steps on gradient-norm decrease alone and ran off along the
// logistic's linear tail (stationarity 7e9). It must converge.
func TestMonksNewtonRegression(t *testing.T) {
	dirs := dataDirs(t)
	cfg := &NPConfig{TrialConfig: experiments.TrialConfig{Seed: 1, Trials: 10, RNG: "fedcon"}, Datasets: []string{"monks-1"}, Clients: []int{5}, R: 0.2, ADMMStart: "wk",
		ALConfig: ALConfig{MethodConfig: MethodConfig{Beta: 300, SBar: 1e-3, Rho: 0.01, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3, MaxOuter: 100, MaxInner: 300, InnerTest: solver.InnerTestPaper}, Subsolver: "newton", RhoRule: solver.RhoFixed, Relax: 1}}
	ds, err := datasets.Load("monks-1", dirs)
	if err != nil {
		t.Fatal(err)
	}
	cell, err := buildNPCell(ds, "monks-1", 5, cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, cp := cfg.Methods()
	res, err := solver.Solve(context.Background(), npProblem(cell), experiments.TrialStart("fedcon", 1, 8, cell.d), cfg.Settings(1), cp)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.Converged || res.Residuals.Stationarity > 1e-3 || res.Residuals.Feasibility > 1e-3 {
		t.Fatalf("cProx-AL: %v, residuals %+v", res.Status, res.Residuals)
	}
}
