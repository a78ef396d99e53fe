package proxal

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/fedcon/fedcon/configs"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/solver"
)

// ClassRef is configs/reference/table1.yaml or table2.yaml: rules, and the
// per-trial objectives recorded from earlier runs (the baseline where our
// data does not match the paper's), keyed by trial hash.
type ClassRef struct {
	Experiment string                `yaml:"experiment"`
	Rules      []experiments.RefRule `yaml:"rules"`
	Baselines  map[string]struct {
		Description string `yaml:"description"`
		// Trials maps a trial key to its objectives [Alg. 1, cProx-AL].
		Trials map[string][2]float64 `yaml:"trials"`
	} `yaml:"baselines"`
}

// classResult is what the checker reads of a Table 1 or 2 result file.
type classResult struct {
	Info *struct {
		Config json.RawMessage `json:"config"`
	} `json:"run"`
	Rows   []ClassRow   `json:"rows"`
	Trials []ClassTrial `json:"trials"`
}

// CheckTable1 checks a Table 1 result file with configs/reference/table1.yaml.
func CheckTable1(experiment string, resultJSON []byte) ([]experiments.CheckRow, error) {
	return CheckClass(experiment, "table1", resultJSON, NPCheckConfig)
}

// NPCheckConfig reads a recorded Neyman-Pearson configuration for the rules.
func NPCheckConfig(raw []byte) (string, float64, *MethodConfig, error) {
	var cfg NPConfig
	err := json.Unmarshal(raw, &cfg)
	return cfg.TrialHash(), cfg.R, &cfg.MethodConfig, err
}

// CheckTable2 checks a Table 2 result file (either preset) with
// configs/reference/table2.yaml.
func CheckTable2(experiment string, resultJSON []byte) ([]experiments.CheckRow, error) {
	return CheckClass(experiment, experiment, resultJSON, FairCheckConfig)
}

// FairCheckConfig reads a recorded fairness configuration for the rules.
func FairCheckConfig(raw []byte) (string, float64, *MethodConfig, error) {
	var cfg FairConfig
	err := json.Unmarshal(raw, &cfg)
	return cfg.TrialHash(), cfg.R, &cfg.MethodConfig, err
}

type classConfigFunc func([]byte) (string, float64, *MethodConfig, error)

// CheckClass checks a classification result file with the rules of
// configs/reference/<refName>.yaml.
func CheckClass(experiment, refName string, resultJSON []byte, config classConfigFunc) ([]experiments.CheckRow, error) {
	b, err := configs.Reference(refName)
	if err != nil {
		return nil, err
	}
	return checkClassWith(experiment, refName, b, resultJSON, config)
}

// checkClassWith checks resultJSON against the reference YAML refYAML.
func checkClassWith(experiment, refName string, refYAML, resultJSON []byte, config classConfigFunc) ([]experiments.CheckRow, error) {
	var res classResult
	if err := json.Unmarshal(resultJSON, &res); err != nil {
		return nil, fmt.Errorf("experiments: %s.json: %w", experiment, err)
	}
	if res.Info == nil {
		return nil, fmt.Errorf("experiments: %s.json has no run record", experiment)
	}
	hash, r, mc, err := config(res.Info.Config)
	if err != nil {
		return nil, fmt.Errorf("experiments: %s.json: config: %w", experiment, err)
	}
	var ref ClassRef
	if err := yaml.Unmarshal(refYAML, &ref); err != nil {
		return nil, fmt.Errorf("experiments: configs/reference/%s.yaml: %w", refName, err)
	}
	base := ref.Baselines[hash].Trials
	cells := map[string][]ClassTrial{}
	for _, t := range res.Trials {
		k := fmt.Sprintf("%s n=%d", t.Dataset, t.N)
		cells[k] = append(cells[k], t)
	}
	var out []experiments.CheckRow
	for _, row := range res.Rows {
		cell := fmt.Sprintf("%s n=%d", row.Dataset, row.N)
		cc := &classCheck{experiment: experiment, cell: cell, row: &row, trials: cells[cell], base: base, r: r, mc: mc}
		for _, rule := range ref.Rules {
			for _, a := range classAlgs {
				if rule.Applies(a.key) {
					cc.apply(&rule, a)
				}
			}
		}
		out = append(out, cc.out...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("experiments: %s.json: no rows to check", experiment)
	}
	return out, nil
}

// classAlgKind is one algorithm of a classification table: its key in the
// rules, its name in check rows, and its run in a trial.
type classAlgKind struct {
	key, name string
	get       func(*ClassTrial) *ClassAlg
}

// classAlgs are the table's algorithms, in the order of their check rows.
var classAlgs = []classAlgKind{
	{"alg1", "Alg. 1", func(t *ClassTrial) *ClassAlg { return &t.Alg1 }},
	{"cprox", "cProx-AL", func(t *ClassTrial) *ClassAlg { return &t.CProx }},
}

// classCheck is one row of a classification table under the rules: its
// trials, what they are compared with, and the check rows so far.
type classCheck struct {
	experiment, cell string
	row              *ClassRow
	trials           []ClassTrial
	base             map[string][2]float64 // the baseline of the configuration (nil: none)
	r                float64               // the constraint's bound
	mc               *MethodConfig
	out              []experiments.CheckRow
}

// add appends a check row; NaN fails whatever the bound.
func (cc *classCheck) add(rule string, v, bound float64, detail string) {
	cc.out = append(cc.out, experiments.CheckRow{Experiment: cc.experiment, Cell: cc.cell, Rule: rule, Value: v, Bound: bound,
		Pass: v <= bound && !math.IsNaN(v), Detail: detail})
}

// apply adds the rows of rule for algorithm a; an unknown rule adds none.
func (cc *classCheck) apply(rule *experiments.RefRule, a classAlgKind) {
	switch rule.Name {
	case "status":
		cc.status(a)
	case "diverged":
		cc.diverged(a)
	case "kkt":
		cc.kkt(rule, a)
	case "feasibility":
		cc.feasibility(rule, a)
	case "reldiff":
		cc.relDiff(rule, a)
	case "paper":
		cc.paper(rule, a)
	case "baseline":
		cc.baseline(rule, a)
	}
}

// status counts the runs that did not converge.
func (cc *classCheck) status(a classAlgKind) {
	bad := 0
	for i := range cc.trials {
		if a.get(&cc.trials[i]).Status != solver.Converged {
			bad++
		}
	}
	cc.add("status "+a.name, float64(bad), 0, fmt.Sprintf("runs not Converged of %d", len(cc.trials)))
}

// baselineOf is trial t's recorded objectives [Alg. 1, cProx-AL], if the
// baseline has it.
func (cc *classCheck) baselineOf(t *ClassTrial) ([2]float64, bool) {
	b, ok := cc.base[experiments.TrialKey(fmt.Sprintf("%s-n%d", t.Dataset, t.N), t.Trial)]
	return b, ok
}

// diverged counts the diverged runs. A diverged run fails unless the
// baseline recorded it as diverged (.inf): capped runs can blow up by
// design.
func (cc *classCheck) diverged(a classAlgKind) {
	bad, expected := 0, 0
	for i := range cc.trials {
		t := &cc.trials[i]
		if a.get(t).Status != solver.Diverged {
			continue
		}
		b, ok := cc.baselineOf(t)
		if col := map[string]int{"alg1": 0, "cprox": 1}[a.key]; ok && math.IsInf(b[col], 1) {
			expected++
			continue
		}
		bad++
	}
	cc.add("diverged runs "+a.name, float64(bad), 0, fmt.Sprintf("of %d runs (%d more diverged as the baseline recorded)", len(cc.trials), expected))
}

// kkt bounds the Converged runs' audited residuals by the rule's multiple
// of (ε1, ε2): a status must be what the audit says.
func (cc *classCheck) kkt(rule *experiments.RefRule, a classAlgKind) {
	var st, fe float64
	n := 0
	for i := range cc.trials {
		if g := a.get(&cc.trials[i]); g.Status == solver.Converged {
			st, fe = math.Max(st, g.Residuals.Stationarity), math.Max(fe, g.Residuals.Feasibility)
			n++
		}
	}
	if n > 0 {
		cc.add("kkt stationarity "+a.name, st, rule.Factor*cc.mc.Eps1, fmt.Sprintf("max over the %d Converged runs", n))
		cc.add("kkt feasibility "+a.name, fe, rule.Factor*cc.mc.Eps2, fmt.Sprintf("max over the %d Converged runs", n))
	}
}

// feasibility bounds the largest constraint value of any party in any run
// by r + ε2, what a Converged run promises.
func (cc *classCheck) feasibility(rule *experiments.RefRule, a classAlgKind) {
	var v float64
	for i := range cc.trials {
		v = math.Max(v, experiments.MaxOf(a.get(&cc.trials[i]).Loss1))
	}
	cc.add("max constraint value "+a.name, v, cc.r+rule.Factor*cc.mc.Eps2, fmt.Sprintf("over parties and all %d runs; bound r + ε2", len(cc.trials)))
}

// relDiff bounds the two algorithms' relative difference per trial, from
// the trial's two objectives (one row, on alg1); a trial with a diverged
// run fails "diverged" instead.
func (cc *classCheck) relDiff(rule *experiments.RefRule, a classAlgKind) {
	if a.key != "alg1" {
		return
	}
	worst, n, at := 0.0, 0, -1
	for i := range cc.trials {
		t := &cc.trials[i]
		if t.Alg1.Status == solver.Diverged || t.CProx.Status == solver.Diverged {
			continue
		}
		n++
		if d := experiments.RelDiff(t.Alg1.Objective, t.CProx.Objective); at < 0 || d > worst || math.IsNaN(d) {
			worst, at = d, t.Trial
		}
	}
	if n > 0 {
		cc.add("relative difference", worst, rule.Bound, fmt.Sprintf("max over %d trials of |f_A1 - f_cP|/|f_cP| (worst: trial %d)", n, at))
	}
}

// paper compares the row's mean objective with the published one, within
// the table's rounding and a multiple of our spread.
func (cc *classCheck) paper(rule *experiments.RefRule, a classAlgKind) {
	row := cc.row
	if len(row.Published.Values) < 3 {
		return
	}
	ours, pap, std := row.Obj1.Mean, row.Published.Values[0], row.Obj1.Std
	if a.key == "cprox" {
		ours, pap, std = row.ObjC.Mean, row.Published.Values[2], row.ObjC.Std
	}
	cc.add("objective vs paper "+a.name, math.Abs(ours-pap), rule.Rounding+rule.StdFactor*std,
		fmt.Sprintf("ours %.4f (std %.1e), paper %.2f", ours, std, pap))
}

// baseline bounds the objectives' relative drift from the recorded
// baseline, so that an unintended change of the numbers fails.
func (cc *classCheck) baseline(rule *experiments.RefRule, a classAlgKind) {
	if cc.base == nil {
		return
	}
	worst, compared := BaselineDrift(len(cc.trials), 1e-12, func(i int) (float64, float64, bool) {
		t := &cc.trials[i]
		b, ok := cc.baselineOf(t)
		if !ok {
			return 0, 0, false
		}
		want := b[0]
		if a.key == "cprox" {
			want = b[1]
		}
		f := a.get(t).Objective
		if a.get(t).Status == solver.Diverged {
			f = math.Inf(1) // a diverged run's objective is recorded as .inf
		}
		return f, want, true
	})
	if compared > 0 {
		cc.add("regression baseline "+a.name, worst, rule.Rel,
			fmt.Sprintf("max relative change over %d of %d trials", compared, len(cc.trials)))
	}
}

// BaselineDrift returns the largest |f − f_base| / max(|f_base|, floor)
// over the n trials that have a recorded baseline (at reports a trial's
// objective, its baseline, and whether it has one), and how many had one.
func BaselineDrift(n int, floor float64, at func(j int) (f, base float64, ok bool)) (worst float64, compared int) {
	for j := range n {
		f, want, ok := at(j)
		if !ok {
			continue
		}
		compared++
		// +Inf stands for a diverged run, whose objective depends on where
		// it crossed the norm bound: both diverged agree, one diverged is
		// a change of 1 (100 %).
		if math.IsInf(f, 1) || math.IsInf(want, 1) {
			if !(math.IsInf(f, 1) && math.IsInf(want, 1)) {
				worst = math.Max(worst, 1)
			}
			continue
		}
		worst = math.Max(worst, math.Abs(f-want)/math.Max(math.Abs(want), floor))
	}
	return worst, compared
}

// ClassBaselineYAML renders a classification result file's per-trial
// objectives as a baseline entry for configs/reference/<table>.yaml.
func ClassBaselineYAML(experiment string, resultJSON []byte, description string) (string, error) {
	var res classResult
	if err := json.Unmarshal(resultJSON, &res); err != nil || res.Info == nil {
		return "", fmt.Errorf("experiments: %s.json: not a classification result", experiment)
	}
	// Neyman-Pearson (table1*, conic-table2) or fairness (table2*, conic-table3).
	config := FairCheckConfig
	if strings.HasPrefix(experiment, "table1") || experiment == "conic-table2" {
		config = NPCheckConfig
	}
	hash, _, _, err := config(res.Info.Config)
	if err != nil {
		return "", fmt.Errorf("experiments: %s.json: config: %w", experiment, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  %q:\n    description: %q\n    trials:\n", hash, description)
	obj := func(a ClassAlg) string {
		if a.Status == solver.Diverged {
			return ".inf"
		}
		return fmt.Sprintf("%.10g", a.Objective)
	}
	for _, t := range res.Trials {
		fmt.Fprintf(&b, "      %s: [%s, %s]\n", experiments.TrialKey(fmt.Sprintf("%s-n%d", t.Dataset, t.N), t.Trial), obj(t.Alg1), obj(t.CProx))
	}
	return b.String(), nil
}
