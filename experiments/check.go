package experiments

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// CheckRow is one comparison of `fedcon check`.
type CheckRow struct {
	Experiment string  `json:"experiment"`
	Cell       string  `json:"cell"`
	Rule       string  `json:"rule"`
	Value      float64 `json:"value"`
	Bound      float64 `json:"bound"`
	Pass       bool    `json:"pass"`
	Detail     string  `json:"detail,omitempty"`
}

// A Check is how `fedcon check` gates one experiment's result file. Each
// paper's package registers its experiments' checks from init.
type Check struct {
	// Verify rebuilds the table in in.Dir from its trial files (VerifyWith).
	Verify func(in VerifyInput) []CheckRow
	// Rules applies configs/reference/<name>.yaml.
	Rules func(name string, resultJSON []byte) ([]CheckRow, error)
	// Baseline renders the per-trial objectives as a baseline entry for
	// configs/reference/<name>.yaml; nil when the rules need none.
	Baseline func(name string, resultJSON []byte, description string) (string, error)
}

// VerifyInput is what a Check's Verify reads of one result file.
type VerifyInput struct {
	Dir, Name string // the experiment's directory and name
	// Result is <Name>.json, Config its recorded configuration.
	Result, Config []byte
	// ConfigHash is the recorded hash of Config.
	ConfigHash string
	// KKT is the factor of the reference's kkt rule per algorithm.
	KKT map[string]float64
	// DataDirs is the data sets' search path, for the columns a table
	// takes from the data split (nil: the download cache).
	DataDirs []string
}

var checks = map[string]Check{}

// RegisterCheck makes name's result files gated by `fedcon check`; it
// panics if name is registered twice.
func RegisterCheck(name string, c Check) {
	if _, dup := checks[name]; dup {
		panic("experiments: check " + name + " registered twice")
	}
	checks[name] = c
}

var genericChecks []func(in VerifyInput) []CheckRow

// RegisterGenericCheck adds a rule to the generic rules of the experiments
// without a reference file (`run` directories, figures): fn returns the
// rows it checks of in, or none when in is not of its kind. The paper
// packages register from init.
func RegisterGenericCheck(fn func(in VerifyInput) []CheckRow) {
	genericChecks = append(genericChecks, fn)
}

// BaselineYAML renders a result file's per-trial objectives as a baseline
// entry for configs/reference/<experiment>.yaml (`fedcon check --print-baseline`).
func BaselineYAML(experiment string, resultJSON []byte, description string) (string, error) {
	c, ok := checks[experiment]
	if !ok || c.Baseline == nil {
		return "", fmt.Errorf("experiments: %s has no baseline", experiment)
	}
	return c.Baseline(experiment, resultJSON, description)
}

// CheckNames lists, sorted, the experiments whose result files the check
// gate compares with configs/reference/.
func CheckNames() []string { return slices.Sorted(maps.Keys(checks)) }

// CheckTable renders check rows with a pass/fail column; with the gate's
// coverage, its last note also counts the experiments checked, not run and
// skipped (CoverageSummary).
func CheckTable(rows []CheckRow, cov ...Coverage) *Table {
	t := &Table{Title: "fedcon check", Keys: 2, Header: []string{"experiment", "cell", "rule", "value", "bound", "result", "detail"}}
	failed := 0
	for _, r := range rows {
		res := "pass"
		if !r.Pass {
			res = "FAIL"
			failed++
		}
		t.Rows = append(t.Rows, []string{r.Experiment, r.Cell, r.Rule, fmt.Sprintf("%.3g", r.Value), fmt.Sprintf("%.3g", r.Bound), res, r.Detail})
	}
	if len(cov) == 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d checks, %d failed. Rules and their justifications: configs/reference/*.yaml.", len(rows), failed))
	} else {
		sum, why := CoverageSummary(cov)
		t.Notes = append(t.Notes, "Rules and their justifications: configs/reference/*.yaml."+why,
			fmt.Sprintf("%s; %d checks, %d failed.", sum, len(rows), failed))
	}
	// The terminal's view: a failure's detail in its result cell.
	t.Brief = t.Pick("rule", "value", "bound", "result")
	for i, r := range rows {
		if !r.Pass && r.Detail != "" {
			t.Brief.Rows[i][len(t.Brief.Rows[i])-1] = "FAIL: " + r.Detail
		}
	}
	return t
}

// RefRule is one rule of configs/reference/<name>.yaml.
type RefRule struct {
	Name string `yaml:"name"`
	// Algorithms the rule applies to: alg1, cprox (default both).
	Algorithms []string `yaml:"algorithms"`
	Factor     float64  `yaml:"factor"`
	Bound      float64  `yaml:"bound"`
	Rounding   float64  `yaml:"rounding"`
	StdFactor  float64  `yaml:"std_factor"`
	Rel        float64  `yaml:"rel"`
	Why        string   `yaml:"why"`
}

// Applies reports whether the rule applies to algorithm alg (alg1, cprox).
func (r *RefRule) Applies(alg string) bool {
	return len(r.Algorithms) == 0 || slices.Contains(r.Algorithms, alg)
}

// CoverageTable lists every experiment the gate found, expected or skipped,
// and what it checked in each.
func CoverageTable(cov []Coverage) *Table {
	t := &Table{Title: "fedcon check: experiments", Keys: 1, Header: []string{"experiment", "directory", "status", "checks", "failed", "what was checked"}}
	for _, c := range cov {
		t.Rows = append(t.Rows, []string{c.Experiment, c.Dir, c.Status, fmt.Sprint(c.Checks), fmt.Sprint(c.Failed), c.Checked})
	}
	t.Brief = t.Pick("status", "checks", "failed", "what was checked")
	return t
}

// CoverageSummary counts the experiments the gate checked (with their
// reference rules, with the generic rules only), not run and skipped, and
// says which were not run or skipped, and why.
func CoverageSummary(cov []Coverage) (summary, why string) {
	var ref, gen int
	var notRun, skipped []string
	for _, c := range cov {
		switch c.Status {
		case "checked":
			if strings.HasPrefix(c.Checked, "configs/reference/") {
				ref++
			} else {
				gen++
			}
		case "not run":
			notRun = append(notRun, c.Experiment+" ("+strings.TrimPrefix(c.Checked, "nothing: ")+")")
		default:
			skipped = append(skipped, c.Dir+": "+c.Checked)
		}
	}
	summary = fmt.Sprintf("%d experiments checked (%d reference, %d generic), %d not run, %d skipped", ref+gen, ref, gen, len(notRun), len(skipped))
	if len(notRun) > 0 {
		why += " Not run: " + strings.Join(notRun, ", ") + "."
	}
	if len(skipped) > 0 {
		why += " Skipped: " + strings.Join(skipped, "; ") + "."
	}
	return summary, why
}
