package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/proxal"
)

// writeSynthetic writes a CSV of m rows drawn from a logistic model with
// seed: two numeric features, a categorical one, a site column with three
// values, a sensitive column and a yes/no label.
func writeSynthetic(t *testing.T, path string, m int, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0))
	var b strings.Builder
	b.WriteString("id,age,dose,colour,site,sex,outcome\n")
	for i := range m {
		age := 20 + rng.IntN(60)
		dose := math.Round(rng.NormFloat64()*100) / 100
		colour := []string{"red", "green", "blue"}[rng.IntN(3)]
		site := []string{"north", "south", "east"}[i%3]
		sex := []string{"F", "M"}[rng.IntN(2)]
		z := 0.04*float64(age-50) + dose + map[string]float64{"red": 0.5, "green": 0, "blue": -0.5}[colour]
		y := "no"
		if rng.Float64() < 1/(1+math.Exp(-z)) {
			y = "yes"
		}
		fmt.Fprintf(&b, "%d,%d,%g,%s,%s,%s,%s\n", i, age, dose, colour, site, sex, y)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestOwnDataErrors: every bad --data input is one line and exit code 2,
// and nothing is written.
func TestOwnDataErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.csv")
	writeSynthetic(t, good, 60, 1)
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notNum := file("notnum.csv", "a,b,y\n1,2,0\n3,4,1\n5,x,1\n")
	ragged := file("ragged.csv", "a,b,y\n1,2,0\n3,4\n")
	empty := file("empty.csv", "")
	oneClass := file("one.csv", "a,y\n1,yes\n2,yes\n")
	badSVM := file("bad.svm", "+1 1:2\n-1 2:1 1:3\n")
	out := filepath.Join(dir, "out")
	np := func(args ...string) []string {
		return append([]string{"run", "np", "--out", out, "--trials", "1"}, args...)
	}
	fair := func(args ...string) []string {
		return append([]string{"run", "fair", "--out", out, "--trials", "1"}, args...)
	}
	cases := []struct {
		name string
		args []string
		msg  string
	}{
		{"missing file", np("--data", filepath.Join(dir, "none.csv")), "data = " + filepath.Join(dir, "none.csv") + ": cannot read it: no such file or directory"},
		{"unknown label column", np("--data", good, "--label", "target"), "label = target: no such column in " + good + " (columns: id, age, dose, colour, site, sex, outcome)"},
		{"label with one class", np("--data", oneClass), "label = y: has one value (yes)"},
		{"positive value absent", np("--data", good, "--label", "outcome", "--positive", "maybe"), "positive = maybe: does not occur in column outcome of " + good + " (values: no, yes)"},
		{"non-numeric value", np("--data", notNum), notNum + `:4: column "b" (field 2): expected a number (line 2 has "2"), got "x"`},
		{"ragged row", np("--data", ragged), ragged + ":3: expected 3 fields as in the header, got 2"},
		{"empty file", np("--data", empty), empty + ":1: expected a header row of column names, found an empty file"},
		{"bad LIBSVM pair", np("--data", badSVM), badSVM + ":2: pair 2: index 1 after 2: indices must increase"},
		{"unknown partition column", np("--data", good, "--label", "outcome", "--partition-by", "region"), "partition-by = region: no such column"},
		{"clients disagree with partition-by", np("--data", good, "--label", "outcome", "--partition-by", "site", "--clients", "4"), "clients = 4: --partition-by site gives one client per value: 3 (east, north, south)"},
		{"more clients than rows", np("--data", good, "--label", "outcome", "--clients", "61"), "fewer than the 61 clients"},
		{"dirichlet alpha zero", np("--data", good, "--label", "outcome", "--dirichlet-alpha", "0"), "dirichlet-alpha = 0: must be a finite number > 0"},
		{"dirichlet alpha negative", np("--data", good, "--label", "outcome", "--partition", "dirichlet", "--dirichlet-alpha", "-1"), "dirichlet-alpha = -1"},
		{"dirichlet alpha NaN", np("--data", good, "--label", "outcome", "--dirichlet-alpha", "NaN"), "--dirichlet-alpha NaN: must be a finite number"},
		{"alpha without dirichlet", np("--data", good, "--label", "outcome", "--partition", "iid", "--dirichlet-alpha", "2"), "dirichlet-alpha = 2: needs partition dirichlet"},
		{"unknown partition", np("--data", good, "--label", "outcome", "--partition", "random"), `--partition" flag: "random": want iid, by-column or dirichlet`},
		{"unknown format", np("--data", good, "--format", "xlsx"), `--format" flag: "xlsx": want csv or libsvm`},
		{"data and dataset", np("--data", good, "--dataset", "monks-1"), "--data " + good + " and --dataset monks-1: choose one"},
		{"label without data", np("--label", "outcome"), "--label needs --data FILE"},
		{"fair without sensitive", fair("--data", good, "--label", "outcome"), "needs --sensitive COLUMN"},
		{"fair sensitive with many values", fair("--data", good, "--label", "outcome", "--sensitive", "colour"), "sensitive = colour: has 3 values (blue, green, red): name the one coded 1 with --sensitive-value"},
		{"fair server fraction", fair("--data", good, "--label", "outcome", "--sensitive", "sex", "--server-fraction", "1"), "server-fraction = 1: must be in (0, 1)"},
		{"client without a class", np("--data", good, "--label", "outcome", "--positive", "yes", "--partition-by", "id"), "has no rows of class"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, _, errOut := testFactory()
			if got := run(context.Background(), f, c.args); got != 2 {
				t.Fatalf("exit %d, want 2; stderr: %s", got, errOut)
			}
			if !strings.Contains(errOut.String(), c.msg) {
				t.Errorf("stderr %q lacks %q", errOut, c.msg)
			}
			if strings.Count(strings.TrimSpace(errOut.String()), "\n") > 1 {
				t.Errorf("usage error is not short: %q", errOut)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
}

// trialFiles returns the trial files of a run with the timings removed:
// what a run must reproduce byte for byte.
func ownTrialFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	timing := regexp.MustCompile(`"(runtime_ns|wall_seconds)":\s*[0-9.e+-]+`)
	files, err := filepath.Glob(filepath.Join(dir, "trials", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no trial files in %s (%v)", dir, err)
	}
	out := map[string]string{}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = timing.ReplaceAllString(string(b), "")
	}
	return out
}

func ownReadManifest(t *testing.T, path string) *experiments.Manifest {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m experiments.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return &m
}

// TestOwnDataEndToEnd runs `run np` and `run fair` on a synthetic CSV
// through the command's entry point: every run converges, a rerun with the
// same seed writes the same trials, the trial hash follows the file's
// contents (not its path), and the partition-by column sets n.
func TestOwnDataEndToEnd(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "clinic.csv")
	writeSynthetic(t, data, 240, 7)
	runOK := func(args ...string) {
		t.Helper()
		f, _, errOut := testFactory()
		if got := run(context.Background(), f, args); got != 0 {
			t.Fatalf("%v: exit %d; stderr: %s", args, got, errOut)
		}
	}
	common := []string{"--data", data, "--label", "outcome", "--positive", "yes", "--drop", "id", "--trials", "2", "--quiet"}
	tests := []struct {
		name, run string
		args      []string
		dir       string // results directory
		n         int
	}{
		{"np by column", "np", []string{"--partition-by", "site"}, "np-clinic-by-site", 3},
		{"np iid", "np", []string{"--clients", "4"}, "np-clinic-n4", 4},
		{"np dirichlet", "np", []string{"--clients", "4", "--dirichlet-alpha", "0.3"}, "np-clinic-n4", 4},
		{"fair iid", "fair", []string{"--sensitive", "sex", "--clients", "3"}, "fair-clinic-n3", 3},
		{"fair by column", "fair", []string{"--sensitive", "sex", "--partition-by", "site"}, "fair-clinic-by-site", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var trials []map[string]string
			for k := range 2 {
				out := filepath.Join(dir, fmt.Sprintf("%s-%d", strings.ReplaceAll(tt.name, " ", "-"), k))
				runOK(append(append([]string{"run", tt.run, "--out", out}, common...), tt.args...)...)
				res := filepath.Join(out, tt.dir)
				trials = append(trials, ownTrialFiles(t, res))
				m := ownReadManifest(t, filepath.Join(res, "manifest.json"))
				if !m.Complete || m.Computed != 2 {
					t.Fatalf("manifest: complete %v, %d computed; want true, 2", m.Complete, m.Computed)
				}
				var doc proxal.NPResult
				b, err := os.ReadFile(filepath.Join(res, tt.dir+".json"))
				if err != nil || json.Unmarshal(b, &doc) != nil {
					t.Fatalf("result file: %v", err)
				}
				for _, tr := range doc.Trials {
					if tr.N != tt.n || tr.Dataset != "clinic" {
						t.Errorf("trial on %s with n = %d, want clinic, %d", tr.Dataset, tr.N, tt.n)
					}
					for _, a := range []proxal.ClassAlg{tr.Alg1, tr.CProx} {
						// Certified: Converged, and the KKT residuals audited at
						// the returned point within the default ε1 = ε2 = 1e-3.
						if a.Status.String() != "Converged" || a.Residuals.Stationarity > 1e-3 || a.Residuals.Feasibility > 1e-3 {
							t.Errorf("trial %d: %v with residuals %+v", tr.Trial, a.Status, a.Residuals)
						}
					}
				}
			}
			if !maps.Equal(trials[0], trials[1]) {
				t.Error("same seed, different trial files")
			}
		})
	}

	// The trial hash: a moved copy of the file reuses the trials, an edited
	// file does not.
	hash := func(path, out string) (string, int) {
		t.Helper()
		runOK("run", "np", "--out", out, "--data", path, "--label", "outcome", "--drop", "id", "--clients", "2", "--trials", "1", "--quiet")
		name := strings.TrimSuffix(filepath.Base(path), ".csv")
		m := ownReadManifest(t, filepath.Join(out, "np-"+name+"-n2", "manifest.json"))
		return m.TrialHash, m.Reused
	}
	out := filepath.Join(dir, "hash")
	h0, _ := hash(data, out)
	moved := filepath.Join(dir, "elsewhere", "clinic.csv")
	if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(data)
	if err := os.WriteFile(moved, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if h1, reused := hash(moved, out); h1 != h0 || reused != 1 {
		t.Errorf("moved file: hash %s reused %d; want %s, 1", h1, reused, h0)
	}
	if err := os.WriteFile(moved, append(b, []byte("999,50,0.1,red,north,F,yes\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if h2, reused := hash(moved, out); h2 == h0 || reused != 0 {
		t.Errorf("edited file: hash %s reused %d; want a new hash, 0", h2, reused)
	}
}

// TestOwnDataMatchesBuiltIn: breast-cancer-wisc exported by 'fedcon data
// export' and solved with --data gives the built-in run's trials: the CSV
// pipeline re-standardises standardised columns (a no-op up to rounding),
// iid keeps the built-in per-class partition and the seed the same w0.
func TestOwnDataMatchesBuiltIn(t *testing.T) {
	data := filepath.Join("..", "..", "shared", "datasets")
	if _, err := os.Stat(filepath.Join(data, "breast-cancer-wisconsin")); err != nil {
		t.Skip("needs ../shared/datasets")
	}
	dir := t.TempDir()
	csv := filepath.Join(dir, "bcw.csv")
	runs := [][]string{
		{"data", "export", "breast-cancer-wisc", "--data-dir", data, "--format", "csv", "-o", csv, "--quiet"},
		{"run", "np", "--dataset", "breast-cancer-wisc", "--data-dir", data, "--clients", "5", "--trials", "2", "--out", dir, "--quiet"},
		{"run", "np", "--data", csv, "--label", "y", "--drop", "row,intercept", "--clients", "5", "--trials", "2", "--out", dir, "--quiet"},
	}
	for _, args := range runs {
		f, _, errOut := testFactory()
		if got := run(context.Background(), f, args); got != 0 {
			t.Fatalf("%v: exit %d; stderr: %s", args, got, errOut)
		}
	}
	read := func(name string) proxal.NPResult {
		var r proxal.NPResult
		b, err := os.ReadFile(filepath.Join(dir, name, name+".json"))
		if err != nil || json.Unmarshal(b, &r) != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return r
	}
	want, got := read("np-breast-cancer-wisc-n5"), read("np-bcw-n5")
	if len(got.Trials) != 2 || len(want.Trials) != 2 {
		t.Fatalf("%d and %d trials", len(got.Trials), len(want.Trials))
	}
	for i := range want.Trials {
		w, g := want.Trials[i], got.Trials[i]
		for k, pair := range [][2]proxal.ClassAlg{{w.Alg1, g.Alg1}, {w.CProx, g.CProx}} {
			// The re-standardised columns differ from the built-in ones by
			// rounding (~1e-16), which can tip one of Algorithm 1's discrete
			// choices (an AL term's activity, a restart), so the two runs may
			// stop at different (ε1, ε2)-KKT points of the same convex
			// problem: their objectives then differ by at most the band
			// that the two certificates allow.
			d, band := math.Abs(pair[0].Objective-pair[1].Objective), kktBand(pair[0], pair[1])
			t.Logf("trial %d alg %d: |Δf| %.3g, band %.3g", i, k, d, band)
			if d > band || pair[0].Status != pair[1].Status {
				t.Errorf("trial %d alg %d: objective %v (%v) vs built-in %v (%v): differ by %.3g, band %.3g",
					i, k, pair[1].Objective, pair[1].Status, pair[0].Objective, pair[0].Status, d, band)
			}
		}
	}
}

// kktBand bounds |f(w_a) - f(w_b)| for two KKT points of one convex
// problem with stationarity s, feasibility v and multipliers μ ≥ 0: by
// convexity of f and of each c_j, f(w_b) - f(w_a) ≥ -s_a·√d·||w_b - w_a|| -
// ||μ_a||₁(v_a + v_b), and the same with a and b swapped.
func kktBand(a, b proxal.ClassAlg) float64 {
	l1 := func(mu [][]float64) float64 {
		var s float64
		for _, m := range mu {
			for _, v := range m {
				s += math.Abs(v)
			}
		}
		return s
	}
	var dist float64
	for j := range a.W {
		dist += (a.W[j] - b.W[j]) * (a.W[j] - b.W[j])
	}
	s := max(a.Residuals.Stationarity, b.Residuals.Stationarity)
	v := a.Residuals.Feasibility + b.Residuals.Feasibility
	return s*math.Sqrt(float64(len(a.W))*dist) + max(l1(a.Mu), l1(b.Mu))*v + 1e-12
}

// TestOwnDataLIBSVMMatchesCSV: the same samples as a CSV and as a LIBSVM
// file (labels +1/-1, zeros left out) give the same trials.
func TestOwnDataLIBSVMMatchesCSV(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 0))
	var csv, svm strings.Builder
	csv.WriteString("a,b,c,y\n")
	for range 90 {
		x := []float64{math.Round(rng.NormFloat64()*100) / 100, float64(rng.IntN(3)), math.Round(rng.NormFloat64()*100) / 100}
		y := 0
		if rng.Float64() < 1/(1+math.Exp(-x[0]-0.5*x[1])) {
			y = 1
		}
		fmt.Fprintf(&csv, "%g,%g,%g,%d\n", x[0], x[1], x[2], y)
		fmt.Fprintf(&svm, "%+d", 2*y-1)
		for j, v := range x {
			if v != 0 {
				fmt.Fprintf(&svm, " %d:%g", j+1, v)
			}
		}
		svm.WriteString("\n")
	}
	files := map[string]string{"s.csv": csv.String(), "s.svm": svm.String()}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var trials []map[string]string
	for _, name := range []string{"s.csv", "s.svm"} {
		out := filepath.Join(dir, "out-"+name)
		f, _, errOut := testFactory()
		args := []string{"run", "np", "--data", filepath.Join(dir, name), "--positive", "1", "--clients", "3", "--trials", "2", "--out", out, "--quiet"}
		if got := run(context.Background(), f, args); got != 0 {
			t.Fatalf("%v: exit %d; stderr: %s", args, got, errOut)
		}
		ts := ownTrialFiles(t, filepath.Join(out, "np-s-n3"))
		// Only the configuration's hash may differ (the files differ).
		hashes := regexp.MustCompile(`"config_hash":\s*"[0-9a-f]+"`)
		for k, v := range ts {
			ts[k] = hashes.ReplaceAllString(v, "")
		}
		trials = append(trials, ts)
	}
	if !maps.Equal(trials[0], trials[1]) {
		t.Error("the CSV and the LIBSVM file give different trials")
	}
}
