package proxal

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/fedcon/fedcon/configs"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/solver"
)

// classFixture is a two-trial Table 1 result that passes every rule.
func classFixture() *NPResult {
	cfg := &NPConfig{TrialConfig: experiments.TrialConfig{Seed: 1, Trials: 2, RNG: "fedcon"}, Datasets: []string{"monks-1"}, Clients: []int{2}, R: 0.2,
		ADMMStart: "wk", ALConfig: ALConfig{MethodConfig: MethodConfig{Beta: 300, SBar: 1e-3, Rho: 0.01, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3,
			MaxOuter: 100, MaxInner: 300, InnerTest: solver.InnerTestPaper}, Subsolver: "newton", RhoRule: solver.RhoFixed, Relax: 1}}
	alg := func(obj float64) ClassAlg {
		return ClassAlg{Loss0: []float64{obj, obj}, Loss1: []float64{0.2, 0.1995}, Objective: obj, Status: solver.Converged,
			Residuals: solver.Residuals{Stationarity: 5e-4, Feasibility: 1e-5}}
	}
	var trials []ClassTrial
	for t := range 2 {
		trials = append(trials, ClassTrial{Dataset: "monks-1", N: 2, Trial: t, Alg1: alg(1.1), CProx: alg(1.1001), RelDiff: experiments.RelDiff(1.1, 1.1001)})
	}
	row := ClassRowOf("monks-1", 2, trials, cfg.R, cfg.Eps1, cfg.Eps2)
	return &NPResult{Info: &experiments.RunInfo{Config: cfg}, Rows: []ClassRow{row}, Trials: trials}
}

// TestCheckTable1Rules: the fixture passes; each kind of damage fails the
// rule that guards against it.
func TestCheckTable1Rules(t *testing.T) {
	for _, tc := range []struct {
		name, failRule string
		damage         func(r *NPResult)
	}{
		{"clean", "", func(*NPResult) {}},
		{"cprox not converged", "status cProx-AL", func(r *NPResult) { r.Trials[1].CProx.Status = solver.OuterIterationLimit }},
		{"infeasible", "max constraint value Alg. 1", func(r *NPResult) { r.Trials[0].Alg1.Loss1[1] = 0.25 }},
		{"kkt", "kkt stationarity Alg. 1", func(r *NPResult) { r.Trials[0].Alg1.Residuals.Stationarity = 2e-3 }},
		// The rule is per trial: 1.5e-2 in one trial fails although the
		// mean over the two trials, 7.5e-3, is below the bound 1e-2.
		{"reldiff in one trial", "relative difference", func(r *NPResult) { r.Trials[1].Alg1.Objective = 1.1001 * (1 + 1.5e-2) }},
		// 9e-3 in every trial is within the bound.
		{"reldiff below the bound", "", func(r *NPResult) {
			for i := range r.Trials {
				r.Trials[i].Alg1.Objective = 1.1001 * (1 - 9e-3)
			}
		}},
		// The rule reads the trials' objectives, not the row's mean.
		{"row mean alone", "", func(r *NPResult) { r.Rows[0].RelDiff.Mean = 0.1 }},
		{"alg1 capped", "status Alg. 1", func(r *NPResult) { r.Trials[1].Alg1.Status = solver.InnerIterationLimit }},
		{"diverged", "status Alg. 1,diverged runs Alg. 1", func(r *NPResult) { r.Trials[0].Alg1.Status = solver.Diverged }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := classFixture()
			tc.damage(r)
			b, _ := json.Marshal(r)
			rows, err := CheckTable1("table1", b)
			if err != nil {
				t.Fatal(err)
			}
			var failed []string
			for _, row := range rows {
				if !row.Pass {
					failed = append(failed, row.Rule)
				}
			}
			if strings.Join(failed, ",") != tc.failRule {
				t.Errorf("failed rules %v, want [%s]", failed, tc.failRule)
			}
		})
	}
}

// baselineRef prints r's baseline, asserts that it contains want, and
// returns table1's rules with that baseline as the reference.
func baselineRef(t *testing.T, r *NPResult, want string) []byte {
	t.Helper()
	b, _ := json.Marshal(r)
	y, err := experiments.BaselineYAML("table1", b, "test")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(y, want) || !strings.Contains(y, r.Info.Config.(*NPConfig).TrialHash()) {
		t.Fatalf("baseline lacks %q:\n%s", want, y)
	}
	rules, err := configs.Reference("table1")
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(rules), "\nbaselines:")
	return []byte(head + "\nbaselines:\n" + y)
}

// checkRules checks r against ref and returns its rows by rule name.
func checkRules(t *testing.T, ref []byte, r *NPResult) map[string]experiments.CheckRow {
	t.Helper()
	b, _ := json.Marshal(r)
	rows, err := checkClassWith("table1", "table1", ref, b, NPCheckConfig)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]experiments.CheckRow{}
	for _, row := range rows {
		out[row.Rule] = row
	}
	return out
}

// TestBaselineRoundTrip: a baseline printed from a result, read back as the
// reference, passes the result and fails an objective changed by 2e-3.
func TestBaselineRoundTrip(t *testing.T) {
	ref := baselineRef(t, classFixture(), "monks-1-n2-t01: [1.1, 1.1001]")
	for _, obj := range []float64{1.1, 1.1 * (1 + 2e-3)} {
		r := classFixture()
		r.Trials[1].Alg1.Objective = obj
		row, ok := checkRules(t, ref, r)["regression baseline Alg. 1"]
		if !ok {
			t.Fatalf("no baseline rule applied")
		}
		if row.Pass != (obj == 1.1) {
			t.Errorf("objective %v: pass = %v (%+v)", obj, row.Pass, row)
		}
	}
}

// TestClassRowDiverged: a diverged run is flagged, counted and kept out of
// the solution statistics (not of the cost ones); where every run of an
// algorithm diverged its solution cells print "-".
func TestClassRowDiverged(t *testing.T) {
	r := classFixture()
	trials := r.Trials
	trials[1].Alg1.Status = solver.Diverged
	trials[1].Alg1.Loss0 = []float64{5e19, 6e19}
	trials[1].Alg1.Loss1 = []float64{2e18, 3e18}
	trials[1].Alg1.Residuals.Stationarity = 3e21
	trials[1].Alg1.Stats.OuterIterations = 7
	trials[1].RelDiff = 5e19
	row := ClassRowOf("monks-1", 2, trials, 0.2, 1e-3, 1e-3)
	if row.Diverged1 != 1 || row.DivergedC != 0 || row.Obj1.Mean != 1.1 || row.FeasMax1.Mean != 0.2 || row.KKT1[0] != 5e-4 ||
		row.RelDiff.Mean != trials[0].RelDiff || row.WorstMax1 != 0.2 {
		t.Errorf("diverged run in the solution statistics: %+v", row)
	}
	if row.Outer1.Mean != 3.5 {
		t.Errorf("outer iterations %v, want the mean over both runs, 3.5", row.Outer1.Mean)
	}
	if !strings.Contains(row.Flags, "A1 Diverged x1") {
		t.Errorf("flags %q", row.Flags)
	}
	trials[0].Alg1.Status = solver.Diverged
	row = ClassRowOf("monks-1", 2, trials, 0.2, 1e-3, 1e-3)
	tabs := ClassTables("t", "class-1 loss", []ClassRow{row}, true, 0.2, func(ClassRow) []float64 { return nil })
	cells := tabs[0].Rows[0]
	if cells[2] != "-" || cells[4] != "-" || cells[5] != "-" || cells[6] != "-" || cells[3] == "-" || cells[7] == "-" {
		t.Errorf("every Alg. 1 run diverged: row %q", cells)
	}
}

// TestBaselineDiverged: a diverged run is recorded as .inf; the baseline
// rule passes when it diverges again (wherever it crossed the bound) and
// fails when a recorded run now diverges or a diverged one now converges.
func TestBaselineDiverged(t *testing.T) {
	diverged := func() *NPResult {
		r := classFixture()
		r.Trials[1].Alg1.Status, r.Trials[1].Alg1.Objective = solver.Diverged, 1.3e9
		return r
	}
	ref := baselineRef(t, diverged(), "monks-1-n2-t01: [.inf, 1.1001]")
	for _, tc := range []struct {
		name   string
		trial  int
		status solver.Status
		obj    float64
		pass   bool // the baseline rule
		// divPass: the diverged-runs rule, which accepts the run the
		// baseline recorded as diverged
		divPass bool
	}{
		{"diverged again elsewhere", 1, solver.Diverged, 2.7e10, true, true},
		{"now converges", 1, solver.Converged, 1.1, false, true},
		{"newly diverged", 0, solver.Diverged, 1.1, false, false},
	} {
		r := diverged()
		r.Trials[tc.trial].Alg1.Status, r.Trials[tc.trial].Alg1.Objective = tc.status, tc.obj
		rows := checkRules(t, ref, r)
		base, ok := rows["regression baseline Alg. 1"]
		if !ok || base.Pass != tc.pass {
			t.Errorf("%s: baseline rule %+v (applied %v), want pass = %v", tc.name, base, ok, tc.pass)
		}
		if div := rows["diverged runs Alg. 1"]; div.Pass != tc.divPass {
			t.Errorf("%s: diverged rule %+v, want pass = %v", tc.name, div, tc.divPass)
		}
	}
}

// TestReldiffJustification: each reldiff rule's justification states the
// largest per-trial relative difference of its recorded baseline; that
// statement holds for the baseline as recorded, and the bound lies above it.
func TestReldiffJustification(t *testing.T) {
	for _, tc := range []struct {
		ref    string
		trials int    // the baseline's trials, as the justification says
		stated string // the justification's "at most", to 2 digits
	}{
		{"table1", 120, "4.4e-3"},
		{"table2", 40, "1.7e-5"},
		{"conic-table2", 12, "3.9e-3"},
		{"conic-table3", 4, "0.00099"},
	} {
		stated, err := strconv.ParseFloat(tc.stated, 64)
		if err != nil {
			t.Fatal(err)
		}
		b, err := configs.Reference(tc.ref)
		if err != nil {
			t.Fatal(err)
		}
		var ref ClassRef
		if err := yaml.Unmarshal(b, &ref); err != nil {
			t.Fatal(err)
		}
		var bound float64
		for _, r := range ref.Rules {
			if r.Name == "reldiff" {
				bound = r.Bound
				if !strings.Contains(r.Why, fmt.Sprintf("%d trials", tc.trials)) || !strings.Contains(r.Why, "at most "+tc.stated) {
					t.Errorf("%s: justification does not state %d trials, at most %s: %q", tc.ref, tc.trials, tc.stated, r.Why)
				}
			}
		}
		if len(ref.Baselines) != 1 {
			t.Fatalf("%s: %d baselines, want the one the justification measured", tc.ref, len(ref.Baselines))
		}
		for _, base := range ref.Baselines {
			var worst float64
			for _, f := range base.Trials {
				worst = math.Max(worst, experiments.RelDiff(f[0], f[1]))
			}
			// The stated value is rounded to 2 digits.
			if len(base.Trials) != tc.trials || worst > stated*(1+0.05) || worst < stated*(1-0.05) || worst >= bound {
				t.Errorf("%s: %d trials, max per-trial relative difference %.3g; justification: %d trials, at most %s, bound %g",
					tc.ref, len(base.Trials), worst, tc.trials, tc.stated, bound)
			}
		}
	}
}

// fairFixture is a two-trial fairness result (adult-b, r = 0.01) whose
// cProx-AL runs pass table2-authors' rules and whose Algorithm 1 runs
// stopped at the inner cap, as that preset's do.
func fairFixture() *FairResult {
	np := classFixture()
	cfg := &FairConfig{TrialConfig: experiments.TrialConfig{Seed: 1, Trials: 2, RNG: "fedcon"}, Dataset: "adult-b", Clients: []int{2}, R: 0.01,
		ALConfig: np.Info.Config.(*NPConfig).ALConfig}
	trials := np.Trials
	for i := range trials {
		trials[i].Dataset = "adult-b"
		trials[i].Alg1.Status = solver.InnerIterationLimit
		trials[i].Alg1.Loss1 = []float64{0.02, 0, 0.03}
		trials[i].CProx.Loss1 = []float64{0.01, 0.008, 0.0105}
	}
	row := ClassRowOf("adult-b", 2, trials, cfg.R, cfg.Eps1, cfg.Eps2)
	return &FairResult{Info: &experiments.RunInfo{Config: cfg}, Rows: []ClassRow{row}, Trials: trials}
}

// TestTable2AuthorsBaselineCProxOnly: table2-authors' regression baseline
// guards cProx-AL's Converged objectives and not Algorithm 1's capped ones,
// whose objectives follow the rounding: a capped Algorithm 1 objective 5 %
// off its recorded value passes every rule; a cProx-AL objective 2e-3 off
// fails the regression baseline, and only it.
func TestTable2AuthorsBaselineCProxOnly(t *testing.T) {
	b, _ := json.Marshal(fairFixture())
	y, err := experiments.BaselineYAML("table2-authors", b, "test")
	if err != nil {
		t.Fatal(err)
	}
	rules, err := configs.Reference("table2-authors")
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(rules), "\nbaselines:")
	ref := []byte(head + "\nbaselines:\n" + y)
	for _, tc := range []struct {
		name   string
		fail   string
		damage func(r *FairResult)
	}{
		{"recorded", "", func(*FairResult) {}},
		{"capped Alg. 1 moved 5 %", "", func(r *FairResult) { r.Trials[0].Alg1.Objective *= 1.05 }},
		{"cProx-AL moved 2e-3", "regression baseline cProx-AL", func(r *FairResult) { r.Trials[1].CProx.Objective *= 1 + 2e-3 }},
	} {
		r := fairFixture()
		tc.damage(r)
		b, _ := json.Marshal(r)
		rows, err := checkClassWith("table2-authors", "table2-authors", ref, b, FairCheckConfig)
		if err != nil {
			t.Fatal(err)
		}
		var failed []string
		baseRows := 0
		for _, row := range rows {
			if strings.HasPrefix(row.Rule, "regression baseline") {
				baseRows++
			}
			if !row.Pass {
				failed = append(failed, row.Rule)
			}
		}
		if got := strings.Join(failed, ","); got != tc.fail || baseRows != 1 {
			t.Errorf("%s: failed rules %q, want %q; %d regression baseline rows, want 1 (cProx-AL)", tc.name, got, tc.fail, baseRows)
		}
	}
}
