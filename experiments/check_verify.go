package experiments

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/fedcon/fedcon/configs"
	"github.com/fedcon/fedcon/solver"
)

// CheckExperiment gates <dir>/<name>.json (dir is the experiment's
// directory, name one of CheckNames): the integrity of the table
// (VerifyResult), then the rules of configs/reference/<name>.yaml. A result
// file the rules cannot read is a failed row, not an error.
func CheckExperiment(dir, name string, resultJSON []byte) ([]CheckRow, error) {
	check, ok := checkers[name]
	if !ok {
		return nil, fmt.Errorf("experiments: no check for %q", name)
	}
	rows := VerifyResult(dir, name, resultJSON)
	rules, err := check(resultJSON)
	if err != nil {
		rules = []CheckRow{{Experiment: name, Cell: "all", Rule: "rules", Value: 1, Detail: err.Error()}}
	}
	return append(rows, rules...), nil
}

// verifyCell is one expected row of a table: the trial-key prefix of its
// trials and its label in check rows.
type verifyCell struct {
	key, label string
	// pub are the path of its published values (experiment specific).
	dataset string
	n, d, m int
}

// verifyKind is how one experiment's table is rebuilt from its trial files.
type verifyKind[R, T any] struct {
	trialHash string
	cells     []verifyCell
	trials    int
	eps       [2]float64
	// cellOf is the key prefix of a trial's cell, index its trial index.
	cellOf func(*T) string
	index  func(*T) int
	// row recomputes a cell's row from its trials; stored is the row of the
	// result file, for the columns that do not come from trials (dataset
	// partition counts).
	row    func(c verifyCell, trials []T, stored *R) R
	rowKey func(*R) string
	// tables renders the rows and trials as the experiment does.
	tables func(rows []R, trials []T) []*Table
	// runs are a trial's runs, per algorithm (alg1, cprox), for the
	// per-trial KKT rule.
	runs func(*T) [2]trialRun
	// extra adds experiment-specific rows (independent optima).
	extra func(cells []verifyCell, byCell map[string][]T, rows []R) []CheckRow
}

type trialRun struct {
	status solver.Status
	res    solver.Residuals
}

// verifier accumulates one integrity rule: the number of problems and the
// first one.
type verifier struct {
	n     int
	first string
}

func (v *verifier) fail(format string, args ...any) {
	if v.n == 0 {
		v.first = fmt.Sprintf(format, args...)
	}
	v.n++
}

func (v *verifier) row(experiment, rule, ok string) CheckRow {
	d := v.first
	if v.n == 0 {
		d = ok
	} else if v.n > 1 {
		d = fmt.Sprintf("%s (and %d more)", d, v.n-1)
	}
	return CheckRow{Experiment: experiment, Cell: "all", Rule: rule, Value: float64(v.n), Bound: 0, Pass: v.n == 0, Detail: d}
}

// resultFile is what the verifier reads of any result file.
type resultFile[R, T any] struct {
	Rows   []R `json:"rows"`
	Trials []T `json:"trials"`
}

// manifestFile is what the verifier reads of manifest.json.
type manifestFile struct {
	Experiment string   `json:"experiment"`
	ConfigHash string   `json:"config_hash"`
	TrialHash  string   `json:"trial_hash"`
	TrialFiles []string `json:"trial_files"`
	Complete   *bool    `json:"complete"`
}

// VerifyResult checks that dir/<name>.json is what its trial files make:
// the manifest is complete and of the same configuration; the rows are the
// configuration's cells, each with its number of trials; every trial file
// the manifest lists is valid, of the configuration's trial hash, and equal
// to the result's trial; every row, and the CSV and Markdown tables,
// recomputed from the trial files equal the stored ones; every Converged run
// has its audited KKT residuals within the rule's multiple of (ε1, ε2).
func VerifyResult(dir, name string, resultJSON []byte) []CheckRow {
	fail := func(err error) []CheckRow {
		return []CheckRow{{Experiment: name, Cell: "all", Rule: "result file", Value: 1, Detail: err.Error()}}
	}
	var raw struct {
		Info *struct {
			Config     json.RawMessage `json:"config"`
			ConfigHash string          `json:"config_hash"`
		} `json:"run"`
	}
	if err := json.Unmarshal(resultJSON, &raw); err != nil {
		return fail(fmt.Errorf("%s.json: %w", name, err))
	}
	if raw.Info == nil || len(raw.Info.Config) == 0 || string(raw.Info.Config) == "null" {
		return fail(fmt.Errorf("%s.json: no run record with its configuration", name))
	}
	ref, err := kktFactors(name)
	if err != nil {
		return fail(err)
	}
	switch name {
	case "table4":
		var cfg QPConfig
		if err := strictConfig(raw.Info.Config, &cfg); err != nil {
			return fail(err)
		}
		return verifyWith(dir, name, resultJSON, raw.Info.ConfigHash, &cfg, ref, qpKind(&cfg))
	case "conic-table1":
		var cfg ConicQPConfig
		if err := strictConfig(raw.Info.Config, &cfg); err != nil {
			return fail(err)
		}
		return verifyWith(dir, name, resultJSON, raw.Info.ConfigHash, &cfg, ref, conicQPKind(&cfg))
	case "table1", "conic-table2":
		var cfg NPConfig
		if err := strictConfig(raw.Info.Config, &cfg); err != nil {
			return fail(err)
		}
		return verifyWith(dir, name, resultJSON, raw.Info.ConfigHash, &cfg, ref, npKind(name, &cfg))
	case "table2", "table2-authors", "conic-table3":
		var cfg FairConfig
		if err := strictConfig(raw.Info.Config, &cfg); err != nil {
			return fail(err)
		}
		return verifyWith(dir, name, resultJSON, raw.Info.ConfigHash, &cfg, ref, fairKind(name, &cfg))
	}
	return fail(fmt.Errorf("no verifier for %q", name))
}

// strictConfig decodes a recorded configuration, refusing unknown keys.
func strictConfig(raw []byte, cfg any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(cfg); err != nil {
		return fmt.Errorf("recorded configuration: %w", err)
	}
	return nil
}

// kktFactors reads the kkt rule of configs/reference/<name>.yaml: its
// factor per algorithm (alg1, cprox); absent when the rule does not apply.
func kktFactors(name string) (map[string]float64, error) {
	b, err := configs.Reference(name)
	if err != nil {
		return nil, err
	}
	var ref struct {
		Rules []classCheckRule `yaml:"rules"`
	}
	if err := yaml.Unmarshal(b, &ref); err != nil {
		return nil, fmt.Errorf("experiments: configs/reference/%s.yaml: %w", name, err)
	}
	out := map[string]float64{}
	for _, r := range ref.Rules {
		if r.Name != "kkt" {
			continue
		}
		for _, a := range []string{"alg1", "cprox"} {
			if r.applies(a) {
				out[a] = r.Factor
			}
		}
	}
	return out, nil
}

func verifyWith[R, T any](dir, name string, resultJSON []byte, recordedHash string, cfg any, kkt map[string]float64, k verifyKind[R, T]) []CheckRow {
	var res resultFile[R, T]
	if err := json.Unmarshal(resultJSON, &res); err != nil {
		return []CheckRow{{Experiment: name, Cell: "all", Rule: "result file", Value: 1, Detail: fmt.Sprintf("%s.json: %v", name, err)}}
	}
	var out []CheckRow

	// The manifest: complete, of this configuration, written by this run.
	var man verifier
	var m manifestFile
	switch b, err := os.ReadFile(filepath.Join(dir, "manifest.json")); {
	case err != nil:
		man.fail("manifest.json: %v", err)
	case json.Unmarshal(b, &m) != nil:
		man.fail("manifest.json is not JSON")
	case m.Complete == nil || !*m.Complete:
		man.fail("manifest.json: run not complete")
	case m.Experiment != name:
		man.fail("manifest.json is of experiment %q", m.Experiment)
	case m.ConfigHash != recordedHash:
		man.fail("manifest.json config_hash %s, %s.json has %s", m.ConfigHash, name, recordedHash)
	case m.TrialHash != k.trialHash:
		man.fail("manifest.json trial_hash %s, the configuration's is %s", m.TrialHash, k.trialHash)
	}
	if h := ConfigHash(cfg); h != recordedHash {
		man.fail("%s.json: config_hash %s, its configuration hashes to %s", name, recordedHash, h)
	}
	out = append(out, man.row(name, "manifest", "complete, same configuration"))

	// Rows: exactly the configuration's cells, in order.
	var cells verifier
	if len(res.Rows) != len(k.cells) {
		cells.fail("%d rows, the configuration has %d cells", len(res.Rows), len(k.cells))
	}
	for i, c := range k.cells {
		if i >= len(res.Rows) {
			cells.fail("row %s missing", c.label)
			continue
		}
		if got := k.rowKey(&res.Rows[i]); got != c.key {
			cells.fail("row %d is %s, want %s", i+1, got, c.key)
		}
	}
	if n := len(k.cells) * k.trials; len(res.Trials) != n {
		cells.fail("%d trials, want %d (%d cells x %d)", len(res.Trials), n, len(k.cells), k.trials)
	}
	out = append(out, cells.row(name, "cells and rows", fmt.Sprintf("%d rows of %d trials", len(k.cells), k.trials)))

	// Trial files: those the manifest lists, exactly the expected ones, valid.
	var files verifier
	listed := map[string]bool{}
	for _, f := range m.TrialFiles {
		listed[f] = true
	}
	byCell := map[string][]T{}
	var all []T
	complete := map[string]bool{}
	for _, c := range k.cells {
		complete[c.key] = true
		for t := range k.trials {
			key := trialKey(c.key, t)
			if !listed[key+".json"] {
				files.fail("%s.json not in the manifest's trial_files", key)
			}
			delete(listed, key+".json")
			b, err := os.ReadFile(filepath.Join(dir, "trials", key+".json"))
			if err != nil {
				files.fail("trials/%s.json: %v", key, errors.Unwrap(err))
				complete[c.key] = false
				continue
			}
			var tr T
			if _, err := decodeTrial(b, key, k.trialHash, &tr); err != nil {
				if errors.Is(err, errOtherConfig) {
					err = errors.New("of another configuration")
				}
				files.fail("trials/%s.json: %v", key, err)
				complete[c.key] = false
				continue
			}
			if got := trialKey(k.cellOf(&tr), k.index(&tr)); got != key {
				files.fail("trials/%s.json holds trial %s", key, got)
				complete[c.key] = false
				continue
			}
			byCell[c.key] = append(byCell[c.key], tr)
			all = append(all, tr)
		}
	}
	for _, f := range slices.Sorted(mapKeys(listed)) {
		files.fail("manifest lists %s, not a trial of this table", f)
	}
	out = append(out, files.row(name, "trial files", fmt.Sprintf("%d valid, as the manifest lists", len(all))))

	// The result's trials are the trial files'.
	var same verifier
	if len(res.Trials) != len(all) {
		same.fail("%s.json has %d trials, the trial files %d", name, len(res.Trials), len(all))
	} else {
		for i := range all {
			a, _ := json.Marshal(&all[i])
			b, _ := json.Marshal(&res.Trials[i])
			if !bytes.Equal(a, b) {
				same.fail("trial %s differs from its file (%s)", trialKey(k.cellOf(&all[i]), k.index(&all[i])), firstDiff(b, a))
			}
		}
	}
	out = append(out, same.row(name, "trials = trial files", "equal"))

	// Rows and tables recomputed from the trial files.
	var rowsV verifier
	rows := make([]R, 0, len(k.cells))
	for i, c := range k.cells {
		if !complete[c.key] || i >= len(res.Rows) || k.rowKey(&res.Rows[i]) != c.key {
			rowsV.fail("row %s cannot be recomputed (trial files or row missing)", c.label)
			continue
		}
		r := k.row(c, byCell[c.key], &res.Rows[i])
		a, _ := json.Marshal(&r)
		b, _ := json.Marshal(&res.Rows[i])
		if !bytes.Equal(a, b) {
			rowsV.fail("row %s: %s", c.label, firstDiff(b, a))
		}
		rows = append(rows, r)
	}
	out = append(out, rowsV.row(name, "rows recomputed", "equal to the trial files' aggregates"))
	var tabV verifier
	if rowsV.n > 0 {
		tabV.fail("not recomputed: rows differ")
	} else {
		var md, csv strings.Builder
		for i, t := range k.tables(rows, all) {
			if i > 0 {
				md.WriteString("\n")
				csv.WriteString("\n")
			}
			md.WriteString(t.Markdown())
			csv.WriteString(t.CSV())
		}
		for _, f := range []struct{ ext, want string }{{"csv", csv.String()}, {"md", md.String()}} {
			b, err := os.ReadFile(filepath.Join(dir, name+"."+f.ext))
			switch {
			case errors.Is(err, fs.ErrNotExist):
				tabV.fail("%s.%s missing", name, f.ext)
			case err != nil:
				tabV.fail("%s.%s: %v", name, f.ext, err)
			case string(b) != f.want:
				tabV.fail("%s.%s: %s", name, f.ext, firstLineDiff(string(b), f.want))
			}
		}
	}
	out = append(out, tabV.row(name, "tables recomputed", name+".csv and .md equal"))

	// Each Converged run's audited residuals within the kkt rule's bound.
	var kktV verifier
	checked := 0
	for i := range all {
		for j, alg := range []string{"alg1", "cprox"} {
			f, ok := kkt[alg]
			run := k.runs(&all[i])[j]
			if !ok || run.status != solver.Converged {
				continue
			}
			checked++
			st, fe := run.res.Stationarity/(f*k.eps[0]), run.res.Feasibility/(f*k.eps[1])
			if st > 1 || fe > 1 || math.IsNaN(st+fe) {
				kktV.fail("trial %s %s: Converged with KKT residuals %.3g x, %.3g x the bound", trialKey(k.cellOf(&all[i]), k.index(&all[i])), alg, st, fe)
			}
		}
	}
	out = append(out, kktV.row(name, "trial kkt vs status", fmt.Sprintf("%d Converged runs within (ε1, ε2)", checked)))
	if k.extra != nil {
		out = append(out, k.extra(k.cells, byCell, rows)...)
	}
	return out
}

func mapKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// firstDiff names the first JSON field where stored and recomputed differ.
func firstDiff(stored, recomputed []byte) string {
	var a, b any
	_ = json.Unmarshal(stored, &a)
	_ = json.Unmarshal(recomputed, &b)
	if p := diffPath("", a, b); p != "" {
		return p
	}
	return "encodings differ"
}

func diffPath(path string, a, b any) string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := slices.Sorted(mapKeysAny(am))
		for _, k := range slices.Sorted(mapKeysAny(bm)) {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			if p := diffPath(path+"."+k, am[k], bm[k]); p != "" {
				return p
			}
		}
		return ""
	}
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok && bok && len(as) == len(bs) {
		for i := range as {
			if p := diffPath(fmt.Sprintf("%s[%d]", path, i), as[i], bs[i]); p != "" {
				return p
			}
		}
		return ""
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	if bytes.Equal(x, y) {
		return ""
	}
	return fmt.Sprintf("%s stored %s, recomputed %s", strings.TrimPrefix(path, "."), clip(string(x)), clip(string(y)))
}

func mapKeysAny(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:37]) + "..."
	}
	return s
}

// firstLineDiff names the first line where a file differs from its recomputation.
func firstLineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d is %q, recomputed %q", i+1, clip(a), clip(b))
		}
	}
	return "differs"
}

func qpRuns(r *QPRuns) [2]trialRun {
	return [2]trialRun{{r.Alg1.Status, r.Alg1.Residuals}, {r.CProx.Status, r.CProx.Residuals}}
}

func classRuns(t *ClassTrial) [2]trialRun {
	return [2]trialRun{{t.Alg1.Status, t.Alg1.Residuals}, {t.CProx.Status, t.CProx.Residuals}}
}

func qpKind(cfg *QPConfig) verifyKind[QPRow, QPTrial] {
	var cells []verifyCell
	for _, c := range cfg.Cells {
		if len(c) != 3 {
			continue
		}
		cells = append(cells, verifyCell{key: fmt.Sprintf("n%d-d%d-m%d", c[0], c[1], c[2]), label: fmt.Sprintf("n=%d d=%d m=%d", c[0], c[1], c[2]), n: c[0], d: c[1], m: c[2]})
	}
	eps := [2]float64{cfg.Eps1, cfg.Eps2}
	return verifyKind[QPRow, QPTrial]{
		trialHash: cfg.TrialHash(), cells: cells, trials: cfg.Trials, eps: eps,
		cellOf: func(t *QPTrial) string { return fmt.Sprintf("n%d-d%d-m%d", t.N, t.D, t.M) },
		index:  func(t *QPTrial) int { return t.Trial },
		row: func(c verifyCell, trials []QPTrial, _ *QPRow) QPRow {
			row := qpRow(c.n, c.d, c.m, trials[0].FStar, trials, eps)
			row.Nu1 = trials[0].Nu1
			return row
		},
		rowKey: func(r *QPRow) string { return fmt.Sprintf("n%d-d%d-m%d", r.N, r.D, r.M) },
		tables: func(rows []QPRow, trials []QPTrial) []*Table {
			return (&QPResult{Info: &RunInfo{Config: cfg}, Rows: rows, Trials: trials}).Tables()
		},
		runs: func(t *QPTrial) [2]trialRun { return qpRuns(&t.QPRuns) },
		extra: func(cells []verifyCell, byCell map[string][]QPTrial, _ []QPRow) []CheckRow {
			return qpOptima(cfg, cells, byCell)
		},
	}
}

// qpOptima solves each cell's instance again (its KKT system) and compares
// every trial's f* and ||ν*||₁ with it, so that objectives and f* cannot be
// changed together; with --rng numpy it also compares f* with the paper.
func qpOptima(cfg *QPConfig, cells []verifyCell, byCell map[string][]QPTrial) []CheckRow {
	var v, pv verifier
	papers := 0
	for _, c := range cells {
		trials := byCell[c.key]
		if len(trials) == 0 {
			continue
		}
		inst, err := qpInstance(cfg, c.n, c.d, c.m)
		if err != nil {
			v.fail("%s: %v", c.label, err)
			continue
		}
		_, nu, fstar, err := inst.ExactKKT()
		if err != nil {
			v.fail("%s: %v", c.label, err)
			continue
		}
		var nu1 float64
		for _, x := range nu {
			nu1 += math.Abs(x)
		}
		for _, t := range trials {
			if !sameFloat(t.FStar, fstar) || !sameFloat(t.Nu1, nu1) {
				v.fail("%s trial %d: f* %.10g, ||ν*||₁ %.6g; the instance's are %.10g, %.6g", c.label, t.Trial, t.FStar, t.Nu1, fstar, nu1)
			}
		}
		if p := publishedTable4(c.n, c.d, c.m); cfg.RNG == "numpy" && len(p) >= 3 {
			papers++
			// The paper prints objectives to 2 decimals; its runs met ε2.
			if d := math.Abs(fstar - p[2]); d > 0.005+cfg.Eps2*nu1+1e-9 {
				pv.fail("%s: f* %.4f, paper's cProx-AL objective %.2f", c.label, fstar, p[2])
			}
		}
	}
	out := []CheckRow{v.row("table4", "f* recomputed", "every trial's f* and ||ν*||₁ equal an independent solve")}
	if papers > 0 {
		out = append(out, pv.row("table4", "f* vs paper", fmt.Sprintf("%d cells within 0.005 + ε2·||ν*||₁", papers)))
	}
	return out
}

// sameFloat is equality up to the last bits of a recomputation.
func sameFloat(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func conicQPKind(cfg *ConicQPConfig) verifyKind[ConicQPRow, ConicQPTrial] {
	var cells []verifyCell
	for _, c := range cfg.Cells {
		if len(c) != 3 {
			continue
		}
		cells = append(cells, verifyCell{key: conicQPCell(c[0], c[1], c[2]), label: fmt.Sprintf("d=%d n=%d m=%d", c[0], c[1], c[2]), d: c[0], n: c[1], m: c[2]})
	}
	eps := [2]float64{cfg.Eps1, cfg.Eps2}
	return verifyKind[ConicQPRow, ConicQPTrial]{
		trialHash: cfg.TrialHash(), cells: cells, trials: cfg.Trials, eps: eps,
		cellOf: func(t *ConicQPTrial) string { return conicQPCell(t.D, t.N, t.M) },
		index:  func(t *ConicQPTrial) int { return t.Trial },
		row: func(c verifyCell, trials []ConicQPTrial, _ *ConicQPRow) ConicQPRow {
			return conicQPRow(c.d, c.n, c.m, trials, eps)
		},
		rowKey: func(r *ConicQPRow) string { return conicQPCell(r.D, r.N, r.M) },
		tables: func(rows []ConicQPRow, trials []ConicQPTrial) []*Table {
			return (&ConicQPResult{Info: &RunInfo{Config: cfg}, Rows: rows, Trials: trials}).Tables()
		},
		runs: func(t *ConicQPTrial) [2]trialRun { return qpRuns(&t.QPRuns) },
	}
}

func classKind(cells []verifyCell, trialHash string, trials int, mc *MethodConfig, r float64,
	pub func(c verifyCell) []float64, tables func([]ClassRow, []ClassTrial) []*Table) verifyKind[ClassRow, ClassTrial] {
	return verifyKind[ClassRow, ClassTrial]{
		trialHash: trialHash, cells: cells, trials: trials, eps: [2]float64{mc.Eps1, mc.Eps2},
		cellOf: func(t *ClassTrial) string { return fmt.Sprintf("%s-n%d", t.Dataset, t.N) },
		index:  func(t *ClassTrial) int { return t.Trial },
		row: func(c verifyCell, trials []ClassTrial, stored *ClassRow) ClassRow {
			row := classRow(c.dataset, c.n, trials, r, mc.Eps1, mc.Eps2)
			// The partition's columns come from the data set, not the trials.
			row.Dropped, row.Uncons1, row.Uncons1Max = stored.Dropped, stored.Uncons1, stored.Uncons1Max
			row.Published = pub(c)
			return row
		},
		rowKey: func(r *ClassRow) string { return fmt.Sprintf("%s-n%d", r.Dataset, r.N) },
		tables: tables,
		runs:   classRuns,
	}
}

func npKind(name string, cfg *NPConfig) verifyKind[ClassRow, ClassTrial] {
	var cells []verifyCell
	for _, ds := range cfg.Datasets {
		for _, n := range cfg.Clients {
			cells = append(cells, verifyCell{key: fmt.Sprintf("%s-n%d", ds, n), label: fmt.Sprintf("%s n=%d", ds, n), dataset: ds, n: n})
		}
	}
	pub := func(c verifyCell) []float64 { return published("table1", c.dataset, fmt.Sprint(c.n)) }
	tables := func(rows []ClassRow, trials []ClassTrial) []*Table {
		return (&NPResult{Info: &RunInfo{Config: cfg}, Rows: rows, Trials: trials}).Tables()
	}
	if name == "conic-table2" {
		pub = func(c verifyCell) []float64 {
			return publishedIn("conic-published", "table2", c.dataset, fmt.Sprint(c.n))
		}
		tables = func(rows []ClassRow, trials []ClassTrial) []*Table {
			return (&ConicClassResult{Info: &RunInfo{Config: cfg}, Table: "table2", Rows: rows, Trials: trials}).Tables()
		}
	}
	return classKind(cells, cfg.TrialHash(), cfg.Trials, &cfg.MethodConfig, cfg.R, pub, tables)
}

func fairKind(name string, cfg *FairConfig) verifyKind[ClassRow, ClassTrial] {
	var cells []verifyCell
	for _, n := range cfg.Clients {
		cells = append(cells, verifyCell{key: fmt.Sprintf("%s-n%d", cfg.Dataset, n), label: fmt.Sprintf("%s n=%d", cfg.Dataset, n), dataset: cfg.Dataset, n: n})
	}
	pub := func(c verifyCell) []float64 { return published("table2", fmt.Sprint(c.n)) }
	tables := func(rows []ClassRow, trials []ClassTrial) []*Table {
		return (&FairResult{Info: &RunInfo{Config: cfg}, Rows: rows, Trials: trials}).Tables()
	}
	if name == "conic-table3" {
		pub = func(c verifyCell) []float64 { return publishedIn("conic-published", "table3", fmt.Sprint(c.n)) }
		tables = func(rows []ClassRow, trials []ClassTrial) []*Table {
			return (&ConicClassResult{Info: &RunInfo{Config: cfg}, Table: "table3", Rows: rows, Trials: trials}).Tables()
		}
	}
	return classKind(cells, cfg.TrialHash(), cfg.Trials, &cfg.MethodConfig, cfg.R, pub, tables)
}
