package experiments

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// ExpectedFile is the record `reproduce all` keeps in its results directory:
// the experiments it was asked to run there (every run adds its --only
// set), so that the gate reports an expected experiment that is absent.
const ExpectedFile = "reproduce-all.json"

// Expected is the content of ExpectedFile.
type Expected struct {
	Schema      int      `json:"schema"`
	Experiments []string `json:"experiments"`
	// Skipped says why reproduce all's last run of an experiment could not
	// run it (a data set not found), by experiment.
	Skipped map[string]string `json:"skipped,omitempty"`
}

// SetSkipped records in dir/ExpectedFile why the experiments of skipped
// could not run, and forgets the reason of those in ran.
func SetSkipped(dir string, skipped map[string]string, ran []string) error {
	e, err := ReadExpected(dir)
	if err != nil {
		return err
	}
	if e.Skipped == nil {
		e.Skipped = map[string]string{}
	}
	for _, n := range ran {
		delete(e.Skipped, n)
	}
	for n, why := range skipped {
		e.Skipped[n] = why
	}
	e.Schema = 1
	return WriteJSON(filepath.Join(dir, ExpectedFile), e)
}

// AddExpected records names as expected in dir/ExpectedFile, keeping the
// names already there.
func AddExpected(dir string, names []string) error {
	e, err := ReadExpected(dir)
	if err != nil {
		return err
	}
	all := append(e.Experiments, names...)
	slices.Sort(all)
	return WriteJSON(filepath.Join(dir, ExpectedFile), &Expected{Schema: 1, Experiments: slices.Compact(all), Skipped: e.Skipped})
}

// ReadExpected reads dir/ExpectedFile; a missing file expects nothing.
func ReadExpected(dir string) (*Expected, error) {
	b, err := os.ReadFile(filepath.Join(dir, ExpectedFile))
	if errors.Is(err, fs.ErrNotExist) {
		return &Expected{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	var e Expected
	if err := json.Unmarshal(b, &e); err != nil || e.Schema != 1 {
		return nil, fmt.Errorf("experiments: %s: not a record of reproduce all (schema 1)", filepath.Join(dir, ExpectedFile))
	}
	return &e, nil
}

// Found is one experiment of a results directory: its result file, and the
// manifest of the run that wrote it when there is one.
type Found struct {
	Name string // the experiment: table4, np-adult-a-n10, ssca-figure2, drfl-figure2
	Dir  string // its directory
	// Result and Manifest are file names in Dir ("" for none).
	Result, Manifest string
}

// Skipped is a directory of results the gate cannot check, and why.
type Skipped struct {
	Dir, Why string
}

// Find lists the experiments in the directories one level below
// root: a manifest.json (the experiment named by its directory), a
// manifest-<name>.json (SSCA's shared directory), or a result <file>.json
// with a run record and no manifest (Table 3, the DRFL figures, named by
// their run record), or <dir>.json, the directory's own result file, even
// when it does not parse. Directories that hold only shard manifests (not
// merged) or an interrupted run's partial table are skipped, with why.
func Find(root string) ([]Found, []Skipped, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, nil, fmt.Errorf("experiments: %w", err)
	}
	var found []Found
	var skipped []Skipped
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		dir := filepath.Join(root, e.Name())
		files, err := os.ReadDir(dir)
		if err != nil {
			return nil, nil, fmt.Errorf("experiments: %w", err)
		}
		var names []string
		for _, f := range files {
			if !f.IsDir() && strings.HasSuffix(f.Name(), ".json") && !strings.HasPrefix(f.Name(), ".") {
				names = append(names, f.Name())
			}
		}
		claimed := map[string]bool{}
		var here []Found
		for _, n := range names {
			switch {
			case n == "manifest.json":
				here = append(here, Found{Name: e.Name(), Dir: dir, Result: e.Name() + ".json", Manifest: n})
			case strings.HasPrefix(n, "manifest-"):
				name := strings.TrimSuffix(strings.TrimPrefix(n, "manifest-"), ".json")
				here = append(here, Found{Name: name, Dir: dir, Result: name + ".json", Manifest: n})
			default:
				continue
			}
			claimed[here[len(here)-1].Result] = true
		}
		partial, shards := false, false
		for _, n := range names {
			switch {
			case claimed[n] || strings.HasPrefix(n, "manifest"):
			case strings.HasSuffix(n, "-partial.json"):
				partial = true
			case strings.HasPrefix(n, "shard-"):
				shards = true
			case n == e.Name()+".json":
				// The directory's own result file: found even when it does
				// not parse, so that the result file rule names it.
				name, _ := runRecordName(filepath.Join(dir, n))
				if name == "" {
					name = e.Name()
				}
				here = append(here, Found{Name: name, Dir: dir, Result: n})
			default:
				if name, ok := runRecordName(filepath.Join(dir, n)); ok {
					here = append(here, Found{Name: name, Dir: dir, Result: n})
				}
			}
		}
		switch {
		case len(here) > 0:
			found = append(found, here...)
		case shards:
			skipped = append(skipped, Skipped{dir, "shard manifests, not merged (fedcon merge)"})
		case partial:
			skipped = append(skipped, Skipped{dir, "an interrupted run's partial table only (rerun to resume)"})
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].Name < found[j].Name })
	return found, skipped, nil
}

// runRecord is what the gate reads of any result file: its run record
// ("run", or "info" for Table 3 and SSCA) and its trials, if it has them.
type runRecord struct {
	Run    *RunInfoRecord    `json:"run"`
	Info   *RunInfoRecord    `json:"info"`
	Trials []json.RawMessage `json:"trials"`
}

// RunInfoRecord is a result's run record as the gate reads it.
type RunInfoRecord struct {
	Experiment string          `json:"experiment"`
	Version    string          `json:"fedcon_version"`
	Config     json.RawMessage `json:"config"`
	ConfigHash string          `json:"config_hash"`
}

func (r *runRecord) record() *RunInfoRecord {
	if r.Run != nil {
		return r.Run
	}
	return r.Info
}

// runRecordName is the experiment a result file without a manifest belongs
// to: its run record's name, else the file's.
func runRecordName(path string) (string, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	var r runRecord
	if json.Unmarshal(b, &r) != nil || r.record() == nil {
		return "", false
	}
	if n := r.record().Experiment; n != "" && n != "ssca" {
		return n, true
	}
	return strings.TrimSuffix(filepath.Base(path), ".json"), true
}

// Coverage is one experiment of the gate's coverage table: what was
// checked there, or why it was not.
type Coverage struct {
	Experiment string `json:"experiment"`
	Dir        string `json:"dir"`
	// Status is "checked", "not run" or "skipped".
	Status  string `json:"status"`
	Checked string `json:"checked"`
	Checks  int    `json:"checks"`
	Failed  int    `json:"failed"`
}

// GateResult is the whole gate on one results directory.
type GateResult struct {
	Rows     []CheckRow `json:"rows"`
	Coverage []Coverage `json:"coverage"`
}

// Gate checks every experiment of root (Find): those with a
// reference file (CheckNames) by CheckExperiment, the others by the
// generic rules (GenericCheck). When root holds the record of reproduce all
// (ExpectedFile), each expected experiment that is absent is a failed
// "not run" row. It fails only when root cannot be read or holds nothing.
func Gate(root string, opt GateOptions) (*GateResult, error) {
	found, skipped, err := Find(root)
	if err != nil {
		return nil, err
	}
	exp, err := ReadExpected(root)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 && len(skipped) == 0 && len(exp.Experiments) == 0 {
		return nil, fmt.Errorf("experiments: %s: %w", root, ErrNoResults)
	}
	g := &GateResult{}
	rel := func(d string) string {
		if r, err := filepath.Rel(root, d); err == nil {
			return filepath.ToSlash(r)
		}
		return d
	}
	have := map[string]bool{}
	for _, f := range found {
		have[f.Name] = true
		var rows []CheckRow
		kind := "generic rules (no reference file)"
		if slices.Contains(CheckNames(), f.Name) && f.Manifest == "manifest.json" {
			kind = fmt.Sprintf("configs/reference/%s.yaml, the table rebuilt from its trial files", f.Name)
			b, err := os.ReadFile(filepath.Join(f.Dir, f.Result))
			switch {
			case errors.Is(err, fs.ErrNotExist):
				rows = []CheckRow{{Experiment: f.Name, Cell: "all", Rule: "result file", Value: 1,
					Detail: f.Result + " missing beside its manifest: the run did not finish (rerun it to resume)"}}
			case err != nil:
				return nil, fmt.Errorf("experiments: %w", err)
			default:
				if rows, err = CheckExperiment(f.Dir, f.Name, b, opt); err != nil {
					return nil, err
				}
			}
		} else {
			rows = GenericCheck(f, opt)
		}
		if f.Manifest == "" {
			kind += "; no manifest, so no trial files"
		}
		what := kind + ": " + ruleNames(rows)
		if strings.HasPrefix(kind, "configs/") {
			what = fmt.Sprintf("%s: %d rules, provenance", kind, strings.Count(ruleNames(rows), ",")) // rules but provenance
		}
		c := Coverage{Experiment: f.Name, Dir: rel(f.Dir), Status: "checked", Checked: what, Checks: len(rows)}
		for _, r := range rows {
			if !r.Pass {
				c.Failed++
			}
		}
		g.Rows = append(g.Rows, rows...)
		g.Coverage = append(g.Coverage, c)
	}
	for _, name := range exp.Experiments {
		if have[name] {
			continue
		}
		why := "no result"
		if s := exp.Skipped[name]; s != "" {
			why = "reproduce all skipped it: " + s
		}
		g.Rows = append(g.Rows, CheckRow{Experiment: name, Cell: "all", Rule: "not run", Value: 1,
			Detail: fmt.Sprintf("expected by %s (reproduce all) but absent (%s): rerun reproduce all, or --only to narrow", ExpectedFile, why)})
		g.Coverage = append(g.Coverage, Coverage{Experiment: name, Status: "not run", Checked: "nothing: " + why, Checks: 1, Failed: 1})
	}
	for _, s := range skipped {
		g.Coverage = append(g.Coverage, Coverage{Experiment: filepath.Base(s.Dir), Dir: rel(s.Dir), Status: "skipped", Checked: s.Why})
	}
	return g, nil
}

// GenericCheck applies the rules every experiment gets, with or without a
// reference file: the result file has a run record; its manifest is
// complete and of the result's configuration; every trial file it lists is
// a valid trial file of its trial hash and key; the result's trials are
// exactly the trial files' (when the result holds trials); every run that
// ended Converged has KKT residuals within the configuration's (ε1, ε2);
// the rules the paper packages register for their kinds of result
// (RegisterGenericCheck); and the provenance of the trial files.
func GenericCheck(f Found, opt GateOptions) []CheckRow {
	row := func(rule string, v *Verifier, ok string) CheckRow { return v.Row(f.Name, rule, ok) }
	var out []CheckRow
	var res runRecord
	var resV Verifier
	b, err := os.ReadFile(filepath.Join(f.Dir, f.Result))
	switch {
	case errors.Is(err, fs.ErrNotExist) && f.Manifest != "":
		resV.Fail("%s missing beside %s: the run did not finish (rerun it to resume)", f.Result, f.Manifest)
	case err != nil:
		resV.Fail("%s: %v", f.Result, errors.Unwrap(err))
	case json.Unmarshal(b, &res) != nil:
		resV.Fail("%s is not JSON", f.Result)
	case res.record() == nil || len(res.record().Config) == 0 || string(res.record().Config) == "null":
		resV.Fail("%s: no run record with its configuration", f.Result)
	}
	out = append(out, row("result file", &resV, "a run record with its configuration"))
	if resV.n > 0 {
		return out
	}
	rec := res.record()
	if f.Manifest == "" {
		// No manifest: no trial files to check (Table 3 reads data files;
		// DRFL keeps its own), but the registered rules read the result.
		for _, fn := range genericChecks {
			out = append(out, fn(VerifyInput{Dir: f.Dir, Name: f.Name, Result: b, Config: rec.Config, ConfigHash: rec.ConfigHash, DataDirs: opt.DataDirs})...)
		}
		return out
	}
	var m struct {
		ConfigHash string   `json:"config_hash"`
		TrialHash  string   `json:"trial_hash"`
		TrialFiles []string `json:"trial_files"`
		Complete   *bool    `json:"complete"`
		Error      string   `json:"error"`
	}
	var manV Verifier
	switch mb, err := os.ReadFile(filepath.Join(f.Dir, f.Manifest)); {
	case err != nil:
		manV.Fail("%s: %v", f.Manifest, errors.Unwrap(err))
	case json.Unmarshal(mb, &m) != nil:
		manV.Fail("%s is not JSON", f.Manifest)
	case m.Complete == nil || !*m.Complete:
		manV.Fail("%s: run not complete (%s)", f.Manifest, m.Error)
	case m.ConfigHash != rec.ConfigHash:
		manV.Fail("%s config_hash %s, %s has %s", f.Manifest, m.ConfigHash, f.Result, rec.ConfigHash)
	}
	out = append(out, row("manifest", &manV, "complete, same configuration"))
	if manV.n > 0 {
		return out
	}

	// Trial files: valid, of the manifest's trial hash, each its own key.
	var filesV Verifier
	trials := map[string]int{} // canonical trial JSON -> count
	converged := 0
	var kktV Verifier
	eps := configEps(rec.Config)
	for _, name := range m.TrialFiles {
		tb, err := os.ReadFile(filepath.Join(f.Dir, "trials", filepath.FromSlash(name)))
		if err != nil {
			filesV.Fail("trials/%s: %v", name, errors.Unwrap(err))
			continue
		}
		var st StoredTrial
		key := strings.TrimSuffix(filepath.Base(name), ".json")
		switch {
		case json.Unmarshal(tb, &st) != nil:
			filesV.Fail("trials/%s is not JSON", name)
			continue
		case !knownSchema(st.Schema):
			filesV.Fail("trials/%s: schema %d, want %d or %d", name, st.Schema, TrialSchema, PointTrialSchema)
			continue
		case st.ConfigHash != m.TrialHash:
			filesV.Fail("trials/%s: trial hash %s, the manifest's is %s", name, st.ConfigHash, m.TrialHash)
			continue
		case st.Key != key:
			filesV.Fail("trials/%s holds key %q", name, st.Key)
			continue
		case len(st.Trial) == 0 || string(st.Trial) == "null":
			filesV.Fail("trials/%s: no trial", name)
			continue
		}
		trials[canonical(st.Trial)]++
		var t any
		_ = json.Unmarshal(st.Trial, &t)
		walkRuns(t, func(status string, stat, feas float64) {
			if status != "Converged" || eps == nil {
				return
			}
			converged++
			if stat > eps[0] || feas > eps[1] {
				kktV.Fail("trials/%s: Converged with KKT residuals %.3g, %.3g above (ε1, ε2) = (%g, %g)", name, stat, feas, eps[0], eps[1])
			}
		})
	}
	out = append(out, row("trial files", &filesV, fmt.Sprintf("%d valid, as the manifest lists", len(m.TrialFiles)-filesV.n)))

	// The result's trials are the trial files' (figures, single runs).
	if res.Trials != nil {
		var sameV Verifier
		if len(res.Trials) != len(m.TrialFiles) {
			sameV.Fail("%s has %d trials, the manifest lists %d trial files", f.Result, len(res.Trials), len(m.TrialFiles))
		} else {
			left := map[string]int{}
			for k, v := range trials {
				left[k] = v
			}
			for i, t := range res.Trials {
				c := canonical(t)
				if left[c] == 0 {
					sameV.Fail("trial %d of %s is in no trial file", i+1, f.Result)
					continue
				}
				left[c]--
			}
		}
		out = append(out, row("trials = trial files", &sameV, "equal"))
	}
	// Also for results that keep their trials elsewhere (SSCA: per curve).
	for _, fn := range genericChecks {
		out = append(out, fn(VerifyInput{Dir: f.Dir, Name: f.Name, Result: b, Config: rec.Config, ConfigHash: rec.ConfigHash, DataDirs: opt.DataDirs})...)
	}
	if eps != nil {
		out = append(out, row("trial kkt vs status", &kktV, fmt.Sprintf("%d Converged runs within (ε1, ε2)", converged)))
	}
	if r, ok := ManifestProvenance(f.Name, f.Dir, f.Manifest, opt); ok {
		out = append(out, r)
	}
	return out
}

// canonical is a JSON value re-encoded with sorted keys and no spaces.
func canonical(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(bytes.TrimSpace(b))
}

// configEps reads eps1 and eps2 of a recorded configuration (nil when it
// has no such tolerances: SSCA, DRFL).
func configEps(cfg json.RawMessage) *[2]float64 {
	var c struct {
		Eps1 *float64 `json:"eps1"`
		Eps2 *float64 `json:"eps2"`
	}
	if json.Unmarshal(cfg, &c) != nil || c.Eps1 == nil || c.Eps2 == nil {
		return nil
	}
	return &[2]float64{*c.Eps1, *c.Eps2}
}

// walkRuns calls fn for every object in v that has a status and KKT
// residuals: one algorithm's run of a trial.
func walkRuns(v any, fn func(status string, stat, feas float64)) {
	switch t := v.(type) {
	case map[string]any:
		st, ok1 := t["status"].(string)
		kkt, ok2 := t["kkt_residuals"].(map[string]any)
		if ok1 && ok2 {
			s, _ := kkt["stationarity"].(float64)
			f, _ := kkt["feasibility"].(float64)
			fn(st, s, f)
		}
		for _, x := range t {
			walkRuns(x, fn)
		}
	case []any:
		for _, x := range t {
			walkRuns(x, fn)
		}
	}
}

// ruleNames lists the rules of rows, each once, in order.
func ruleNames(rows []CheckRow) string {
	var names []string
	for _, r := range rows {
		if !slices.Contains(names, r.Rule) {
			names = append(names, r.Rule)
		}
	}
	return strings.Join(names, ", ")
}
