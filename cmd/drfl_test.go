package cmd

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/problems/wdro"
)

// TestRunDRFLOptions: argv → options, through a capturing runF.
func TestRunDRFLOptions(t *testing.T) {
	f, _, _ := testFactory()
	var got *DRFLOptions
	c := newCmdRunDRFL(f, func(o *DRFLOptions) error { got = o; return nil })
	c.SetArgs([]string{"--model", "wafl", "--rho", "0.2", "--imbalance", "0.5,0.5,1", "--kappa", "0.3", "--theta", "0.5", "--p", "inf",
		"--qhat", "uniform", "--c", "10", "--seed", "4", "--test-mean", "0.5", "--test-sd", "1", "--support", "free"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	cfg := got.Cfg
	if got.Model != "wafl" || cfg.Rho != "0.2" || got.Imbalance != "0.5,0.5,1" || cfg.Kappa != 0.3 || cfg.Theta != 0.5 || !math.IsInf(float64(cfg.P), 1) ||
		cfg.QHat != "uniform" || cfg.C != 10 || cfg.Seed != 4 || got.TestMean != 0.5 || got.TestSD != 1 || cfg.Support != wdro.Free {
		t.Fatalf("options %+v, config %+v", got, cfg)
	}
}

// TestRunDRFLBadInput: one line and exit code 2 for each bad value.
func TestRunDRFLBadInput(t *testing.T) {
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"--p", "3"}, `--p" flag: "3": want 1, 2 or inf`},
		{[]string{"--theta", "-1"}, "theta = -1"},
		{[]string{"--kappa", "0"}, "kappa = 0"},
		{[]string{"--rho", "-0.1"}, "rho = -0.1"},
		{[]string{"--rho", "0.1,0.2"}, "want one radius or 3"},
		{[]string{"--rho", "0.1,-0.2,0.3"}, "client 2"},
		{[]string{"--rho", "x"}, "comma-separated numbers"},
		{[]string{"--imbalance", "0.5,1.5,1"}, "outside (0, 1]"},
		{[]string{"--imbalance", "0.5,1"}, "want 3 ratios"},
		{[]string{"--imbalance", "0.01,1,1"}, "client 1 has no rows of class"},
		{[]string{"--c", "0"}, "c = 0"},
		{[]string{"--theta", "Inf"}, "--theta +Inf: must be a finite number"},
		{[]string{"--theta", "NaN"}, "--theta NaN: must be a finite number"},
		{[]string{"--c", "Inf"}, "--c +Inf: must be a finite number"},
		{[]string{"--rho", "Inf"}, "rho = +Inf"},
		{[]string{"--rho", "0.1,Inf,0.1"}, "client 2"},
		{[]string{"--kappa", "Inf"}, "--kappa +Inf: must be a finite number"},
		{[]string{"--qhat", "NaN,0.5,0.5"}, "finite numbers ≥ 0"},
		{[]string{"--qhat", "Inf,0,0"}, "finite numbers ≥ 0"},
		{[]string{"--tol", "Inf"}, "--tol +Inf: must be a finite number"},
		{[]string{"--epsilon", "Inf"}, "--epsilon +Inf: must be a finite number"},
		{[]string{"--qhat", "0.5,0.5"}, "want 3 weights"},
		{[]string{"--qhat", "0.5,0.4,0.2"}, "sum to 1"},
		{[]string{"--model", "svm"}, "model = svm"},
		{[]string{"--support", "ball"}, `--support" flag: "ball": want box or free`},
		{[]string{"--dataset", "iris"}, "dataset = iris"},
		{[]string{"--dataset", "abalone", "--loss", "hinge"}, "use huber for regression"},
		{[]string{"--loss", "huber"}, "use huber for regression, hinge for classification"},
		{[]string{"--loss", "l2"}, "loss = l2"},
		{[]string{"--dataset", "abalone", "--epsilon", "0"}, "epsilon = 0"},
		{[]string{"--dataset", "abalone", "--imbalance", "0.5,0.5,1"}, "class imbalance needs a classification dataset"},
	}
	_, noData := os.Stat("../../shared/datasets/statlog-heart/heart.dat")
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			if noData != nil && (strings.Contains(c.msg, "no rows of class") || strings.Contains(c.msg, "regression") || strings.Contains(c.msg, "classification")) {
				t.Skip("needs ../shared/datasets")
			}
			f, _, errOut := testFactory()
			args := append([]string{"run", "drfl", "--data-dir", "../../shared/datasets"}, c.args...)
			if got := run(context.Background(), f, args); got != 2 {
				t.Fatalf("exit %d, want 2; stderr %s", got, errOut)
			}
			if !strings.Contains(errOut.String(), c.msg) || strings.Count(strings.TrimSpace(errOut.String()), "\n") > 1 {
				t.Errorf("stderr %q, want one line with %q", errOut, c.msg)
			}
		})
	}
}

// TestRunDRFLOutput: a fast model end to end, table and JSON.
func TestRunDRFLOutput(t *testing.T) {
	if _, err := os.Stat("../../shared/datasets/statlog-heart/heart.dat"); err != nil {
		t.Skip("needs ../shared/datasets")
	}
	f, out, errOut := testFactory()
	if got := run(context.Background(), f, []string{"run", "drfl", "--data-dir", "../../shared/datasets", "--model", "afl", "--theta", "0.1", "--p", "inf", "--json"}); got != 0 {
		t.Fatalf("exit %d: %s", got, errOut)
	}
	var r struct {
		Status       string  `json:"status"`
		TestAccuracy float64 `json:"test_score"`
		Params       struct {
			P string `json:"p"`
		} `json:"params"`
		BytesPerRound int64 `json:"bytes_per_round"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// 2·S·8(n+2) with S = 3 clients and n = 13 heart features.
	if r.Status != "Converged" || r.Params.P != "inf" || r.BytesPerRound != 2*3*8*15 || r.TestAccuracy < 0.6 {
		t.Fatalf("result %+v", r)
	}
	f, out, _ = testFactory()
	if got := run(context.Background(), f, []string{"run", "drfl", "--data-dir", "../../shared/datasets", "--model", "standard"}); got != 0 || !strings.Contains(out.String(), "standard") {
		t.Fatalf("exit %d, table %s", got, out)
	}
}

// TestReproduceDRFLFigure1: the quick figure writes its four files under
// quick/ (resultsDir's rule) and a table of the 19 guarantee levels.
func TestReproduceDRFLFigure1(t *testing.T) {
	dir := t.TempDir()
	f, out, errOut := testFactory()
	if got := run(context.Background(), f, []string{"reproduce", "drfl-figure1", "--quick", "--runs", "20", "--out", dir}); got != 0 {
		t.Fatalf("exit %d: %s", got, errOut)
	}
	for _, ext := range []string{"png", "svg", "csv", "json"} {
		if st, err := os.Stat(dir + "/quick/drfl/figure1." + ext); err != nil || st.Size() == 0 {
			t.Errorf("figure1.%s: %v", ext, err)
		}
	}
	if !strings.Contains(out.String(), "1.00") || !strings.Contains(out.String(), "0.10") {
		t.Errorf("table %s", out)
	}
	f, _, errOut = testFactory()
	if got := run(context.Background(), f, []string{"reproduce", "drfl-figure1", "--runs", "0", "--out", dir}); got != 2 {
		t.Errorf("runs 0: exit %d (%s)", got, errOut)
	}
}

// TestReproduceAllQuickDRFL: `reproduce all --quick --only drfl-figure5`
// runs the figure's quick version (it ran the full 10 repetitions). The
// repetitions and the quick noise step come from FEDCON_* to keep it
// short; the full figure would have 11 noise levels.
func TestReproduceAllQuickDRFL(t *testing.T) {
	if _, err := os.Stat("../../shared/datasets/statlog-heart/heart.dat"); err != nil {
		t.Skip("needs ../shared/datasets")
	}
	dir := t.TempDir()
	f, _, errOut := testFactory()
	env := map[string]string{"FEDCON_QUICK_REPETITIONS": "1", "FEDCON_QUICK_NOISE_STEP": "2", "FEDCON_REPETITIONS": "1"}
	f.Getenv = func(k string) string { return env[k] }
	if got := run(context.Background(), f, []string{"reproduce", "all", "--quick", "--only", "drfl-figure5", "--data-dir", "../../shared/datasets", "--out", dir}); got != 0 {
		t.Fatalf("exit %d: %s", got, errOut)
	}
	b, err := os.ReadFile(dir + "/quick/drfl/figure5.json")
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Config struct {
			Repetitions int       `json:"repetitions"`
			Levels      []float64 `json:"levels"`
		} `json:"config"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Config.Repetitions != 1 || len(r.Config.Levels) != 2 {
		t.Fatalf("want the quick figure (1 repetition, levels 0 and 2), got %+v", r.Config)
	}
}

// TestRunDRFLWorkersIdentical: the same seed with 1 and 2 workers prints
// the same JSON, apart from the wall time.
func TestRunDRFLWorkersIdentical(t *testing.T) {
	if _, err := os.Stat("../../shared/datasets/statlog-heart/heart.dat"); err != nil {
		t.Skip("needs ../shared/datasets")
	}
	var docs []map[string]any
	for _, w := range []string{"1", "2"} {
		f, out, errOut := testFactory()
		if got := run(context.Background(), f, []string{"run", "drfl", "--data-dir", "../../shared/datasets", "--model", "afl", "--theta", "0.1", "--seed", "3", "--workers", w, "--json"}); got != 0 {
			t.Fatalf("exit %d: %s", got, errOut)
		}
		var m map[string]any
		if err := json.Unmarshal(out.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "seconds")
		docs = append(docs, m)
	}
	a, _ := json.Marshal(docs[0])
	b, _ := json.Marshal(docs[1])
	if string(a) != string(b) {
		t.Fatalf("workers 1: %s\nworkers 2: %s", a, b)
	}
}

// TestReproduceDRFLNoiseOptions: argv → options for the noise figures, and
// bad values exit 2 before any work.
func TestReproduceDRFLNoiseOptions(t *testing.T) {
	f, _, _ := testFactory()
	var got *DRFLNoiseOptions
	c := newCmdReproduceDRFLNoise(f, "drfl-figure4", func(o *DRFLNoiseOptions) error { got = o; return nil })
	// --rho, --kappa, --theta are read without --cv, --folds only with it.
	c.SetArgs([]string{"--rho", "0.1", "--kappa", "0.2", "--theta", "0.3"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if cfg := got.Cfg; got.CV || cfg.Rho != "0.1" || cfg.Kappa != 0.2 || cfg.Theta != 0.3 {
		t.Fatalf("options %+v, config %+v", got, cfg)
	}
	f, _, _ = testFactory()
	c = newCmdReproduceDRFLNoise(f, "drfl-figure4", func(o *DRFLNoiseOptions) error { got = o; return nil })
	c.SetArgs([]string{"--quick", "--cv", "--folds", "4", "--repetitions", "3", "--p", "2", "--seed", "5"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	cfg := got.Cfg
	if got.Name != "drfl-figure4" || !got.Quick || !got.CV || cfg.Folds != 4 || cfg.Repetitions != 3 || cfg.P != 2 || cfg.Seed != 5 {
		t.Fatalf("options %+v, config %+v", got, cfg)
	}
	// --quick takes 2 repetitions, but not over an explicit --repetitions.
	n, err := drflNoiseConfig(got, cfg.FigureRows(got.Name)[0], false)
	if err != nil || n.Repetitions != 3 || n.Folds != 4 || len(n.Levels) != 6 || n.Params[0].P != 2 || n.Seed != 5 {
		t.Fatalf("run %+v: %v", n, err)
	}
	for _, fig := range []string{"drfl-figure2", "drfl-figure5"} {
		for _, args := range [][]string{{"--p", "3"}, {"--kappa", "0"}, {"--theta", "-1"}, {"--cv", "--folds", "1"}} {
			f, _, errOut := testFactory()
			if code := run(context.Background(), f, append([]string{"reproduce", fig, "--out", t.TempDir()}, args...)); code != 2 {
				t.Errorf("%s %v: exit %d (%s)", fig, args, code, errOut)
			}
		}
	}
}

// TestReproduceDRFLFewerRowsThanFolds: a fold count above a client's class
// count is bad input found only after the split: one line naming the
// client, the class and the count, exit 2.
func TestReproduceDRFLFewerRowsThanFolds(t *testing.T) {
	if _, err := os.Stat("../../shared/datasets/statlog-heart/heart.dat"); err != nil {
		t.Skip("needs ../shared/datasets")
	}
	f, _, errOut := testFactory()
	args := []string{"reproduce", "drfl-figure5", "--data-dir", "../../shared/datasets", "--cv", "--quick", "--folds", "40", "--out", t.TempDir()}
	if code := run(context.Background(), f, args); code != 2 {
		t.Fatalf("exit %d, want 2 (%s)", code, errOut)
	}
	msg := strings.TrimSpace(errOut.String())
	if strings.Count(msg, "\n") > 0 || !strings.Contains(msg, "client 1 has 31 rows of class -1, fewer than the folds") {
		t.Errorf("stderr %q", msg)
	}
}

// TestRunDRFLGate: `run drfl --out` writes the fit's result file, whose
// worst-case objective and scores fedcon check recomputes at the stored
// weights on the split and noisy test rows drawn again: the honest file
// passes, and an edited weight, an edited test score and an edited test
// noise (the scores of other test rows) each fail their rule.
func TestRunDRFLGate(t *testing.T) {
	if _, err := os.Stat("../../shared/datasets/statlog-heart/heart.dat"); err != nil {
		t.Skip("needs ../shared/datasets")
	}
	dir := t.TempDir()
	f, _, errOut := testFactory()
	if got := run(context.Background(), f, []string{"run", "drfl", "--data-dir", "../../shared/datasets", "--test-sd", "0.5", "--out", dir, "--quiet"}); got != 0 {
		t.Fatalf("exit %d: %s", got, errOut)
	}
	path := filepath.Join(dir, "drfl-heart-drfl", "drfl-heart-drfl.json")
	honest, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, rule string // the failing rule; "" for the honest file
		edit       func(m map[string]any)
		want       string
	}{
		{"honest", "", nil, ""},
		{"weight edited", "objective recomputed", func(m map[string]any) {
			w := m["fit"].(map[string]any)["w_b"].([]any)
			w[0] = w[0].(float64) + 1e-3
		}, "worst-case objective"},
		{"test score edited", "scores recomputed", func(m map[string]any) {
			fit := m["fit"].(map[string]any)
			fit["test_score"] = fit["test_score"].(float64) + 0.01
		}, "test score"},
		{"test noise edited", "scores recomputed", func(m map[string]any) {
			m["run"].(map[string]any)["config"].(map[string]any)["test_sd"] = 0.25
		}, "test score"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := honest
			if c.edit != nil {
				var m map[string]any
				if err := json.Unmarshal(honest, &m); err != nil {
					t.Fatal(err)
				}
				c.edit(m)
				if b, err = json.Marshal(m); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			f, out, errOut := testFactory()
			code := run(context.Background(), f, []string{"check", "--json", "--data-dir", "../../shared/datasets", dir})
			var rows []experiments.CheckRow
			if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
				t.Fatalf("exit %d: %v (%s)", code, err, errOut)
			}
			seen := map[string]bool{}
			for _, r := range rows {
				seen[r.Rule] = true
				switch {
				case r.Rule == c.rule && (r.Pass || !strings.Contains(r.Detail, c.want)):
					t.Errorf("%s: pass %v, %q; want a failure naming %q", r.Rule, r.Pass, r.Detail, c.want)
				case r.Rule != c.rule && !r.Pass:
					t.Errorf("%s fails: %s", r.Rule, r.Detail)
				}
			}
			if !seen["objective recomputed"] || !seen["scores recomputed"] {
				t.Fatalf("rules %v: want the fit recomputed", seen)
			}
			if want := map[bool]int{true: 0, false: 1}[c.rule == ""]; code != want {
				t.Errorf("exit %d, want %d", code, want)
			}
		})
	}
}
