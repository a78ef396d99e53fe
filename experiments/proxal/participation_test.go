package proxal

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/solver"
)

// participationNPConfig is the Table 1 preset (configs/table1.yaml) on
// breast-cancer-wisc, one trial.
func participationNPConfig(n int) *NPConfig {
	return &NPConfig{TrialConfig: experiments.TrialConfig{Seed: 1, Trials: 1, RNG: "fedcon"}, Datasets: []string{"breast-cancer-wisc"}, Clients: []int{n}, R: 0.2, ADMMStart: "wk",
		ALConfig: ALConfig{MethodConfig: MethodConfig{Beta: 300, SBar: 1e-3, Rho: 0.01, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3, MaxOuter: 100, MaxInner: 300,
			InnerTest: solver.InnerTestMeasured, OuterRelax: 1.9, Polish: true}, Subsolver: "newton", RhoRule: solver.RhoHessian, MetricShift: 0.01, Relax: 1, EpsRel: 0.1}}
}

// TestParticipationNP: on partitioned breast-cancer-wisc (n = 5, the
// Table 1 preset), Algorithm 1 with partial participation, with and
// without drops, ends certified at the optimum of full participation:
// Converged, every client's class-1 loss within r + ε2, the objective
// within ε1 of full participation's, and the trial file records one
// participation mask per round.
func TestParticipationNP(t *testing.T) {
	dirs := dataDirs(t)
	ds, err := datasets.Load("breast-cancer-wisc", dirs)
	if err != nil {
		t.Fatal(err)
	}
	const n = 5
	var full ClassTrial
	for _, c := range []struct {
		name           string
		fraction, drop float64
		weighted       bool
	}{{"full", 1, 0, false}, {"half", 0.5, 0, false}, {"fifth", 0.2, 0, false}, {"half-drop0.1", 0.5, 0.1, false},
		{"fifth-drop0.1", 0.2, 0.1, false}, {"fifth-weighted-drop0.1", 0.2, 0.1, true}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := participationNPConfig(n)
			cfg.Participation, cfg.DropProb = &c.fraction, c.drop
			if c.weighted {
				cfg.ParticipationSampling = "weighted"
			}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			cell, err := buildNPCell(ds, "breast-cancer-wisc", n, cfg)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := npTrial(context.Background(), cfg, cell, 0, 1, false)
			if err != nil {
				t.Fatal(err)
			}
			a := tr.Alg1
			if a.Status != solver.Converged || a.Residuals.Stationarity > cfg.Eps1 || a.Residuals.Feasibility > cfg.Eps2 {
				t.Fatalf("status %v, residuals %+v", a.Status, a.Residuals)
			}
			for i, l := range a.Loss1 {
				if l > cfg.R+cfg.Eps2 {
					t.Errorf("client %d: class-1 loss %.5f > r + ε2", i+1, l)
				}
			}
			p := a.Participation
			if c.fraction == 1 {
				if p != nil {
					t.Fatalf("full participation recorded %+v", p)
				}
				full = tr
				return
			}
			if p == nil || len(p.Answered) != 2*a.Stats.Rounds || p.PartialRounds == 0 { // ⌈5/4⌉ digits a round
				t.Fatalf("participation log %+v for %d rounds", p, a.Stats.Rounds)
			}
			// Both points are (ε1, ε2)-KKT points of the same convex problem;
			// their objectives agree to ε1 (0.047 here, measured gaps ~2e-5).
			if d := math.Abs(a.Objective - full.Alg1.Objective); d > cfg.Eps1 {
				t.Errorf("objective %.6f, full participation %.6f", a.Objective, full.Alg1.Objective)
			}
			t.Logf("%d rounds (%d partial, %d retries), %d passes; full participation %d rounds, %d passes",
				a.Stats.Rounds, p.PartialRounds, p.RetryRounds, a.Stats.Evaluations, full.Alg1.Stats.Rounds, full.Alg1.Stats.Evaluations)
		})
	}
}

// TestParticipationKeys: bad values are ConfigErrors naming the key, and
// participation 1 is the paper: the same trial hash as the key unset.
func TestParticipationKeys(t *testing.T) {
	for _, c := range []struct {
		key  string
		edit func(*NPConfig)
	}{
		{"participation", func(c *NPConfig) { v := 0.0; c.Participation = &v }},
		{"participation", func(c *NPConfig) { v := 1.5; c.Participation = &v }},
		{"participation", func(c *NPConfig) { v := -0.2; c.Participation = &v }},
		{"drop_prob", func(c *NPConfig) { c.DropProb = 1 }},
		{"drop_prob", func(c *NPConfig) { c.DropProb = -0.1 }},
		{"participation_sampling", func(c *NPConfig) { c.ParticipationSampling = "rows" }},
	} {
		cfg := participationNPConfig(5)
		c.edit(cfg)
		var ce *experiments.ConfigError
		if err := cfg.Validate(); !errors.As(err, &ce) || ce.Field != c.key {
			t.Errorf("%s: error %v, want a ConfigError naming it", c.key, err)
		}
	}
	unset := participationNPConfig(5)
	one := participationNPConfig(5)
	v := 1.0
	one.Participation, one.ParticipationSampling = &v, "weighted"
	for _, c := range []*NPConfig{unset, one} {
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
	}
	if unset.TrialHash() != one.TrialHash() || one.Partial() {
		t.Fatalf("participation 1 hashes as %s, unset as %s", one.TrialHash(), unset.TrialHash())
	}
}

// TestParticipationWorkers: the participation draws come from the run's
// seed alone, so a run with partial participation and drops is the same
// for any number of workers, and so is its record of who answered.
func TestParticipationWorkers(t *testing.T) {
	dirs := dataDirs(t)
	cfg := participationNPConfig(5)
	cfg.Trials = 2
	f := 0.2
	cfg.Participation, cfg.DropProb = &f, 0.1
	var ref string
	for _, workers := range []int{1, 3} {
		res, err := RunNP(context.Background(), cfg, dirs, experiments.RunOptions{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range res.Trials {
			if tr.Alg1.Participation == nil || tr.Alg1.Status != solver.Converged {
				t.Fatalf("trial %d: status %v, participation %v", tr.Trial, tr.Alg1.Status, tr.Alg1.Participation)
			}
		}
		got := stripClassWall(t, res.Trials)
		if ref == "" {
			ref = got
		} else if got != ref {
			t.Fatalf("workers=%d: trials differ from workers=1", workers)
		}
	}
}
