package proxal

import (
	"context"
	"testing"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/internal/testutil"
	"github.com/fedcon/fedcon/solver"
)

// TestConicTable3ManyClients: conic Table 3's preset (configs/conic-table3.yaml)
// at n = 40 and 50 clients, cProx-AL (the outer loop alone, Algorithm 2
// out of the way). There the proximal AL iteration creeps (about 30 of
// 102 constraints active, the active set changing from step to step):
// the plain iteration needs 106 and 323 outer iterations, the relaxed one
// more than the cap of 100. The polish tried where the iteration stalls
// must end the run certified before the cap, the run's own test
// Converged, and the certificate must hold when Definition 1's residuals
// are recomputed from the raw rows (recheck, independent of the solver).
func TestConicTable3ManyClients(t *testing.T) {
	testutil.Slow(t)
	dirs := dataDirs(t)
	ds, err := datasets.Load("adult-b", dirs)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{40, 50} {
		cfg := &FairConfig{TrialConfig: experiments.TrialConfig{Seed: 1, Trials: 1, RNG: "fedcon"}, Dataset: "adult-b", Clients: []int{n}, R: 0.01, W0: "zeros",
			ALConfig: ALConfig{MethodConfig: MethodConfig{Beta: 10, SBar: 1e-3, Rho: 1e8, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3, MaxOuter: 100, MaxInner: 300,
				InnerTest: solver.InnerTestMeasured, OuterRelax: 1.9, Polish: true}, Subsolver: "newton", RhoRule: solver.RhoHessian, MetricShift: 0.01, Relax: 1, EpsRel: 0.1}}
		cell, err := buildFairCell(ds, n, cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, cp := cfg.Methods()
		r, err := solver.Solve(context.Background(), cell.problem(), make([]float64, cell.d), cfg.Settings(1), cp)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != solver.Converged || r.Test != solver.Converged || !r.Polished || r.Stats.OuterIterations >= cfg.MaxOuter {
			t.Errorf("n = %d: %v (own test %v, polished %v) after %d outer iterations, residuals %+v",
				n, r.Status, r.Test, r.Polished, r.Stats.OuterIterations, r.Residuals)
		}
		a := &ClassAlg{Status: r.Status, Residuals: r.Residuals, W: r.W, Mu: r.Mu, InnerCapped: new(r.LastCapped())}
		a.Loss1 = append(a.Loss1, cell.server.Disparity(r.W))
		for _, c := range cell.clients {
			a.Loss0 = append(a.Loss0, c.Loss(r.W))
			a.Loss1 = append(a.Loss1, c.Disparity(r.W))
		}
		a.Objective = experiments.MeanStdOf(a.Loss0).Mean
		pc, err := fairPoints(cfg, dirs)(experiments.VerifyCell{N: n})
		if err != nil {
			t.Fatal(err)
		}
		if msg := recheckAlg(pc, a, [2]float64{cfg.Eps1, cfg.Eps2}); msg != "" {
			t.Errorf("n = %d: recomputed from the rows: %s", n, msg)
		}
	}
}

// TestPolishedTraceEndsAtReturnedPoint: conic Table 3's preset at n = 5,
// whose runs end at a polished point. The figures' trace then ends with
// that point: one more than the outer iterations, its losses those of the
// returned w (within r + ε2 where the last outer iterate need not be).
func TestPolishedTraceEndsAtReturnedPoint(t *testing.T) {
	dirs := dataDirs(t)
	ds, err := datasets.Load("adult-b", dirs)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &FairConfig{TrialConfig: experiments.TrialConfig{Seed: 1, Trials: 1, RNG: "fedcon"}, Dataset: "adult-b", Clients: []int{5}, R: 0.01, W0: "zeros",
		ALConfig: ALConfig{MethodConfig: MethodConfig{Beta: 10, SBar: 1e-3, Rho: 1e8, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3, MaxOuter: 100, MaxInner: 300,
			InnerTest: solver.InnerTestMeasured, OuterRelax: 1.9, Polish: true}, Subsolver: "newton", RhoRule: solver.RhoHessian, MetricShift: 0.01, Relax: 1, EpsRel: 0.1}}
	cell, err := buildFairCell(ds, 5, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := fairTrial(context.Background(), cfg, cell, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		a    ClassAlg
	}{{"Algorithm 1", tr.Alg1}, {"cProx-AL", tr.CProx}} {
		a := c.a
		if a.Status != solver.Converged || len(a.Trace) != a.Stats.OuterIterations+1 {
			t.Fatalf("%s: %v, %d trace points for %d outer iterations: want a polished run's extra point", c.name, a.Status, len(a.Trace), a.Stats.OuterIterations)
		}
		last := a.Trace[len(a.Trace)-1]
		for i := range a.Loss1 {
			if last.Loss1[i] != a.Loss1[i] || last.Loss1[i] > cfg.R+cfg.Eps2 {
				t.Errorf("%s: last trace point's disparity %d = %g, the returned point's %g (r + ε2 = %g)", c.name, i, last.Loss1[i], a.Loss1[i], cfg.R+cfg.Eps2)
			}
		}
		for i := range a.Loss0 {
			if last.Loss0[i] != a.Loss0[i] {
				t.Errorf("%s: last trace point's loss %d = %g, the returned point's %g", c.name, i, last.Loss0[i], a.Loss0[i])
			}
		}
	}
}
