package cmd

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/fedcon/fedcon/configs"
	"github.com/fedcon/fedcon/experiments/ssca"
)

// writeTinyIDX writes a tiny MNIST-layout data set (n training and n test
// images of k pixels) into dir; edit may corrupt a file's bytes.
func writeTinyIDX(t *testing.T, dir string, n, k int, edit func(name string, b []byte) []byte) {
	t.Helper()
	enc := func(dims []int, data []byte) []byte {
		b := []byte{0, 0, 8, byte(len(dims))}
		for _, d := range dims {
			b = binary.BigEndian.AppendUint32(b, uint32(d))
		}
		return append(b, data...)
	}
	pix, labs := make([]byte, n*k), make([]byte, n)
	for i := range pix {
		pix[i] = byte((i * 37) % 256)
	}
	for i := range labs {
		labs[i] = byte(i % 10)
	}
	for _, f := range []string{"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"} {
		b := enc([]int{n, 1, k}, pix)
		if strings.Contains(f, "labels") {
			b = enc([]int{n}, labs)
		}
		if edit != nil {
			b = edit(f, b)
		}
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		if err := os.WriteFile(filepath.Join(dir, f+".gz"), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSSCABadInput(t *testing.T) {
	out := t.TempDir()
	tiny := t.TempDir()
	writeTinyIDX(t, tiny, 40, 6, nil)
	corrupt := func(what string, edit func(string, []byte) []byte) string {
		d := t.TempDir()
		writeTinyIDX(t, d, 40, 6, edit)
		return d
	}
	wrongMagic := corrupt("magic", func(f string, b []byte) []byte {
		if f == "train-images-idx3-ubyte" {
			b[2] = 9
		}
		return b
	})
	truncated := corrupt("trunc", func(f string, b []byte) []byte {
		if f == "t10k-images-idx3-ubyte" {
			return b[:len(b)-5]
		}
		return b
	})
	mismatch := corrupt("count", func(f string, b []byte) []byte {
		if f == "train-labels-idx1-ubyte" {
			binary.BigEndian.PutUint32(b[4:], 39)
			return b[:len(b)-1]
		}
		return b
	})
	badLabel := corrupt("label", func(f string, b []byte) []byte {
		if f == "train-labels-idx1-ubyte" {
			b[len(b)-1] = 10
		}
		return b
	})
	base := []string{"--dataset", "mnist", "--runs", "1", "--rounds", "3", "--out", out}
	r := func(extra ...string) []string {
		return append(append([]string{"run", "ssca"}, base...), extra...)
	}
	cases := []struct {
		name string
		args []string
		msg  string
	}{
		{"missing idx file", r("--data-dir", filepath.Join(out, "none")), "train-images-idx3-ubyte[.gz] not found (searched"},
		{"wrong magic", r("--data-dir", wrongMagic), "magic number 0x00000903"},
		{"truncation", r("--data-dir", truncated), "need 240 data bytes, got 235"},
		{"count mismatch", r("--data-dir", mismatch), "40 images but 39 labels"},
		{"label >= L", r("--data-dir", badLabel), "label 10 of image 39"},
		{"B > N_i", r("--data-dir", tiny, "--batch", "10"), "larger than client 0's 4 samples"},
		{"more clients than features", r("--data-dir", tiny, "--algo", "alg3", "--batch", "10"), "more clients than the 6 features"},
		{"tau", r("--data-dir", tiny, "--tau", "0"), "tau = 0"},
		{"c", r("--data-dir", tiny, "--algo", "alg2", "--c", "-1"), "c = -1"},
		{"U <= 0", r("--data-dir", tiny, "--algo", "alg2", "--U", "-0.5"), "u.mnist = -0.5"},
		{"lambda < 0", r("--data-dir", tiny, "--lambda", "-1"), "lambda = -1"},
		{"no step-size row", r("--data-dir", tiny, "--batch", "3"), "no step-size row for this batch size"},
		{"bad algo", r("--algo", "adam"), `--algo "adam"`},
		{"bad labels", r("--algo", "alg3", "--labels", "none"), `--labels" flag: "none": want all or client0`},
		{"bad dataset", []string{"reproduce", "ssca-figure2", "--dataset", "cifar", "--out", out}, "dataset = cifar"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, _, errOut := testFactory()
			if got := run(context.Background(), f, c.args); got != 2 {
				t.Fatalf("exit %d, want 2; stderr: %s", got, errOut)
			}
			msg := strings.TrimSpace(errOut.String())
			if !strings.Contains(msg, c.msg) || strings.Count(msg, "\n") > 1 {
				t.Errorf("stderr %q: want one line containing %q", msg, c.msg)
			}
		})
	}
	// Failed runs (B > N_i is found at run time) name their manifest like
	// finished ones: SSCA runs share one directory.
	if _, err := os.Stat(filepath.Join(out, "ssca", "manifest.json")); !os.IsNotExist(err) {
		t.Errorf("a failed run wrote the shared manifest.json (%v)", err)
	}
	if ms, _ := filepath.Glob(filepath.Join(out, "ssca", "manifest-run-*.json")); len(ms) == 0 {
		t.Error("no manifest-run-*.json from the failed runs")
	}
	// A learning-rate file with a bad rate, and gamma_offset = .inf in a
	// config file: the solver would reject them; validation does first.
	lrFile := filepath.Join(out, "lr.yaml")
	rates, err := configs.Preset("ssca/sgd-lr")
	if err != nil {
		t.Fatal(err)
	}
	var rf sgdRateFile
	if err := yaml.Unmarshal(rates, &rf); err != nil {
		t.Fatal(err)
	}
	rf.SGDRates["fedavg-b1-e1"] = ssca.SGDRate{A: -1}
	rates, _ = yaml.Marshal(rf)
	os.WriteFile(lrFile, rates, 0o644)
	infFile := filepath.Join(out, "inf.yaml")
	os.WriteFile(infFile, []byte("gamma_offset: .inf\n"), 0o644)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{r("--data-dir", tiny, "--algo", "fedavg", "--batch", "1", "--sgd-lr", lrFile), "sgd_rates.fedavg-b1-e1 = {a: -1, beta: 0}: a must be a finite number > 0"},
		{r("--data-dir", tiny, "--batch", "1", "--config", infFile), "inf.yaml:1: gamma_offset: .inf is not a finite number"},
	} {
		f, _, errOut := testFactory()
		got := run(context.Background(), f, c.args)
		if msg := strings.TrimSpace(errOut.String()); got != 2 || !strings.Contains(msg, c.msg) || strings.Contains(msg, "\n") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, got, msg, c.msg)
		}
	}
	// alpha outside (0, 1] in a config file.
	cfgFile := filepath.Join(out, "a.yaml")
	os.WriteFile(cfgFile, []byte("sample_steps:\n  - {batch: 1, a1: 0.4, a2: 0.4, alpha: 1.5}\n"), 0o644)
	f, _, errOut := testFactory()
	if got := run(context.Background(), f, r("--data-dir", tiny, "--config", cfgFile, "--batch", "1")); got != 2 || !strings.Contains(errOut.String(), "alpha = 1.5") {
		t.Errorf("alpha: exit %d, stderr %s", got, errOut)
	}
}

func TestNewCmdRunSSCA(t *testing.T) {
	f, _, _ := testFactory()
	var got *SSCAOptions
	c := newCmdRunSSCA(f, func(o *SSCAOptions) error { got = o; return nil })
	c.SetArgs([]string{"--algo", "fedavg", "--batch", "5", "--local-steps", "2", "--U", "0.7", "--quick"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Algo != "fedavg" || got.Batch != 5 || got.LocalSteps != 2 || got.U != 0.7 || !got.Quick {
		t.Fatalf("options %+v", got)
	}
}

// TestSSCARunTiny: a tiny end-to-end run writes its outputs, is identical
// for any --workers, and a rerun reuses the stored runs.
func TestSSCARunTiny(t *testing.T) {
	tiny := t.TempDir()
	writeTinyIDX(t, tiny, 60, 20, nil)
	var docs []map[string]any
	for _, w := range []string{"1", "2", "2"} {
		out := t.TempDir()
		if w == "2" && len(docs) == 2 {
			out = docs[1]["_out"].(string) // rerun in the same place: resume
		}
		f, stdout, errOut := testFactory()
		args := []string{"run", "ssca", "--dataset", "mnist", "--data-dir", tiny, "--algo", "alg2", "--batch", "1", "--runs", "2",
			"--rounds", "6", "--workers", w, "--out", out, "--json", "--U", "2"}
		if code := run(context.Background(), f, args); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var doc map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		doc["_out"] = out
		if len(docs) == 2 {
			mb, _ := os.ReadFile(filepath.Join(out, "ssca", "manifest-run-alg2-b1-u2.json"))
			var m struct {
				Reused int `json:"trials_reused"`
			}
			if json.Unmarshal(mb, &m) != nil || m.Reused != 2 {
				t.Errorf("rerun reused %d runs, want 2", m.Reused)
			}
		}
		docs = append(docs, doc)
		if _, err := os.Stat(filepath.Join(out, "ssca", "run-alg2-b1-u2-points.csv")); err != nil {
			t.Error(err)
		}
	}
	a, _ := json.Marshal(docs[0]["curves"])
	for _, d := range docs[1:] {
		b, _ := json.Marshal(d["curves"])
		// Runtimes differ between runs; compare the points.
		if !bytes.Equal(stripRuntime(t, a), stripRuntime(t, b)) {
			t.Fatal("results depend on --workers or on resuming")
		}
	}
}

func stripRuntime(t *testing.T, b []byte) []byte {
	var curves []map[string]any
	if err := json.Unmarshal(b, &curves); err != nil {
		t.Fatal(err)
	}
	for _, c := range curves {
		for _, tr := range c["trials"].([]any) {
			delete(tr.(map[string]any)["stats"].(map[string]any), "runtime_ns")
		}
	}
	out, _ := json.Marshal(curves)
	return out
}

// TestSSCAPreset: the embedded preset and SGD rates validate, and the
// figures have the curves.
func TestSSCAPreset(t *testing.T) {
	f, _, _ := testFactory()
	o := &SSCAOptions{}
	c := newCmdRunSSCA(f, func(*SSCAOptions) error { return nil })
	c.SetArgs(nil)
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	o.commonOptions = commonOptions{flags: c.Flags()}
	cfg, err := loadSSCAConfig(f, o)
	if err != nil {
		t.Fatal(err)
	}
	for fig, want := range map[string]int{"figure2": 3 + 5 + 3, "figure3": 3 + 3 + 3, "figure4": 2*6 + 2*4} {
		if n := len(cfg.FigureSpecs(fig)); n != want {
			t.Errorf("%s: %d curves, want %d", fig, n, want)
		}
	}
	if cfg.UValue() != 0.6 || cfg.Lambda != 1e-3 || cfg.C != 1e5 || cfg.Tau != 0.1 || cfg.Runs != 100 {
		t.Errorf("preset defaults %+v", cfg)
	}
	if len(cfg.SGDBaselines()) != 8 {
		t.Errorf("%d SGD baselines, want 8", len(cfg.SGDBaselines()))
	}
}

// TestSSCAClaimsFiles: reproducing Figures 2 and 3 (separate commands, as
// `reproduce all` runs them) writes the per-iteration summary and the claims
// beside each figure; Figure 3's claims include the cross claim from
// Figure 2's stored runs.
func TestSSCAClaimsFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("renders two figures")
	}
	tiny, out := t.TempDir(), t.TempDir()
	writeTinyIDX(t, tiny, 60, 20, nil)
	cfgFile := filepath.Join(out, "c.yaml")
	os.WriteFile(cfgFile, []byte(`clients: 2
hidden: 4
sample_batches: [1, 10]
fedavg: [{batch: 1, local_steps: 1}, {batch: 5, local_steps: 2}]
feature_batches: [2, 20]
feature_steps:
  - {batch: 2, a1: 0.4, a2: 0.4, alpha: 0.4}
  - {batch: 20, a1: 0.6, a2: 0.9, alpha: 0.3}
fsgd_batches: []
figure4_sample_batch: 10
figure4_feature_batch: 20
`), 0o644)
	for _, fig := range []string{"figure2", "figure3"} {
		f, _, errOut := testFactory()
		args := []string{"reproduce", "ssca-" + fig, "--dataset", "mnist", "--data-dir", tiny, "--config", cfgFile, "--runs", "3",
			"--rounds", "6", "--out", out, "--quiet"}
		if code := run(context.Background(), f, args); code != 0 {
			t.Fatalf("%s: exit %d: %s", fig, code, errOut)
		}
	}
	dir := filepath.Join(out, "ssca")
	rounds, err := os.ReadFile(filepath.Join(dir, "ssca-figure2-rounds.csv"))
	if err != nil || !strings.HasPrefix(string(rounds), "method,key,t,runs,F mean,F std,acc. mean,acc. std\n") {
		t.Fatalf("rounds CSV: %v\n%s", err, rounds)
	}
	count := func(fig string) map[string]int {
		b, err := os.ReadFile(filepath.Join(dir, "ssca-"+fig+"-claims.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rows []ssca.ClaimRow
		if err := json.Unmarshal(b, &rows); err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, r := range rows {
			n[r.Figure]++
			if r.N != 3 && r.Excluded == 0 {
				t.Errorf("%s: %d pairs of 3 runs, none excluded: %+v", fig, r.N, r)
			}
		}
		return n
	}
	// Figure 2: larger B for Alg. 1 and 2, Alg. 1 vs FedAvg E=1 at B=1, vs FedAvg B=5 E=2: 4 comparisons × 3 metrics.
	if n := count("figure2"); n["figure2"] != 12 || len(n) != 1 {
		t.Errorf("figure 2 claims: %v", n)
	}
	// Figure 3: larger B for Alg. 3 and 4 (6 rows), and Alg. 1/2 at B = 1, 10 against Alg. 3/4 at 2, 20 (12 rows).
	if n := count("figure3"); n["figure3"] != 6 || n["figure2+3"] != 12 {
		t.Errorf("figure 3 claims: %v", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "ssca-figure3-claims.md")); err != nil {
		t.Error(err)
	}
}

// TestSSCAPresetClaims: with the embedded preset every claim of Section VI
// finds its curves (a missing curve drops its rows silently): Figure 2, larger
// B for Algorithms 1-2 (4), Algorithm 1 vs FedAvg E=1 (3) and vs E=2 at B/2
// (2); Figure 3, larger B for Algorithms 3-4 (4), Algorithm 3 vs feature SGD
// (3) and the 6 sample/feature pairs; Figure 4, 5 U steps for Algorithms 2
// and 4. Three metrics per comparison (Figure 4: cost and accuracy).
func TestSSCAPresetClaims(t *testing.T) {
	f, _, _ := testFactory()
	c := newCmdRunSSCA(f, func(*SSCAOptions) error { return nil })
	c.SetArgs(nil)
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadSSCAConfig(f, &SSCAOptions{commonOptions: commonOptions{flags: c.Flags()}})
	if err != nil {
		t.Fatal(err)
	}
	byFig := map[string][]ssca.Curve{}
	for _, fig := range ssca.Figures {
		for _, s := range cfg.FigureSpecs(fig) {
			cv := ssca.Curve{Spec: s}
			for r := range 2 {
				cv.Trials = append(cv.Trials, ssca.Trial{Seed: uint64(r + 1), T: []int{1, cfg.Rounds},
					TrainCost: []float64{2, 1 + float64(r)}, TestAcc: []float64{0.1, 0.5}})
			}
			byFig[fig] = append(byFig[fig], cv)
		}
	}
	for fig, want := range map[string]map[string]int{
		"figure2": {"figure2": 9 * 3},
		"figure3": {"figure3": 7 * 3, "figure2+3": 6 * 3},
		"figure4": {"figure4": 2 * 5 * 2},
	} {
		got := map[string]int{}
		for _, r := range cfg.Claims(fig, byFig) {
			got[r.Figure]++
			if r.N != 2 {
				t.Errorf("%s: %d pairs: %+v", fig, r.N, r)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: rows %v, want %v", fig, got, want)
		}
		for k, n := range want {
			if got[k] != n {
				t.Errorf("%s: rows %v, want %v", fig, got, want)
			}
		}
	}
}
