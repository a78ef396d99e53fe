package conic

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/proxal"
	"github.com/fedcon/fedcon/solver"
)

// conicCheckRun runs the paper's cell (d, n, m̃) = (100, 1, 1) with its
// Section 5.1 settings: two instances, a few milliseconds each.
func conicCheckRun(t *testing.T) *QPResult {
	t.Helper()
	cfg := smallConicConfig()
	cfg.Seed, cfg.Cells = 1, [][]int{{100, 1, 1}}
	res, err := RunQP(context.Background(), cfg, experiments.RunOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	res.Info = experiments.NewRunInfo("conic-table1", "test", cfg, 2)
	return res
}

// failedRules runs check on v's JSON and returns the rules that failed.
func failedRules(t *testing.T, v any, check func([]byte) ([]experiments.CheckRow, error)) []string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := check(b)
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, r := range rows {
		if !r.Pass {
			failed = append(failed, r.Rule)
		}
	}
	slices.Sort(failed)
	return slices.Compact(failed)
}

// TestCheckConicTable1Rules: a real run of one paper cell passes every rule
// of configs/reference/conic-table1.yaml; each kind of damage fails exactly
// the rule that guards against it.
func TestCheckConicTable1Rules(t *testing.T) {
	clean := conicCheckRun(t)
	b, _ := json.Marshal(clean)
	for _, tc := range []struct {
		name   string
		fail   []string
		damage func(r *QPResult)
	}{
		{"clean", nil, func(*QPResult) {}},
		{"capped", []string{"status Alg. 1"}, func(r *QPResult) { r.Trials[1].Alg1.Status = solver.InnerIterationLimit }},
		{"stationarity", []string{"kkt stationarity cProx-AL"}, func(r *QPResult) { r.Trials[0].CProx.Residuals.Stationarity = 2e-3 }},
		{"infeasible", []string{"feasibility violation Alg. 1"}, func(r *QPResult) { r.Trials[0].Alg1.Violation = 5e-3 }},
		// 0.2 apart at f ≈ -7: 3e-2 after scaling, above 5e-3; the
		// instance's exact f* sees the change too.
		{"disagree", []string{"objective agreement", "objective vs exact f* cProx-AL"}, func(r *QPResult) { r.Trials[1].CProx.Objective += 0.2 }},
		// The paper's 5.6 / 5.0 outer iterations; 12 is a factor 2.1 off.
		{"outer", []string{"outer iterations vs paper Alg. 1"}, func(r *QPResult) { r.Rows[0].Outer1.Mean = 12 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r QPResult
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			r.Info = clean.Info
			tc.damage(&r)
			if got := failedRules(t, &r, CheckTable1); !slices.Equal(got, tc.fail) {
				t.Errorf("failed rules %v, want %v", got, tc.fail)
			}
		})
	}
}

// TestConicTable1Optimum: a real run's objectives lie within their KKT
// bands of the instances' exact f*, and the rule passes them; an objective,
// f* or band forged past the band fails it, an objective moved within its
// band passes.
func TestConicTable1Optimum(t *testing.T) {
	clean := conicCheckRun(t)
	for _, tr := range clean.Trials {
		for _, a := range []proxal.QPAlg{tr.Alg1, tr.CProx} {
			if !tr.Exact || a.ObjBand <= 0 || math.Abs(a.Objective-tr.FStar) > a.ObjBand {
				t.Fatalf("trial %d: |f - f*| = %.3g, band %.3g (exact %v)", tr.Trial, math.Abs(a.Objective-tr.FStar), a.ObjBand, tr.Exact)
			}
		}
	}
	b, _ := json.Marshal(clean)
	band := clean.Trials[0].Alg1.ObjBand
	for _, tc := range []struct {
		name   string
		fail   []string
		damage func(r *QPResult)
	}{
		{"clean", nil, func(*QPResult) {}},
		{"objective within half its band", nil, func(r *QPResult) {
			r.Trials[0].Alg1.Objective = r.Trials[0].FStar + 0.5*band
		}},
		{"objective 2 bands off", []string{"objective vs exact f* Alg. 1"}, func(r *QPResult) { r.Trials[0].Alg1.Objective = r.Trials[0].FStar + 2*band }},
		// f* is the instance's: both algorithms are measured against it.
		{"f* edited", []string{"objective vs exact f* Alg. 1", "objective vs exact f* cProx-AL"}, func(r *QPResult) { r.Trials[0].FStar = r.Trials[0].Alg1.Objective - 2*band }},
		{"band zeroed", []string{"objective vs exact f* Alg. 1"}, func(r *QPResult) {
			r.Trials[0].Alg1.ObjBand, r.Trials[0].Alg1.Objective = 0, r.Trials[0].FStar+1e-9
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r QPResult
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			r.Info = clean.Info
			tc.damage(&r)
			if got := failedRules(t, &r, CheckTable1); !slices.Equal(got, tc.fail) {
				t.Errorf("failed rules %v, want %v", got, tc.fail)
			}
		})
	}
}

// conicClassFixture is a two-trial conic Table 2 (or 3) result that passes
// every rule; the fairness one has adult-b and r = 0.01.
func conicClassFixture(fair bool) *ClassResult {
	np := npFixture()
	res := &ClassResult{Info: np.Info, Table: "table2", Rows: np.Rows, Trials: np.Trials}
	if fair {
		cfg := &proxal.FairConfig{TrialConfig: experiments.TrialConfig{Seed: 1, Trials: 2, RNG: "fedcon"}, Dataset: "adult-b", Clients: []int{2}, R: 0.01,
			W0: "zeros", ALConfig: np.Info.Config.(*proxal.NPConfig).ALConfig}
		for i := range res.Trials {
			tr := &res.Trials[i]
			tr.Dataset = "adult-b"
			tr.Alg1.Loss1 = []float64{0, 0, 0}
			tr.CProx.Loss1 = []float64{0.01, 0.008, 0.0105}
		}
		res.Rows = []proxal.ClassRow{proxal.ClassRowOf("adult-b", 2, res.Trials, cfg.R, cfg.Eps1, cfg.Eps2)}
		res.Info, res.Table = &experiments.RunInfo{Config: cfg}, "table3"
	}
	return res
}

// TestCheckConicClassRules: the fixtures pass configs/reference/conic-table2
// and conic-table3; each kind of damage fails the rule guarding against it.
func TestCheckConicClassRules(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fair     bool
		failRule string
		damage   func(r *ClassResult)
	}{
		{"np clean", false, "", func(*ClassResult) {}},
		{"np cprox capped", false, "status cProx-AL", func(r *ClassResult) { r.Trials[0].CProx.Status = solver.OuterIterationLimit }},
		{"np infeasible", false, "max constraint value Alg. 1", func(r *ClassResult) { r.Trials[1].Alg1.Loss1[0] = 0.21 }},
		{"np kkt", false, "kkt feasibility cProx-AL", func(r *ClassResult) { r.Trials[1].CProx.Residuals.Feasibility = 2e-3 }},
		// Per trial: 1.5e-2 in one trial fails although the mean is 7.5e-3.
		{"np reldiff in one trial", false, "relative difference", func(r *ClassResult) { r.Trials[0].CProx.Objective = 1.1 / (1 + 1.5e-2) }},
		{"fair reldiff in one trial", true, "relative difference", func(r *ClassResult) { r.Trials[1].Alg1.Objective = 1.1001 * (1 - 1.5e-2) }},
		{"fair clean", true, "", func(*ClassResult) {}},
		// Under the default rule Algorithm 1 must end Converged too.
		{"fair alg1 capped", true, "status Alg. 1", func(r *ClassResult) { r.Trials[0].Alg1.Status = solver.InnerIterationLimit }},
		{"fair cprox capped", true, "status cProx-AL", func(r *ClassResult) { r.Trials[1].CProx.Status = solver.ConvergedInaccurate }},
		// r + ε2 = 0.011.
		{"fair disparity", true, "max constraint value cProx-AL", func(r *ClassResult) { r.Trials[0].CProx.Loss1[2] = 0.0115 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := conicClassFixture(tc.fair)
			tc.damage(r)
			check := CheckTable2
			if tc.fair {
				check = CheckTable3
			}
			want := []string(nil)
			if tc.failRule != "" {
				want = []string{tc.failRule}
			}
			if got := failedRules(t, r, check); !slices.Equal(got, want) {
				t.Errorf("failed rules %v, want %v", got, want)
			}
		})
	}
}

// npFixture is a two-trial Table 1 result on monks-1 that passes every rule.
func npFixture() *proxal.NPResult {
	cfg := &proxal.NPConfig{TrialConfig: experiments.TrialConfig{Seed: 1, Trials: 2, RNG: "fedcon"}, Datasets: []string{"monks-1"}, Clients: []int{2}, R: 0.2,
		ADMMStart: "wk", ALConfig: proxal.ALConfig{MethodConfig: proxal.MethodConfig{Beta: 300, SBar: 1e-3, Rho: 0.01, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3,
			MaxOuter: 100, MaxInner: 300, InnerTest: solver.InnerTestPaper}, Subsolver: "newton", RhoRule: solver.RhoFixed, Relax: 1}}
	alg := func(obj float64) proxal.ClassAlg {
		return proxal.ClassAlg{Loss0: []float64{obj, obj}, Loss1: []float64{0.2, 0.1995}, Objective: obj, Status: solver.Converged,
			Residuals: solver.Residuals{Stationarity: 5e-4, Feasibility: 1e-5}}
	}
	var trials []proxal.ClassTrial
	for t := range 2 {
		trials = append(trials, proxal.ClassTrial{Dataset: "monks-1", N: 2, Trial: t, Alg1: alg(1.1), CProx: alg(1.1001), RelDiff: experiments.RelDiff(1.1, 1.1001)})
	}
	row := proxal.ClassRowOf("monks-1", 2, trials, cfg.R, cfg.Eps1, cfg.Eps2)
	return &proxal.NPResult{Info: &experiments.RunInfo{Config: cfg}, Rows: []proxal.ClassRow{row}, Trials: trials}
}

// TestConicOptimaRecomputed: the gate's f* recomputed row passes a real
// run's trials and fails a trial whose f* was edited (with its objectives
// moved along, the optimum rule alone would not see it).
func TestConicOptimaRecomputed(t *testing.T) {
	res := conicCheckRun(t)
	cfg := res.Info.Config.(*QPConfig)
	kind := conicQPKind(cfg)
	for _, tc := range []struct {
		name  string
		shift float64
		pass  bool
	}{{"honest", 0, true}, {"f* moved 1e-6", 1e-6, false}} {
		byCell := map[string][]QPTrial{}
		for _, tr := range res.Trials {
			if tr.Trial == 1 {
				tr.FStar += tc.shift
				tr.Alg1.Objective += tc.shift
				tr.CProx.Objective += tc.shift
			}
			byCell[kind.CellOf(&tr)] = append(byCell[kind.CellOf(&tr)], tr)
		}
		row := ruleRow(t, conicOptima(cfg, kind.Cells, byCell), "f* recomputed")
		if row.Pass != tc.pass {
			t.Errorf("%s: %+v, want pass = %v", tc.name, row, tc.pass)
		}
	}
}

// ruleRow returns the one row of rows with the rule.
// certificateRow decodes the stored trials b, passes each to edit and
// returns the gate's "certificate recomputed" row on them.
func certificateRow(t *testing.T, cfg *QPConfig, b []byte, edit func(*QPTrial)) experiments.CheckRow {
	t.Helper()
	var trials []QPTrial
	if err := json.Unmarshal(b, &trials); err != nil {
		t.Fatal(err)
	}
	kind := conicQPKind(cfg)
	byCell := map[string][]QPTrial{}
	for i := range trials {
		edit(&trials[i])
		byCell[kind.CellOf(&trials[i])] = append(byCell[kind.CellOf(&trials[i])], trials[i])
	}
	return ruleRow(t, conicOptima(cfg, kind.Cells, byCell), "certificate recomputed")
}

func ruleRow(t *testing.T, rows []experiments.CheckRow, rule string) experiments.CheckRow {
	t.Helper()
	var out []experiments.CheckRow
	for _, r := range rows {
		if r.Rule == rule {
			out = append(out, r)
		}
	}
	if len(out) != 1 {
		t.Fatalf("%d rows of rule %q in %+v", len(out), rule, rows)
	}
	return out[0]
}

// TestConicPointsRecomputed: the gate's plain recomputation at a real
// run's stored (w, μ) agrees with the solver's own objective, violation,
// residuals and status on every run (an honest result passes), and each
// forgery of the point, of the multipliers or of a value they determine
// fails the certificate rule. Runs without a point (schema 3 files) pass
// it, the row saying they were not checked.
func TestConicPointsRecomputed(t *testing.T) {
	res := conicCheckRun(t)
	cfg := res.Info.Config.(*QPConfig)
	for _, tr := range res.Trials {
		for _, a := range []proxal.QPAlg{tr.Alg1, tr.CProx} {
			if len(a.W) != tr.D || len(a.Mu) != tr.N+1 || a.InnerCapped == nil {
				t.Fatalf("trial %d stores w of %d, %d multiplier blocks, inner_capped %v", tr.Trial, len(a.W), len(a.Mu), a.InnerCapped)
			}
		}
	}
	b, err := json.Marshal(res.Trials)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		edit   func(tr *QPTrial)
		pass   bool
		detail string // a part of the row's detail
	}{
		{"honest", func(*QPTrial) {}, true, "4 runs: objective, violation, KKT residuals and status recomputed"},
		// 1e-7 in one coordinate moves the stationarity residual by about
		// 1e-7·||A||, far beyond Gamma·(1 + its terms' magnitude) ≈ 1e-8.
		{"w edited", func(tr *QPTrial) { tr.Alg1.W[3] += 1e-7 }, false, "trial 1 Algorithm 1"},
		{"w truncated", func(tr *QPTrial) { tr.CProx.W = tr.CProx.W[:len(tr.CProx.W)-1] }, false, "w has 99 entries"},
		{"mu edited", func(tr *QPTrial) { tr.CProx.Mu[1][0] += 1e-7 }, false, "trial 1 cProx-AL: residuals"},
		{"mu block removed", func(tr *QPTrial) { tr.Alg1.Mu = tr.Alg1.Mu[1:] }, false, "multiplier blocks"},
		{"objective edited", func(tr *QPTrial) { tr.Alg1.Objective += 1e-6 }, false, "objective"},
		{"violation edited", func(tr *QPTrial) { tr.CProx.Violation /= 2 }, false, "feasibility_violation"},
		{"residuals lowered", func(tr *QPTrial) { tr.Alg1.Residuals.Stationarity /= 2 }, false, "residuals"},
		{"status demoted", func(tr *QPTrial) { tr.Alg1.Status = solver.OuterIterationLimit }, false, "status OuterIterationLimit"},
		{"capped but Converged", func(tr *QPTrial) { tr.Alg1.InnerCapped = new(true) }, false, "inner cap"},
		{"distance to w* edited", func(tr *QPTrial) { tr.CProx.DistOpt *= 2 }, false, "dist_to_optimum_inf"},
		{"file of an older fedcon", func(tr *QPTrial) {
			for _, a := range []*proxal.QPAlg{&tr.Alg1, &tr.CProx} {
				a.W, a.Mu, a.InnerCapped = nil, nil, nil
			}
		}, true, "not checked (old schema): 2 runs whose trial files have schema 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			row := certificateRow(t, cfg, b, func(tr *QPTrial) {
				if tr.Trial == 1 {
					tc.edit(tr)
				}
			})
			if row.Pass != tc.pass || !strings.Contains(row.Detail, tc.detail) {
				t.Errorf("pass %v, %q; want pass %v with %q", row.Pass, row.Detail, tc.pass, tc.detail)
			}
		})
	}
}

// TestConicBallPointsRecomputed: with norm balls (second-order cones; at
// the server, at every party), the plain recomputation at a real run's
// stored (w, μ) agrees with the solver's objective, violation, residuals
// and status, and with one ball its distance to the gate's own w*; it fails
// forgeries of the point, of the ball's multipliers (one moved, one pushed
// outside the dual cone), of the violation and of the distance to w*.
func TestConicBallPointsRecomputed(t *testing.T) {
	for _, parties := range []BallParties{"server", "all"} {
		cfg := smallConicConfig()
		cfg.Cells, cfg.Trials, cfg.BallRows, cfg.BallParties = [][]int{{20, 2, 1}}, 1, 2, parties
		res, err := RunQP(context.Background(), cfg, experiments.RunOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res.Trials)
		if err != nil {
			t.Fatal(err)
		}
		// Server block: its equality, then the ball's (-T, h - Gw): index 1 is
		// the cone's scalar, 2 the first of its other components.
		for _, tc := range []struct {
			name   string
			edit   func(tr *QPTrial)
			pass   bool
			detail string
		}{
			{"honest", func(*QPTrial) {}, true, map[string]string{
				"server": "2 runs with a norm ball (second-order cone): objective, violation, KKT residuals and status recomputed at the stored (w, μ) on the instance drawn again, agreeing within 1e-10 × the terms' magnitude; dist_to_optimum_inf recomputed against an independent solve's w*",
				"all":    "2 runs with a norm ball (second-order cone): objective, violation, KKT residuals and status recomputed at the stored (w, μ) on the instance drawn again, agreeing within 1e-10 × the terms' magnitude; 2 runs with several balls, which store no distance: f(w) − f* inside the band convexity gives",
			}[string(parties)]},
			{"w edited", func(tr *QPTrial) { tr.Alg1.W[0] += 1e-7 }, false, "Algorithm 1"},
			{"ball multiplier edited", func(tr *QPTrial) { tr.CProx.Mu[0][2] += 1e-7 }, false, "cProx-AL"},
			{"ball multiplier outside K*", func(tr *QPTrial) { tr.Alg1.Mu[0][1] = -1 }, false, "outside the dual cone (second-order)"},
			{"violation edited", func(tr *QPTrial) { tr.Alg1.Violation += 1e-3 }, false, "feasibility_violation"},
			// One ball (at the server): the run stores its distance to w*;
			// 1e-9 is 1000 times ballSolveAgree at ||w*||_∞ < 1.
			{"distance to w* edited", func(tr *QPTrial) {
				if parties == "server" {
					tr.CProx.DistOpt += 1e-9
				}
			}, parties != "server", map[string]string{"server": "cProx-AL: dist_to_optimum_inf", "all": "several balls"}[string(parties)]},
		} {
			t.Run(string(parties)+" "+tc.name, func(t *testing.T) {
				row := certificateRow(t, cfg, b, func(tr *QPTrial) {
					if tr.Balls == 0 || len(tr.Alg1.Mu[0]) != 1+1+cfg.BallRows {
						t.Fatalf("trial with %d balls, server multipliers %v", tr.Balls, tr.Alg1.Mu[0])
					}
					tc.edit(tr)
				})
				if row.Pass != tc.pass || !strings.Contains(row.Detail, tc.detail) {
					t.Errorf("pass %v, %q; want pass %v with %q", row.Pass, row.Detail, tc.pass, tc.detail)
				}
			})
		}
	}
}

// TestConicEqQPAgreesWithExactKKT: on conic Table 1's instances, the
// gate's independent optimum (proxal.QPRecheck: recheck.EqQP's range-space
// Cholesky) and the run's (problems.LCQP.ExactKKT, LU of the KKT matrix)
// agree a factor of 100 inside the 1e-12 relative bound the certificate
// rule allows them: H = Σ A_i has eigenvalues in [5n, 10n] (Section 5.1's
// A_i), so both solves are accurate to a few ulps.
func TestConicEqQPAgreesWithExactKKT(t *testing.T) {
	cells := [][3]int{{100, 1, 1}, {300, 5, 3}}
	if !testing.Short() {
		cells = append(cells, [3]int{500, 10, 5})
	}
	cfg := smallConicConfig()
	for _, c := range cells {
		inst, err := conicInstance(cfg, c[0], c[1], c[2], 0)
		if err != nil {
			t.Fatal(err)
		}
		_, _, fs, err := inst.ExactKKT()
		if err != nil {
			t.Fatal(err)
		}
		q, err := proxal.NewQPRecheck(inst.LCQP)
		if err != nil {
			t.Fatal(err)
		}
		if diff := math.Abs(fs - q.FStar()); diff > 1e-14*(1+math.Abs(fs)) {
			t.Errorf("%v: f* %.17g, independent %.17g", c, fs, q.FStar())
		}
	}
}

// TestConicTrialSchema: a conic Table 1 trial file of schema 4 must carry
// each run's w, μ and inner cap (a deleted one is refused with one line);
// a schema 3 file, of a fedcon that stored no point, is still read unless
// it holds some of the three and not the others; other schemas are
// refused.
func TestConicTrialSchema(t *testing.T) {
	res := conicCheckRun(t)
	honest, err := json.Marshal(&res.Trials[0])
	if err != nil {
		t.Fatal(err)
	}
	key := experiments.TrialKey(conicQPCell(res.Trials[0].D, res.Trials[0].N, res.Trials[0].M), res.Trials[0].Trial)
	for _, c := range []struct {
		name   string
		schema int
		strip  []string // fields deleted from alg1
		err    string   // "" for read
	}{
		{"schema 4", 4, nil, ""},
		{"schema 4 without w", 4, []string{"w"}, "trial.alg1: schema 4 stores w (d = 100 entries), mu and inner_capped; the file has 0 entries of w, 2 blocks of mu"},
		{"schema 4 without mu", 4, []string{"mu"}, "the file has 100 entries of w, 0 blocks of mu"},
		{"schema 4 without inner_capped", 4, []string{"inner_capped"}, "stores w (d = 100 entries), mu and inner_capped"},
		{"schema 3 without w, mu, inner_capped", 3, []string{"w", "mu", "inner_capped"}, ""},
		// A schema 4 file relabelled 3 with its point deleted but its
		// inner cap kept: no fedcon wrote inner_capped without w.
		{"schema 3 without w, mu", 3, []string{"w", "mu"}, "trial.alg1: 0 entries of w, 0 blocks of mu, inner_capped true: no fedcon wrote"},
		{"schema 3 without mu", 3, []string{"mu"}, "100 entries of w, 0 blocks of mu"},
		{"schema 3 with w", 3, nil, ""},
		{"schema 2", 2, nil, "trial schema 2, want 4 (written by an older fedcon): rerun the experiment"},
		{"schema 5", 5, nil, "trial schema 5, want 4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var tr map[string]any
			if err := json.Unmarshal(honest, &tr); err != nil {
				t.Fatal(err)
			}
			for _, f := range c.strip {
				delete(tr["alg1"].(map[string]any), f)
			}
			file := map[string]any{"schema": c.schema, "config_hash": "0123456789abcdef", "fedcon_version": "x", "key": key, "seed": 1, "trial": tr}
			b, err := json.Marshal(file)
			if err != nil {
				t.Fatal(err)
			}
			var got QPTrial
			_, err = experiments.DecodeTrial(b, key, "0123456789abcdef", &got)
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("err %v, want %q", err, c.err)
			}
		})
	}
}

// TestConicBallOptimumAgrees: on instances of the paper's cells with a
// ball at the server, the gate's optimum (recheck.EqQPBall: safeguarded
// regula falsi on the ball's multiplier over range-space Cholesky solves) and the run's
// (problems.ConicQP.ExactSingleBall: a bisection over LU solves of
// the KKT matrix) agree far inside ballSolveAgree; measured 5e-16 in w*
// and 1e-15 in f*, relative, up to d = 500.
func TestConicBallOptimumAgrees(t *testing.T) {
	cells := [][3]int{{20, 2, 1}, {100, 5, 1}}
	if !testing.Short() {
		cells = append(cells, [3]int{300, 5, 3})
	}
	cfg := smallConicConfig()
	cfg.BallRows, cfg.BallParties = 2, "server"
	for _, c := range cells {
		inst, err := conicInstance(cfg, c[0], c[1], c[2], 0)
		if err != nil {
			t.Fatal(err)
		}
		wp, lp, fp, err := inst.ExactSingleBall()
		if err != nil {
			t.Fatal(err)
		}
		if lp <= 0 {
			t.Fatalf("%v: the ball is not active (λ* = %g): no test of the root-finder", c, lp)
		}
		wr, fr, err := conicReference(inst, proxal.QPParties(inst.LCQP))
		if err != nil {
			t.Fatal(err)
		}
		var dw, wm float64
		for j := range wp {
			dw, wm = math.Max(dw, math.Abs(wp[j]-wr[j])), math.Max(wm, math.Abs(wp[j]))
		}
		if dw > ballSolveAgree/100*(1+wm) || math.Abs(fp-fr) > ballSolveAgree/100*(1+math.Abs(fp)) {
			t.Errorf("%v: ||w* − w*'||_∞ = %.3g (||w*||_∞ %.3g), f* %.17g vs %.17g", c, dw, wm, fp, fr)
		}
	}
}

// TestConicSeveralBallsBand: with a ball at every party the gate's own
// optimum (recheck.EqQPBalls) bounds each run's objective from both sides
// (the band convexity gives at the run's (w, μ)); the band is at the
// tolerance's level, holds f(w) − f*, and a reference f* moved by more
// than its width is refused.
func TestConicSeveralBallsBand(t *testing.T) {
	cfg := smallConicConfig()
	cfg.Cells, cfg.Trials, cfg.BallRows, cfg.BallParties = [][]int{{20, 2, 1}}, 2, 2, "all"
	res, err := RunQP(context.Background(), cfg, experiments.RunOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	eps := [2]float64{cfg.Eps1, cfg.Eps2}
	for _, tr := range res.Trials {
		inst, err := conicInstance(cfg, 20, 2, 1, tr.Trial)
		if err != nil {
			t.Fatal(err)
		}
		data := proxal.QPParties(inst.LCQP)
		ref, err := multiBallReference(inst, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range []*proxal.QPAlg{&tr.Alg1, &tr.CProx} {
			lo, hi, _ := ref.band(ballParties(inst, data, a.W), a.Mu, data, a.W)
			gap := a.Objective - ref.f
			t.Logf("trial %d: f* %.6g, f(w) − f* = %.3g, band [%.3g, %.3g]", tr.Trial, ref.f, gap, lo, hi)
			if gap < lo || gap > hi || hi-lo > 1e-2*(1+math.Abs(ref.f)) {
				t.Errorf("trial %d: f(w) − f* = %.3g, band [%.3g, %.3g]", tr.Trial, gap, lo, hi)
			}
			if msg := ballRunMessage(inst, data, nil, ref, a, eps); msg != "" {
				t.Errorf("trial %d: honest run refused: %s", tr.Trial, msg)
			}
			moved := *ref
			moved.f = ref.f - 2*(hi-lo) - 1e-6
			if msg := ballRunMessage(inst, data, nil, &moved, a, eps); !strings.Contains(msg, "outside") {
				t.Errorf("trial %d: f* moved by %.3g accepted (%q)", tr.Trial, ref.f-moved.f, msg)
			}
		}
	}
}
