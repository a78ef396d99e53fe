package cmd

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
)

// The gate's hostile corpus (`make test-faults`): for each claim `fedcon
// check` makes, a results directory forged against it through the binary
// fails the rule that guards it (exit 1), while the honest directory it was
// forged from passes (exit 0). Each run is a tiny cell: seconds.

// gateRows runs `fedcon check --json args` with env added to the
// environment and returns its exit code and check rows.
func gateRows(t *testing.T, bin string, env []string, args ...string) (int, []experiments.CheckRow) {
	t.Helper()
	c := exec.Command(bin, append([]string{"check", "--json"}, args...)...)
	c.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("check %v: %v", args, err)
	}
	var rows []experiments.CheckRow
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("check %v: exit %d, output not JSON rows: %v\n%s\n%s", args, code, err, out, stderr.String())
	}
	return code, rows
}

// runEnv runs fedcon to the end with env added and fails the test unless
// it exits 0.
func runEnv(t *testing.T, bin string, env []string, args ...string) {
	t.Helper()
	c := exec.Command(bin, args...)
	c.Env = append(os.Environ(), env...)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
}

// ruleOf returns the rows of rule: those that failed, and the detail of
// the first.
func ruleOf(rows []experiments.CheckRow, rule string) (n, failed int, detail string) {
	for _, r := range rows {
		if r.Rule != rule {
			continue
		}
		if n == 0 || (!r.Pass && failed == 0) {
			detail = r.Detail
		}
		n++
		if !r.Pass {
			failed++
		}
	}
	return n, failed, detail
}

// wantRule fails the test unless the gate's verdict (code, rows) has rule
// passing (pass) or failing with detail containing want, and exit code 0
// or 1 to match.
func wantRule(t *testing.T, what string, code int, rows []experiments.CheckRow, rule string, pass bool, want string) {
	t.Helper()
	n, failed, detail := ruleOf(rows, rule)
	switch {
	case n == 0:
		t.Errorf("%s: no %q row", what, rule)
	case pass && (failed > 0 || code != 0):
		t.Errorf("%s: exit %d, %q failed %d times (%s), want a pass", what, code, rule, failed, detail)
	case !pass && (failed == 0 || code != 1):
		t.Errorf("%s: exit %d, %q failed %d times (%s), want it failed with exit 1", what, code, rule, failed, detail)
	case !strings.Contains(detail, want):
		t.Errorf("%s: %q detail %q lacks %q", what, rule, detail, want)
	}
}

// forgeTrial rewrites the trial file at path with edit applied to its
// "trial" object, and returns the original bytes. An edit that sets
// schemaKey in the trial object sets the file's schema instead.
func forgeTrial(t *testing.T, path string, edit func(tr map[string]any)) []byte {
	t.Helper()
	return forgeJSON(t, path, func(f map[string]any) {
		tr := f["trial"].(map[string]any)
		edit(tr)
		if v, ok := tr[schemaKey]; ok {
			f["schema"] = v
			delete(tr, schemaKey)
		}
	})
}

// forgeJSON rewrites the JSON file at path with edit applied to its
// top-level object, and returns the original bytes.
func forgeJSON(t *testing.T, path string, edit func(f map[string]any)) []byte {
	t.Helper()
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(orig, &f); err != nil {
		t.Fatal(err)
	}
	edit(f)
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return orig
}

// schemaKey is a key no trial has: forgeTrial moves it to the file's schema.
const schemaKey = "(schema)"

// alg is run a ("alg1", "cprox") of a trial object.
func alg(tr map[string]any, a string) map[string]any { return tr[a].(map[string]any) }

// bump adds 1e-3 to entry i of a JSON list of numbers.
func bump(v any, i int) { l := v.([]any); l[i] = l[i].(float64) + 1e-3 }

// TestFaultGateForgedPoints: a Table 4 and a conic Table 1 directory whose
// trial file holds an edited w or μ, the table rebuilt from it by a rerun
// (which reuses the valid-looking file), fail `certificate recomputed`;
// so does an edited objective with every table rebuilt to match. A conic
// file of schema 3 (an older fedcon), without w, passes with its runs named
// as not checked; a schema 4 file whose w was deleted fails `trial files`,
// and so does one relabelled schema 3 that keeps its inner cap.
func TestFaultGateForgedPoints(t *testing.T) {
	bin := faultBinary(t)
	root := t.TempDir()
	conicCfg := filepath.Join(root, "conic.yaml")
	if err := os.WriteFile(conicCfg, []byte("cells: [[40, 2, 1]]\ntrials: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ex := range []struct {
		name, trial string
		run         []string
	}{
		{"table4", "n2-d40-m1-t00.json", []string{"reproduce", "table4", "--cells", "2x40x1", "--trials", "1"}},
		{"conic-table1", "d40-n2-m1-t00.json", []string{"reproduce", "conic-table1", "--config", conicCfg}},
	} {
		out := filepath.Join(root, ex.name)
		args := append(ex.run, "--out", out, "--quiet")
		runEnv(t, bin, nil, args...)
		code, rows := gateRows(t, bin, nil, out)
		wantRule(t, ex.name+" honest", code, rows, "certificate recomputed", true, "2 runs")
		trial := filepath.Join(out, ex.name, "trials", ex.trial)
		cases := []struct {
			name  string
			edit  func(tr map[string]any)
			pass  bool
			want  string
			conic bool // conic Table 1 only
		}{
			{"edited w", func(tr map[string]any) { bump(alg(tr, "alg1")["w"], 0) }, false, "Algorithm 1", false},
			{"edited μ", func(tr map[string]any) { bump(alg(tr, "cprox")["mu"].([]any)[1], 0) }, false, "cProx-AL", false},
			{"edited objective", func(tr map[string]any) { a := alg(tr, "alg1"); a["objective"] = a["objective"].(float64) + 1e-6 }, false, "objective", false},
			{"file of an older fedcon", func(tr map[string]any) {
				for _, a := range []string{"alg1", "cprox"} {
					delete(alg(tr, a), "w")
					delete(alg(tr, a), "mu")
					delete(alg(tr, a), "inner_capped")
				}
			}, true, "not checked (old schema): 2 runs", true},
		}
		for _, c := range cases {
			if c.conic && ex.name != "conic-table1" {
				continue
			}
			edit := c.edit
			if c.conic { // and the schema of such a file
				edit = func(tr map[string]any) { c.edit(tr); tr[schemaKey] = float64(experiments.TrialSchema) }
			}
			orig := forgeTrial(t, trial, edit)
			runEnv(t, bin, nil, args...)
			code, rows := gateRows(t, bin, nil, out)
			wantRule(t, ex.name+" "+c.name, code, rows, "certificate recomputed", c.pass, c.want)
			if err := os.WriteFile(trial, orig, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if ex.name != "conic-table1" {
			continue
		}
		// A deleted w in a file of the current schema: no rerun after the
		// forgery (it would recompute the invalid file); the gate reads the
		// file as it is.
		runEnv(t, bin, nil, args...)
		orig := forgeTrial(t, trial, func(tr map[string]any) { delete(alg(tr, "cprox"), "w") })
		code, rows = gateRows(t, bin, nil, out)
		wantRule(t, ex.name+" w deleted", code, rows, "trial files", false, "trial.cprox: schema 4 stores w")
		if err := os.WriteFile(trial, orig, 0o644); err != nil {
			t.Fatal(err)
		}
		// The same file relabelled schema 3, w and μ deleted, the inner cap
		// kept: no fedcon wrote one.
		forgeTrial(t, trial, func(tr map[string]any) {
			for _, a := range []string{"alg1", "cprox"} {
				delete(alg(tr, a), "w")
				delete(alg(tr, a), "mu")
			}
			tr[schemaKey] = float64(experiments.TrialSchema)
		})
		code, rows = gateRows(t, bin, nil, out)
		wantRule(t, ex.name+" relabelled schema 3", code, rows, "trial files", false, "no fedcon wrote")
		if err := os.WriteFile(trial, orig, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFaultGateBallDistance: a conic Table 1 directory with a norm ball at
// the server passes `certificate recomputed`, which recomputes each run's
// distance to the gate's own w* (a root-finder on the ball's multiplier); with
// a run's stored distance moved by 1e-6, the table rebuilt by a rerun, it
// fails the rule on that distance.
func TestFaultGateBallDistance(t *testing.T) {
	bin := faultBinary(t)
	root := t.TempDir()
	cfg := filepath.Join(root, "conic.yaml")
	if err := os.WriteFile(cfg, []byte("cells: [[40, 2, 1]]\ntrials: 1\nball_rows: 2\nball_parties: server\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "results")
	args := []string{"reproduce", "conic-table1", "--config", cfg, "--out", out, "--quiet"}
	runEnv(t, bin, nil, args...)
	code, rows := gateRows(t, bin, nil, out)
	wantRule(t, "honest", code, rows, "certificate recomputed", true, "dist_to_optimum_inf recomputed against an independent solve's w*")
	forgeTrial(t, filepath.Join(out, "conic-table1", "trials", "d40-n2-m1-t00.json"), func(tr map[string]any) {
		a := alg(tr, "alg1")
		a["dist_to_optimum_inf"] = a["dist_to_optimum_inf"].(float64) + 1e-6
	})
	runEnv(t, bin, nil, args...)
	code, rows = gateRows(t, bin, nil, out)
	wantRule(t, "distance edited", code, rows, "certificate recomputed", false, "Algorithm 1: dist_to_optimum_inf")
}

// TestFaultGateIndependentOptimum: a Table 1 cell (n = 2) passes
// `objective vs independent optimum`, the gate's own barrier solve of the
// partition; the same directory with a trial's objective moved by 1e-3
// (the table rebuilt from it by a rerun) fails it, naming the run.
func TestFaultGateIndependentOptimum(t *testing.T) {
	bin := faultBinary(t)
	if os.Getenv("FEDCON_DATA_DIR") == "" {
		t.Skip("FEDCON_DATA_DIR not set: Table 1 needs breast-cancer-wisc")
	}
	out := filepath.Join(t.TempDir(), "results")
	args := []string{"reproduce", "table1", "--datasets", "breast-cancer-wisc", "--clients", "2", "--trials", "1", "--out", out, "--quiet"}
	runEnv(t, bin, nil, args...)
	code, rows := gateRows(t, bin, nil, out)
	wantRule(t, "honest", code, rows, "objective vs independent optimum", true, "2 runs in 1 cells")
	forgeTrial(t, filepath.Join(out, "table1", "trials", "breast-cancer-wisc-n2-t00.json"), func(tr map[string]any) {
		a := alg(tr, "cprox")
		a["objective"] = a["objective"].(float64) - 1e-3
	})
	runEnv(t, bin, nil, args...)
	code, rows = gateRows(t, bin, nil, out)
	wantRule(t, "objective lowered", code, rows, "objective vs independent optimum", false, "cProx-AL: objective")
}

// TestFaultGateNPOptimum: a `run np` directory (generic rules) and a conic
// Table 2 one (n = 2) pass `objective vs independent optimum`; with a
// trial's objective moved by 1e-3, the result rebuilt by a rerun, each
// fails it naming the run.
func TestFaultGateNPOptimum(t *testing.T) {
	bin := faultBinary(t)
	if os.Getenv("FEDCON_DATA_DIR") == "" {
		t.Skip("FEDCON_DATA_DIR not set: the runs need breast-cancer-wisc")
	}
	root := t.TempDir()
	conicCfg := filepath.Join(root, "conic.yaml")
	if err := os.WriteFile(conicCfg, []byte("datasets: [breast-cancer-wisc]\nclients: [2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ex := range []struct {
		name, trial string
		run         []string
		delta       float64
	}{
		{"np-breast-cancer-wisc-n2", "breast-cancer-wisc-n2-t00.json", []string{"run", "np", "--dataset", "breast-cancer-wisc", "--clients", "2", "--trials", "1"}, -1e-3},
		{"conic-table2", "breast-cancer-wisc-n2-t00.json", []string{"reproduce", "conic-table2", "--config", conicCfg}, 1e-3},
	} {
		out := filepath.Join(root, ex.name)
		args := append(ex.run, "--out", out, "--quiet")
		runEnv(t, bin, nil, args...)
		code, rows := gateRows(t, bin, nil, out)
		wantRule(t, ex.name+" honest", code, rows, "objective vs independent optimum", true, "2 runs in 1 cells")
		forgeTrial(t, filepath.Join(out, ex.name, "trials", ex.trial), func(tr map[string]any) {
			a := alg(tr, "alg1")
			a["objective"] = a["objective"].(float64) + ex.delta
		})
		runEnv(t, bin, nil, args...)
		code, rows = gateRows(t, bin, nil, out)
		wantRule(t, ex.name+" objective moved", code, rows, "objective vs independent optimum", false, "Algorithm 1: objective")
	}
}

// TestFaultGateSSCAWeights: a `run ssca` directory on tiny images passes
// `final weights recomputed`; with its run's stored weights edited (the
// trial's SHA-256 updated to match, the result rebuilt by a rerun) it fails
// the rule on the recomputed cost, and with the weights edited alone, on
// their SHA-256.
func TestFaultGateSSCAWeights(t *testing.T) {
	bin := faultBinary(t)
	root := t.TempDir()
	tiny := t.TempDir()
	writeTinyIDX(t, tiny, 60, 20, nil)
	out := filepath.Join(root, "results")
	args := []string{"run", "ssca", "--dataset", "mnist", "--data-dir", tiny, "--algo", "alg1", "--batch", "1", "--runs", "1", "--rounds", "6", "--out", out, "--quiet"}
	runEnv(t, bin, nil, args...)
	code, rows := gateRows(t, bin, nil, "--data-dir", tiny, out)
	wantRule(t, "honest", code, rows, "final weights recomputed", true, "1 curves")
	trials := filepath.Join(out, "ssca", "trials")
	var trial, weights string
	ents, err := os.ReadDir(trials)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		switch filepath.Ext(e.Name()) {
		case ".json":
			trial = filepath.Join(trials, e.Name())
		case ".w64":
			weights = filepath.Join(trials, e.Name())
		}
	}
	if trial == "" || weights == "" {
		t.Fatalf("trials/ holds %v: want a trial and its weights", ents)
	}
	orig, err := os.ReadFile(weights)
	if err != nil {
		t.Fatal(err)
	}
	forged := append([]byte(nil), orig...)
	forged[len(forged)-2] ^= 0x40 // the last output weight's exponent
	if err := os.WriteFile(weights, forged, 0o644); err != nil {
		t.Fatal(err)
	}
	code, rows = gateRows(t, bin, nil, "--data-dir", tiny, out)
	wantRule(t, "weights edited", code, rows, "final weights recomputed", false, "SHA-256")
	sum := sha256.Sum256(forged)
	forgeTrial(t, trial, func(tr map[string]any) { tr["final_w"].(map[string]any)["sha256"] = hex.EncodeToString(sum[:]) })
	runEnv(t, bin, nil, args...)
	code, rows = gateRows(t, bin, nil, "--data-dir", tiny, out)
	wantRule(t, "weights and their SHA-256 edited", code, rows, "final weights recomputed", false, "train_cost")
}

// TestFaultGateSwappedData: a Table 1 directory checked against an edited
// copy of the data file it was run on fails `certificate recomputed` and
// `partition recomputed`, the certificate naming the data set's pinned
// SHA-256; against the unmodified copy it passes. Only the copy is on the
// search path (no FEDCON_DATA_DIR, an empty cache).
func TestFaultGateSwappedData(t *testing.T) {
	bin := faultBinary(t)
	src := os.Getenv("FEDCON_DATA_DIR")
	if src == "" {
		t.Skip("FEDCON_DATA_DIR not set: the swapped data need breast-cancer-wisc")
	}
	root := t.TempDir()
	data := filepath.Join(root, "data")
	const bcw = "breast-cancer-wisconsin/breast-cancer-wisconsin.data"
	raw, err := os.ReadFile(filepath.Join(src, bcw))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Join(data, bcw)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, bcw), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"FEDCON_DATA_DIR=", "HOME=" + root, "XDG_CACHE_HOME=" + filepath.Join(root, "cache")}
	out := filepath.Join(root, "results")
	runEnv(t, bin, env, "reproduce", "table1", "--datasets", "breast-cancer-wisc", "--clients", "2", "--trials", "1",
		"--data-dir", data, "--out", out, "--quiet")
	code, rows := gateRows(t, bin, env, "--data-dir", data, out)
	wantRule(t, "unmodified data", code, rows, "certificate recomputed", true, "runs")
	// One feature of the first row, 5 -> 6: a file of the same shape.
	swapped := bytes.Replace(raw, []byte("1000025,5,"), []byte("1000025,6,"), 1)
	if bytes.Equal(swapped, raw) {
		t.Fatal("the data file has no row 1000025,5,")
	}
	if err := os.WriteFile(filepath.Join(data, bcw), swapped, 0o644); err != nil {
		t.Fatal(err)
	}
	code, rows = gateRows(t, bin, env, "--data-dir", data, out)
	wantRule(t, "swapped data", code, rows, "certificate recomputed", false, "sha-256")
	wantRule(t, "swapped data", code, rows, "partition recomputed", false, "")
}

// faultBinaryAs builds fedcon as the Makefile does for a work tree without
// VCS stamping, with commit as its recorded commit: version devel+commit.
func faultBinaryAs(t *testing.T, commit string) string {
	t.Helper()
	if os.Getenv("FEDCON_FAULTS") == "" {
		t.Skip("process-level fault test: set FEDCON_FAULTS=1 (make test-faults)")
	}
	bin := filepath.Join(t.TempDir(), "fedcon")
	c := exec.Command("go", "build", "-buildvcs=false", "-ldflags", "-X github.com/fedcon/fedcon/cmd.buildCommit="+commit, "-o", bin, "github.com/fedcon/fedcon")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestFaultGateOtherVersion: trial files computed by another fedcon commit
// and reused by this one's run are named by `provenance` (count and
// version) and pass; with --strict they fail it. The same directory checked
// by the build that computed them passes --strict.
func TestFaultGateOtherVersion(t *testing.T) {
	older := faultBinaryAs(t, "aaaaaaaaaaaa")
	newer := faultBinaryAs(t, "bbbbbbbbbbbb")
	out := t.TempDir()
	run := []string{"reproduce", "table4", "--cells", "2x40x1", "--out", out, "--quiet"}
	runEnv(t, older, nil, append(run, "--trials", "2")...)
	code, rows := gateRows(t, older, nil, "--strict", out)
	wantRule(t, "checked by the build that ran it", code, rows, "provenance", true, "")
	// The newer build computes trial 2 and reuses the older build's 0 and 1.
	runEnv(t, newer, nil, append(run, "--trials", "3")...)
	code, rows = gateRows(t, newer, nil, out)
	wantRule(t, "another version, not strict", code, rows, "provenance", true, "devel+aaaaaaaaaaaa")
	code, rows = gateRows(t, newer, nil, "--strict", out)
	wantRule(t, "another version, --strict", code, rows, "provenance", false, "devel+aaaaaaaaaaaa")
}

// TestFaultGateMissingExperiment: with `reproduce all` results, an
// experiment it was asked for whose directory is gone fails `not run`;
// the complete directory passes.
func TestFaultGateMissingExperiment(t *testing.T) {
	bin := faultBinary(t)
	out := t.TempDir()
	runEnv(t, bin, nil, "reproduce", "all", "--quick", "--only", "table4,figure1", "--out", out, "--quiet")
	code, rows := gateRows(t, bin, nil, "--quick", out)
	if n, failed, detail := ruleOf(rows, "not run"); code != 0 || failed > 0 {
		t.Fatalf("complete reproduce all: exit %d, %d of %d not run rows failed (%s)", code, failed, n, detail)
	}
	if err := os.RemoveAll(filepath.Join(out, "quick", "figure1")); err != nil {
		t.Fatal(err)
	}
	code, rows = gateRows(t, bin, nil, "--quick", out)
	wantRule(t, "figure1 removed", code, rows, "not run", false, "")
	for _, r := range rows {
		if r.Rule == "not run" && !r.Pass && r.Experiment != "figure1" {
			t.Errorf("not run fails %s, want figure1 alone", r.Experiment)
		}
	}
}

// TestFaultGateDRFLFigure1: DRFL Figure 1 passes `figure recomputed` (its
// distances and draws drawn again from the seed); with a run's stored
// distance edited in its result file it fails the rule, naming the run.
func TestFaultGateDRFLFigure1(t *testing.T) {
	bin := faultBinary(t)
	out := t.TempDir()
	runEnv(t, bin, nil, "reproduce", "drfl-figure1", "--quick", "--out", out, "--quiet")
	code, rows := gateRows(t, bin, nil, "--quick", out)
	wantRule(t, "honest", code, rows, "figure recomputed", true, "100 runs' distances")
	path := filepath.Join(out, "quick", "drfl", "figure1.json")
	forgeJSON(t, path, func(f map[string]any) { bump(f["dist_drfl"], 6) })
	code, rows = gateRows(t, bin, nil, "--quick", out)
	wantRule(t, "edited distance", code, rows, "figure recomputed", false, "run 7: distances")
}

// TestFaultGateRunDRFL: a `run drfl --out` fit passes `objective
// recomputed` and `scores recomputed`; with a stored weight edited it fails
// the objective's rule.
func TestFaultGateRunDRFL(t *testing.T) {
	bin := faultBinary(t)
	if os.Getenv("FEDCON_DATA_DIR") == "" {
		t.Skip("FEDCON_DATA_DIR not set: the fit needs heart")
	}
	out := t.TempDir()
	runEnv(t, bin, nil, "run", "drfl", "--dataset", "heart", "--test-sd", "0.5", "--out", out, "--quiet")
	code, rows := gateRows(t, bin, nil, out)
	wantRule(t, "honest", code, rows, "objective recomputed", true, "recomputed at the stored weights")
	wantRule(t, "honest", code, rows, "scores recomputed", true, "6 scores")
	path := filepath.Join(out, "drfl-heart-drfl", "drfl-heart-drfl.json")
	forgeJSON(t, path, func(f map[string]any) { bump(f["fit"].(map[string]any)["w_b"], 0) })
	code, rows = gateRows(t, bin, nil, out)
	wantRule(t, "edited weight", code, rows, "objective recomputed", false, "worst-case objective")
}

// TestFaultGateDRFLWeights: a DRFL noise figure whose stored weights were
// edited in its result file fails `objective recomputed` (the gate draws
// the split again and recomputes the worst-case objective at them); the
// honest figure passes.
func TestFaultGateDRFLWeights(t *testing.T) {
	bin := faultBinary(t)
	if os.Getenv("FEDCON_DATA_DIR") == "" {
		t.Skip("FEDCON_DATA_DIR not set: the DRFL figure needs its data set")
	}
	out := t.TempDir()
	runEnv(t, bin, nil, "reproduce", "drfl-figure3", "--quick", "--out", out, "--quiet")
	code, rows := gateRows(t, bin, nil, "--quick", out)
	wantRule(t, "honest", code, rows, "objective recomputed", true, "fits")
	path := filepath.Join(out, "quick", "drfl", "figure3.json")
	forgeJSON(t, path, func(f map[string]any) { bump(f["runs"].([]any)[0].([]any)[0].(map[string]any)["w_b"], 0) })
	code, rows = gateRows(t, bin, nil, "--quick", out)
	wantRule(t, "edited weights", code, rows, "objective recomputed", false, "recomputed at the stored weights")
}
