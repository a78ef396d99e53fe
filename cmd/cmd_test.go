package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/proxal"
	"github.com/fedcon/fedcon/federation"
	"github.com/fedcon/fedcon/internal/testutil"
)

func testFactory() (*Factory, *bytes.Buffer, *bytes.Buffer) {
	io, out, errOut := testIO()
	f := newFactory(io)
	f.Getenv = func(string) string { return "" }
	f.NumCPU = 2
	return f, out, errOut
}

// TestExitCodes: one table maps outcomes to exit codes; bad input is a
// one-line message and exit code 2.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		want int
		msg  string
	}{
		{"version", []string{"version"}, 0, ""},
		{"cpu profile", []string{"version", "--cpuprofile", filepath.Join(dir, "cpu.prof")}, 0, ""},
		{"cpu profile unwritable", []string{"version", "--cpuprofile", filepath.Join(dir, "none", "cpu.prof")}, 2, "--cpuprofile"},
		{"zero clients", []string{"run", "qp", "--clients", "0", "--out", dir}, 2, "clients = 0"},
		{"negative beta", []string{"run", "qp", "--beta", "-1", "--out", dir}, 2, "beta = -1"},
		{"dim < 1", []string{"run", "qp", "--dim", "0", "--out", dir}, 2, "dim = 0"},
		{"constraints >= dim", []string{"run", "qp", "--dim", "3", "--constraints", "3", "--out", dir}, 2, "constraints = 3"},
		{"unknown experiment (run)", []string{"run", "foo"}, 2, `unknown experiment "foo" for "fedcon run"`},
		{"unknown experiment (reproduce)", []string{"reproduce", "tableX"}, 2, `unknown experiment "tableX"`},
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"unknown flag", []string{"run", "qp", "--nope"}, 2, "unknown flag"},
		{"bad flag value", []string{"run", "qp", "--beta", "abc"}, 2, "invalid argument"},
		{"bad rng", []string{"run", "qp", "--rng", "mt"}, 2, `--rng" flag: "mt": want fedcon or numpy`},
		{"bad inner test", []string{"reproduce", "table4", "--inner-test", "x"}, 2, `--inner-test" flag: "x": want paper or measured`},
		{"missing config file", []string{"reproduce", "table4", "--config", filepath.Join(dir, "none.yaml")}, 2, "--config"},
		{"negative workers", []string{"run", "qp", "--workers", "-1", "--out", dir}, 2, "--workers -1"},
		{"unknown fairness preset", []string{"run", "fair", "--preset", "mine", "--out", dir}, 2, `--preset "mine"`},
		{"unknown dataset", []string{"run", "np", "--dataset", "iris", "--out", dir}, 2, "dataset = iris"},
		{"missing data", []string{"run", "np", "--data-dir", filepath.Join(dir, "none"), "--out", dir}, 2, "not found"},
		{"bad subsolver", []string{"run", "np", "--subsolver", "sgd", "--out", dir}, 2, `--subsolver" flag: "sgd": want newton or lbfgs`},
		{"unknown rho rule", []string{"run", "np", "--rho-rule", "osqp", "--out", dir}, 2, `--rho-rule" flag: unknown rho rule "osqp"`},
		{"relax at 2", []string{"run", "fair", "--relax", "2", "--out", dir}, 2, "relax = 2"},
		{"relax at 0", []string{"reproduce", "conic-table2", "--relax", "0", "--out", dir}, 2, "relax = 0"},
		{"outer relax at 2", []string{"run", "np", "--outer-relax", "2", "--out", dir}, 2, "outer_relax = 2"},
		{"negative outer relax", []string{"reproduce", "conic-table3", "--outer-relax", "-0.5", "--out", dir}, 2, "outer_relax = -0.5"},
		{"non-positive rho", []string{"run", "np", "--rho", "-0.5", "--out", dir}, 2, "rho = -0.5"},
		{"negative metric shift", []string{"run", "np", "--metric-shift", "-1", "--out", dir}, 2, "metric_shift = -1"},
		{"NaN eps-rel", []string{"run", "fair", "--eps-rel", "NaN", "--out", dir}, 2, "--eps-rel NaN: must be a finite number"},
		{"more clients than rows of a class", []string{"run", "np", "--clients", "300", "--data-dir", "../../shared/datasets", "--out", dir}, 2, "clients"},
		{"regression dataset for NP", []string{"run", "np", "--dataset", "abalone", "--clients", "1", "--trials", "1", "--data-dir", "../../shared/datasets", "--out", dir}, 2, "regression dataset"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, a := range c.args {
				if strings.Contains(a, "shared/datasets") {
					if _, err := os.Stat(a); err != nil {
						t.Skip("needs ../shared/datasets")
					}
				}
			}
			f, _, errOut := testFactory()
			got := run(context.Background(), f, c.args)
			if got != c.want {
				t.Fatalf("exit %d, want %d; stderr: %s", got, c.want, errOut)
			}
			if c.msg != "" && !strings.Contains(errOut.String(), c.msg) {
				t.Errorf("stderr %q lacks %q", errOut, c.msg)
			}
			if c.want == 2 && strings.Count(strings.TrimSpace(errOut.String()), "\n") > 1 {
				t.Errorf("usage error is not short: %q", errOut)
			}
		})
	}
}

func TestExitCodeTable(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("boom"), 1},
		{flagErrorf("bad"), 2},
		{&experiments.ConfigError{Field: "beta"}, 2},
		{context.Canceled, 130},
		{SilentError, 1},
		{fmt.Errorf("dry: %w", errDryRun), 0},
		{&federation.CertError{Kind: federation.KindExpired}, 2},
		{fmt.Errorf("client: %w", &federation.HandshakeError{Kind: federation.KindPlaintext}), 2},
		{fmt.Errorf("client 1: %w", federation.ErrRunFailed), 1},
		{fmt.Errorf("serve: %w", federation.ErrClientLost), 1},
	}
	for _, c := range cases {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("exitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

// TestRunQPOptions: argv → options, through a capturing runF.
func TestRunQPOptions(t *testing.T) {
	f, _, _ := testFactory()
	var got *QPOptions
	c := newCmdRunQP(f, func(o *QPOptions) error { got = o; return nil })
	c.SetArgs([]string{"--clients", "7", "--dim", "40", "--constraints", "2", "--workers", "3", "--out", "x"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Clients != 7 || got.Dim != 40 || got.Constrs != 2 || got.Workers != 3 || got.OutDir != "x" || !got.Single {
		t.Fatalf("options %+v", got)
	}
}

// TestConfigPrecedence: preset < --config file < FEDCON_* env < flags.
func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(file, []byte("beta: 20\nsbar: 0.5\nrho: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, _ := testFactory()
	f.Getenv = func(k string) string {
		if k == "FEDCON_SBAR" {
			return "0.25"
		}
		return ""
	}
	var cfg proxal.QPConfig
	c := newCmdReproduceTable4(f, func(o *QPOptions) error {
		return loadConfig(f, &o.commonOptions, "table4", &cfg)
	})
	c.SetArgs([]string{"--config", file, "--rho", "4"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if cfg.Beta != 20 || cfg.SBar != 0.25 || cfg.Rho != 4 || cfg.Trials != 10 || len(cfg.Cells) != 9 {
		t.Fatalf("cfg %+v", cfg)
	}
	// Unknown keys are errors that list the valid ones.
	if err := os.WriteFile(file, []byte("betta: 20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c = newCmdReproduceTable4(f, func(o *QPOptions) error {
		return loadConfig(f, &o.commonOptions, "table4", &cfg)
	})
	c.SetArgs([]string{"--config", file})
	err := c.Execute()
	if exitCode(err) != exitUsage || !strings.Contains(err.Error(), `c.yaml:1: unknown key "betta"`) || !strings.Contains(err.Error(), "sbar") {
		t.Fatalf("err = %v, want a usage error naming the file, line and betta and listing valid keys", err)
	}
}

// TestRunQPEndToEnd runs a tiny instance and checks the outputs exist and
// name the version and config.
func TestRunQPEndToEnd(t *testing.T) {
	dir := t.TempDir()
	f, out, errOut := testFactory()
	code := run(context.Background(), f, []string{"run", "qp", "--clients", "2", "--dim", "8", "--constraints", "1", "--trials", "2", "--out", dir})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out.String(), "objective A1 / cP") || strings.Contains(out.String(), "(part 1 of") {
		t.Errorf("stdout lacks the compact table: %s", out)
	}
	for _, ext := range []string{"json", "csv", "md"} {
		b, err := os.ReadFile(filepath.Join(dir, "qp-n2-d8-m1", "qp-n2-d8-m1."+ext))
		if err != nil {
			t.Fatal(err)
		}
		if ext == "json" && (!strings.Contains(string(b), `"fedcon_version"`) || !strings.Contains(string(b), `"config_hash"`)) {
			t.Errorf("json lacks run info")
		}
	}
}

// TestCheckCommand: exit 0 on a good table, 1 on a tampered one, 2 when
// there is nothing to check.
func TestCheckCommand(t *testing.T) {
	dir := t.TempDir()
	f, _, errOut := testFactory()
	if code := run(context.Background(), f, []string{"check", dir}); code != 2 {
		t.Fatalf("empty dir: exit %d (%s)", code, errOut)
	}
	if code := run(context.Background(), f, []string{"reproduce", "table4", "--config", writeConfig(t, dir, "cells: [[2, 10, 1]]\ntrials: 2\n"), "--out", dir, "--quiet"}); code != 0 {
		t.Fatalf("reproduce: exit %d (%s)", code, errOut)
	}
	if code := run(context.Background(), f, []string{"check", dir}); code != 0 {
		t.Fatalf("check: exit %d (%s)", code, errOut)
	}
	path := filepath.Join(dir, "table4", "table4.json")
	b, _ := os.ReadFile(path)
	b = bytes.Replace(b, []byte(`"status": "Converged"`), []byte(`"status": "OuterIterationLimit"`), 1)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := run(context.Background(), f, []string{"check", dir}); code != 1 {
		t.Fatalf("tampered: exit %d, want 1", code)
	}
}

func writeConfig(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, "cfg.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReproduceAllQuickResumes: the quick run writes results/quick/<name>/
// with trials and a manifest; a rerun reuses every trial; an unknown --only
// name is a usage error.
func TestReproduceAllQuickResumes(t *testing.T) {
	testutil.Slow(t)
	dir := t.TempDir()
	f, out, errOut := testFactory()
	if code := run(context.Background(), f, []string{"reproduce", "all", "--quick", "--only", "nope", "--out", dir}); code != 2 {
		t.Fatalf("--only nope: exit %d", code)
	}
	for pass, want := range []struct{ reused, computed int }{{0, 12}, {12, 0}} {
		out.Reset()
		if code := run(context.Background(), f, []string{"reproduce", "all", "--quick", "--only", "table4", "--out", dir, "--workers", "2"}); code != 0 {
			t.Fatalf("pass %d: exit %d: %s", pass, code, errOut)
		}
		var m experiments.Manifest
		b, err := os.ReadFile(filepath.Join(dir, "quick", "table4", "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m.Reused != want.reused || m.Computed != want.computed || len(m.TrialFiles) != 12 || !m.Complete || m.TrialHash == "" {
			t.Fatalf("pass %d: manifest %+v", pass, m.StoreCounts)
		}
		// The result file, written before the manifest, records the same end.
		var res struct {
			Info experiments.RunInfo `json:"run"`
		}
		if b, err = os.ReadFile(filepath.Join(dir, "quick", "table4", "table4.json")); err != nil || json.Unmarshal(b, &res) != nil {
			t.Fatalf("table4.json: %v", err)
		}
		if res.Info.End.IsZero() || !res.Info.End.Equal(m.End) || res.Info.WallSec != m.WallSec {
			t.Errorf("pass %d: result end %v (%g s), manifest end %v (%g s)", pass, res.Info.End, res.Info.WallSec, m.End, m.WallSec)
		}
		if !strings.Contains(out.String(), "table4") {
			t.Errorf("no summary table: %s", out)
		}
	}
	if code := run(context.Background(), f, []string{"check", "--quick", filepath.Join(dir, "quick")}); code != 0 {
		t.Fatalf("check: exit %d: %s", code, errOut)
	}
	// The run recorded what it was asked for (--only narrows it): table4
	// deleted, the gate fails it as not run.
	if e, err := experiments.ReadExpected(filepath.Join(dir, "quick")); err != nil || !slices.Equal(e.Experiments, []string{"table4"}) {
		t.Fatalf("expected %+v (%v), want [table4]", e, err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "quick", "table4")); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run(context.Background(), f, []string{"check", "--quick", dir}); code != 1 || !strings.Contains(out.String(), "not run") {
		t.Fatalf("check without table4: exit %d: %s", code, out)
	}
}

// TestSweep: a two-point sweep writes one table with a column for the swept
// key; unknown keys and invalid values are usage errors (exit 2) naming them.
func TestSweep(t *testing.T) {
	dir := t.TempDir()
	f, out, errOut := testFactory()
	write := func(name, body string) string {
		p := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("tiny", "preset: table4\nbase: {cells: [[2, 10, 1]], trials: 2}\nsweep:\n  beta: [5, 10]\n  q: [0.5]\n")
	if code := run(context.Background(), f, []string{"sweep", good, "--out", dir, "--quiet"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(dir, "sweep-tiny", "sweep-tiny.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "beta,q,n,d") || !strings.HasPrefix(lines[1], "5,0.5,2,10,1") || !strings.HasPrefix(lines[2], "10,0.5,2,10,1") {
		t.Fatalf("csv:\n%s", b)
	}
	if !strings.Contains(out.String(), "beta") {
		t.Errorf("stdout lacks the table")
	}
	// One axis setting two keys: each point has both at its value (the
	// manifest's configuration says so), and the csv names the axis.
	joint := write("joint", "preset: table4\nbase: {cells: [[2, 10, 1]], trials: 1}\nsweep:\n  eps1=eps2: [1.0e-3, 1.0e-7]\n")
	if code := run(context.Background(), f, []string{"sweep", joint, "--out", dir, "--quiet"}); code != 0 {
		t.Fatalf("joint axis: exit %d: %s", code, errOut)
	}
	var doc struct {
		Points []struct {
			Config struct{ Eps1, Eps2 float64 }
			QPRows []struct {
				KKT1 [2]float64 `json:"kkt_max_alg1"`
			} `json:"qp_rows"`
		}
	}
	b, err = os.ReadFile(filepath.Join(dir, "sweep-joint", "sweep-joint.json"))
	if err != nil || json.Unmarshal(b, &doc) != nil || len(doc.Points) != 2 {
		t.Fatalf("joint sweep json: %v\n%s", err, b)
	}
	for i, want := range []float64{1e-3, 1e-7} {
		p := doc.Points[i]
		if p.Config.Eps1 != want || p.Config.Eps2 != want || len(p.QPRows) != 1 || p.QPRows[0].KKT1[0] > want || p.QPRows[0].KKT1[1] > want {
			t.Errorf("point %d: %+v, want eps1 = eps2 = %g and KKT residuals within it", i, p, want)
		}
	}
	for name, body := range map[string]string{
		"badjoint": "preset: table4\nsweep:\n  eps1=epsx: [1e-3]\n",
		"badkey":   "preset: table4\nsweep:\n  betta: [1]\n",
		"badval":   "preset: table4\nbase: {cells: [[2, 10, 1]]}\nsweep:\n  beta: [1, -1]\n",
		"badpre":   "preset: nope\nsweep:\n  beta: [1]\n",
		"empty":    "preset: table4\nsweep:\n  beta: []\n",
		"unknown":  "preset: table4\nsweeps:\n  beta: [1]\n",
	} {
		errOut.Reset()
		if code := run(context.Background(), f, []string{"sweep", write(name, body), "--out", dir}); code != 2 {
			t.Errorf("%s: exit %d, want 2 (%s)", name, code, errOut)
		}
		if strings.Count(strings.TrimSpace(errOut.String()), "\n") > 0 {
			t.Errorf("%s: want one line, got %q", name, errOut)
		}
	}
}

// TestListFlags: list-valued keys have flags (--cells, --clients,
// --datasets) that reach the configuration; a malformed cell is a usage error.
func TestListFlags(t *testing.T) {
	dir := t.TempDir()
	f, _, errOut := testFactory()
	if code := run(context.Background(), f, []string{"reproduce", "table4", "--cells", "2x10x1,3x12x2", "--trials", "1", "--out", dir, "--quiet"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var m experiments.Manifest
	b, _ := os.ReadFile(filepath.Join(dir, "table4", "manifest.json"))
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if cells := m.Config.(map[string]any)["cells"]; fmt.Sprint(cells) != "[[2 10 1] [3 12 2]]" {
		t.Errorf("cells = %v", cells)
	}
	for _, args := range [][]string{
		{"reproduce", "table4", "--cells", "2x10"},
		{"reproduce", "table1", "--datasets", "nope"},
		{"reproduce", "table1", "--clients", "0"},
	} {
		if code := run(context.Background(), f, append(args, "--out", dir)); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	var got *NPOptions
	c := newCmdReproduceTable1(f, func(o *NPOptions) error { got = o; return nil })
	c.SetArgs([]string{"--clients", "1,5", "--datasets", "monks-1", "--admm-start", "w0"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	cfg := &proxal.NPConfig{}
	if err := loadConfig(f, &got.commonOptions, "table1", cfg); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(cfg.Clients, cfg.Datasets) != "[1 5] [monks-1]" || cfg.ADMMStart != "w0" {
		t.Errorf("config %v %v %v", cfg.Clients, cfg.Datasets, cfg.ADMMStart)
	}
}

// TestCPUProfile: --cpuprofile leaves a gzipped pprof profile behind.
func TestCPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	f, _, errOut := testFactory()
	if got := run(context.Background(), f, []string{"version", "--cpuprofile", path}); got != 0 {
		t.Fatalf("exit %d; stderr: %s", got, errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("%s is not a gzipped profile (%d bytes)", path, len(b))
	}
}

// TestOtherConfigurationKept: the case, on a small cell: a run with
// another --beta on the same --out keeps the default run's trial file
// (trials/@<hash>/, one line on stderr, counted in the manifest); rerunning
// the default takes it back without computing, and the gate passes.
func TestOtherConfigurationKept(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, "cells: [[1, 10, 1]]\ntrials: 1\n")
	runOK := func(args ...string) string {
		t.Helper()
		f, _, errOut := testFactory()
		if code := run(context.Background(), f, append([]string{"reproduce", "table4", "--config", cfg, "--out", dir}, args...)); code != 0 {
			t.Fatalf("%v: exit %d (%s)", args, code, errOut)
		}
		return errOut.String()
	}
	runOK()
	trial := filepath.Join(dir, "table4", "trials", "n1-d10-m1-t00.json")
	first, err := os.ReadFile(trial)
	if err != nil {
		t.Fatal(err)
	}
	msg := runOK("--beta", "20")
	if !strings.Contains(msg, "kept 1 trial file of another configuration in "+filepath.Join(dir, "table4", "trials", "@")) {
		t.Errorf("stderr does not say the file was kept: %s", msg)
	}
	var m experiments.Manifest
	b, _ := os.ReadFile(filepath.Join(dir, "table4", "manifest.json"))
	if err := json.Unmarshal(b, &m); err != nil || len(m.SetAside) != 1 || m.Computed != 1 {
		t.Errorf("manifest: set aside %v, computed %d (%v)", m.SetAside, m.Computed, err)
	}
	msg = runOK()
	if !strings.Contains(msg, "1 reused") {
		t.Errorf("the default run did not take its trial back: %s", msg)
	}
	if again, _ := os.ReadFile(trial); !bytes.Equal(again, first) {
		t.Errorf("the default run's trial file changed")
	}
	f, _, errOut := testFactory()
	if code := run(context.Background(), f, []string{"check", dir}); code != 0 {
		t.Fatalf("check: exit %d (%s)", code, errOut)
	}
}
