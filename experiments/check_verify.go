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
// file the rules cannot read is a failed row, not an error. Last comes the
// provenance of the trial files the manifest lists (ManifestProvenance).
func CheckExperiment(dir, name string, resultJSON []byte, opt GateOptions) ([]CheckRow, error) {
	check, ok := checks[name]
	if !ok {
		return nil, fmt.Errorf("experiments: no check for %q", name)
	}
	rows := VerifyResult(dir, name, resultJSON, opt.DataDirs)
	rules, err := check.Rules(name, resultJSON)
	if err != nil {
		rules = []CheckRow{{Experiment: name, Cell: "all", Rule: "rules", Value: 1, Detail: err.Error()}}
	}
	rows = append(rows, rules...)
	if r, ok := ManifestProvenance(name, dir, "manifest.json", opt); ok {
		rows = append(rows, r)
	}
	return rows, nil
}

// VerifyCell is one expected row of a table: the trial-key prefix of its
// trials and its label in check rows.
type VerifyCell struct {
	Key, Label string
	// pub are the path of its published values (experiment specific).
	Dataset string
	N, D, M int
}

// VerifyKind is how one experiment's table is rebuilt from its trial files.
type VerifyKind[R, T any] struct {
	TrialHash string
	Cells     []VerifyCell
	Trials    int
	Eps       [2]float64
	// CellOf is the key prefix of a trial's cell, Index its trial index.
	CellOf func(*T) string
	Index  func(*T) int
	// Row recomputes a cell's row from its trials; stored is the row of the
	// result file, for the columns that do not come from trials (dataset
	// partition counts).
	Row    func(c VerifyCell, trials []T, stored *R) R
	RowKey func(*R) string
	// Tables renders the rows and trials as the experiment does.
	Tables func(rows []R, trials []T) []*Table
	// Runs are a trial's runs, per algorithm (alg1, cprox), for the
	// per-trial KKT rule.
	Runs func(*T) [2]TrialRun
	// Extra adds experiment-specific rows (independent optima).
	Extra func(cells []VerifyCell, byCell map[string][]T, rows []R) []CheckRow
}

// TrialRun is one algorithm's run of a trial, for the per-trial KKT rule:
// its status and its audited KKT residuals (solver.Residuals), the two
// numbers the rule bounds rather than the prox-AL type that holds them.
type TrialRun struct {
	Status                    solver.Status
	Stationarity, Feasibility float64
}

// Verifier accumulates one integrity rule: the number of problems and the
// first one.
type Verifier struct {
	n     int
	first string
}

// Fail records one problem.
func (v *Verifier) Fail(format string, args ...any) {
	if v.n == 0 {
		v.first = fmt.Sprintf(format, args...)
	}
	v.n++
}

// Row is the check row of the rule: ok when no problem was recorded.
func (v *Verifier) Row(experiment, rule, ok string) CheckRow {
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
// A table's data-split columns are recomputed from the data sets found on
// dataDirs (nil: the download cache).
func VerifyResult(dir, name string, resultJSON []byte, dataDirs []string) []CheckRow {
	fail := func(err error) []CheckRow { return FailedResult(name, err) }
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
	if c, ok := checks[name]; ok {
		return c.Verify(VerifyInput{Dir: dir, Name: name, Result: resultJSON, Config: raw.Info.Config,
			ConfigHash: raw.Info.ConfigHash, KKT: ref, DataDirs: dataDirs})
	}
	return fail(fmt.Errorf("no verifier for %q", name))
}

// FailedResult is the one check row of a result file that cannot be verified.
func FailedResult(name string, err error) []CheckRow {
	return []CheckRow{{Experiment: name, Cell: "all", Rule: "result file", Value: 1, Detail: err.Error()}}
}

// StrictConfig decodes a recorded configuration, refusing unknown keys.
func StrictConfig(raw []byte, cfg any) error {
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
		Rules []RefRule `yaml:"rules"`
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
			if r.Applies(a) {
				out[a] = r.Factor
			}
		}
	}
	return out, nil
}

// VerifyWith checks the result file of experiment name in dir against
// its trial files as kind k describes them (see VerifyResult).
func VerifyWith[R, T any](dir, name string, resultJSON []byte, recordedHash string, cfg any, kkt map[string]float64, k VerifyKind[R, T]) []CheckRow {
	var res resultFile[R, T]
	if err := json.Unmarshal(resultJSON, &res); err != nil {
		return []CheckRow{{Experiment: name, Cell: "all", Rule: "result file", Value: 1, Detail: fmt.Sprintf("%s.json: %v", name, err)}}
	}
	m, manRow := verifyManifest(dir, name, recordedHash, cfg, k.TrialHash)
	out := []CheckRow{manRow, verifyCells(name, &res, k)}
	tf, filesRow := readTrialFiles(dir, name, m.TrialFiles, k)
	out = append(out, filesRow, verifySame(name, res.Trials, tf.all, k))
	rows, rowsV := recomputeRows(res.Rows, tf, k)
	out = append(out, rowsV.Row(name, "rows recomputed", "equal to the trial files' aggregates"))
	out = append(out, verifyTables(dir, name, rowsV.n > 0, rows, tf.all, k))
	out = append(out, verifyKKT(name, tf.all, kkt, k))
	if k.Extra != nil {
		out = append(out, k.Extra(k.Cells, tf.byCell, rows)...)
	}
	return out
}

// verifyManifest checks that the manifest is complete, of this
// configuration and written by this run; it returns the manifest read
// (zero if unreadable), whose trial files the next rule checks.
func verifyManifest(dir, name, recordedHash string, cfg any, trialHash string) (manifestFile, CheckRow) {
	var man Verifier
	var m manifestFile
	switch b, err := os.ReadFile(filepath.Join(dir, "manifest.json")); {
	case err != nil:
		man.Fail("manifest.json: %v", err)
	case json.Unmarshal(b, &m) != nil:
		man.Fail("manifest.json is not JSON")
	case m.Complete == nil || !*m.Complete:
		man.Fail("manifest.json: run not complete")
	case m.Experiment != name:
		man.Fail("manifest.json is of experiment %q", m.Experiment)
	case m.ConfigHash != recordedHash:
		man.Fail("manifest.json config_hash %s, %s.json has %s", m.ConfigHash, name, recordedHash)
	case m.TrialHash != trialHash:
		man.Fail("manifest.json trial_hash %s, the configuration's is %s", m.TrialHash, trialHash)
	}
	if h := ConfigHash(cfg); h != recordedHash {
		man.Fail("%s.json: config_hash %s, its configuration hashes to %s", name, recordedHash, h)
	}
	return m, man.Row(name, "manifest", "complete, same configuration")
}

// verifyCells checks that the rows are exactly the configuration's cells,
// in order, with all their trials: a result cut short or reordered fails
// here, before its numbers are compared.
func verifyCells[R, T any](name string, res *resultFile[R, T], k VerifyKind[R, T]) CheckRow {
	var cells Verifier
	if len(res.Rows) != len(k.Cells) {
		cells.Fail("%d rows, the configuration has %d cells", len(res.Rows), len(k.Cells))
	}
	for i, c := range k.Cells {
		if i >= len(res.Rows) {
			cells.Fail("row %s missing", c.Label)
			continue
		}
		if got := k.RowKey(&res.Rows[i]); got != c.Key {
			cells.Fail("row %d is %s, want %s", i+1, got, c.Key)
		}
	}
	if n := len(k.Cells) * k.Trials; len(res.Trials) != n {
		cells.Fail("%d trials, want %d (%d cells x %d)", len(res.Trials), n, len(k.Cells), k.Trials)
	}
	return cells.Row(name, "cells and rows", fmt.Sprintf("%d rows of %d trials", len(k.Cells), k.Trials))
}

// trialFiles are the valid trial files, in the configuration's order: all
// of them, per cell, and which cells have every trial (only those rows
// can be recomputed).
type trialFiles[T any] struct {
	all      []T
	byCell   map[string][]T
	complete map[string]bool
}

// readTrialFiles reads the expected trial files, checking that the
// manifest lists exactly them and that each is valid and of this
// configuration.
func readTrialFiles[R, T any](dir, name string, manifestFiles []string, k VerifyKind[R, T]) (trialFiles[T], CheckRow) {
	var files Verifier
	listed := map[string]bool{}
	for _, f := range manifestFiles {
		listed[f] = true
	}
	tf := trialFiles[T]{byCell: map[string][]T{}, complete: map[string]bool{}}
	for _, c := range k.Cells {
		tf.complete[c.Key] = true
		for t := range k.Trials {
			key := TrialKey(c.Key, t)
			if !listed[key+".json"] {
				files.Fail("%s.json not in the manifest's trial_files", key)
			}
			delete(listed, key+".json")
			tr, ok := readTrialFile(dir, key, k, &files)
			if !ok {
				tf.complete[c.Key] = false
				continue
			}
			tf.byCell[c.Key] = append(tf.byCell[c.Key], tr)
			tf.all = append(tf.all, tr)
		}
	}
	for _, f := range slices.Sorted(mapKeys(listed)) {
		files.Fail("manifest lists %s, not a trial of this table", f)
	}
	return tf, files.Row(name, "trial files", fmt.Sprintf("%d valid, as the manifest lists", len(tf.all)))
}

// readTrialFile reads trials/<key>.json, recording on files why it is not
// a valid trial of this configuration stored under its own key.
func readTrialFile[R, T any](dir, key string, k VerifyKind[R, T], files *Verifier) (T, bool) {
	var tr T
	b, err := os.ReadFile(filepath.Join(dir, "trials", key+".json"))
	if err != nil {
		files.Fail("trials/%s.json: %v", key, errors.Unwrap(err))
		return tr, false
	}
	if _, err := DecodeTrial(b, key, k.TrialHash, &tr); err != nil {
		if errors.Is(err, errOtherConfig) {
			err = errors.New("of another configuration")
		}
		files.Fail("trials/%s.json: %v", key, err)
		return tr, false
	}
	if got := TrialKey(k.CellOf(&tr), k.Index(&tr)); got != key {
		files.Fail("trials/%s.json holds trial %s", key, got)
		return tr, false
	}
	return tr, true
}

// verifySame checks that the result's trials are the trial files', so
// that the recomputed rows speak for the stored ones.
func verifySame[R, T any](name string, stored, all []T, k VerifyKind[R, T]) CheckRow {
	var same Verifier
	if len(stored) != len(all) {
		same.Fail("%s.json has %d trials, the trial files %d", name, len(stored), len(all))
	} else {
		for i := range all {
			a, _ := json.Marshal(&all[i])
			b, _ := json.Marshal(&stored[i])
			if !bytes.Equal(a, b) {
				same.Fail("trial %s differs from its file (%s)", TrialKey(k.CellOf(&all[i]), k.Index(&all[i])), firstDiff(b, a))
			}
		}
	}
	return same.Row(name, "trials = trial files", "equal")
}

// recomputeRows rebuilds every row from the trial files and compares it
// with the stored one; the tables are rebuilt from these rows only if
// none failed.
func recomputeRows[R, T any](stored []R, tf trialFiles[T], k VerifyKind[R, T]) ([]R, Verifier) {
	var rowsV Verifier
	rows := make([]R, 0, len(k.Cells))
	for i, c := range k.Cells {
		if !tf.complete[c.Key] || i >= len(stored) || k.RowKey(&stored[i]) != c.Key {
			rowsV.Fail("row %s cannot be recomputed (trial files or row missing)", c.Label)
			continue
		}
		r := k.Row(c, tf.byCell[c.Key], &stored[i])
		a, _ := json.Marshal(&r)
		b, _ := json.Marshal(&stored[i])
		if !bytes.Equal(a, b) {
			rowsV.Fail("row %s: %s", c.Label, firstDiff(b, a))
		}
		rows = append(rows, r)
	}
	return rows, rowsV
}

// verifyTables renders the recomputed rows as the experiment does and
// compares them with <name>.csv and .md, the files a reader sees;
// rowsFailed skips it, as differing rows make differing tables.
func verifyTables[R, T any](dir, name string, rowsFailed bool, rows []R, all []T, k VerifyKind[R, T]) CheckRow {
	var tabV Verifier
	if rowsFailed {
		tabV.Fail("not recomputed: rows differ")
		return tabV.Row(name, "tables recomputed", name+".csv and .md equal")
	}
	var md, csv strings.Builder
	for i, t := range k.Tables(rows, all) {
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
			tabV.Fail("%s.%s missing", name, f.ext)
		case err != nil:
			tabV.Fail("%s.%s: %v", name, f.ext, err)
		case string(b) != f.want:
			tabV.Fail("%s.%s: %s", name, f.ext, FirstLineDiff(string(b), f.want))
		}
	}
	return tabV.Row(name, "tables recomputed", name+".csv and .md equal")
}

// verifyKKT checks each Converged run's audited residuals against the kkt
// rule's bound (factor kkt[alg] times (ε1, ε2)): a status the solver's
// own audit contradicts fails here.
func verifyKKT[R, T any](name string, all []T, kkt map[string]float64, k VerifyKind[R, T]) CheckRow {
	var kktV Verifier
	checked := 0
	for i := range all {
		for j, alg := range []string{"alg1", "cprox"} {
			f, ok := kkt[alg]
			run := k.Runs(&all[i])[j]
			if !ok || run.Status != solver.Converged {
				continue
			}
			checked++
			st, fe := run.Stationarity/(f*k.Eps[0]), run.Feasibility/(f*k.Eps[1])
			if st > 1 || fe > 1 || math.IsNaN(st+fe) {
				kktV.Fail("trial %s %s: Converged with KKT residuals %.3g x, %.3g x the bound", TrialKey(k.CellOf(&all[i]), k.Index(&all[i])), alg, st, fe)
			}
		}
	}
	return kktV.Row(name, "trial kkt vs status", fmt.Sprintf("%d Converged runs within (ε1, ε2)", checked))
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

// FirstLineDiff names the first line where a file differs from its recomputation.
func FirstLineDiff(got, want string) string {
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

// SameFloat is equality up to the last bits of a recomputation.
func SameFloat(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
