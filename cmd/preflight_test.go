package cmd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/viper"

	"github.com/fedcon/fedcon/configs"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/conic"
	"github.com/fedcon/fedcon/experiments/drfl"
	"github.com/fedcon/fedcon/experiments/proxal"
	"github.com/fedcon/fedcon/experiments/ssca"
	"github.com/fedcon/fedcon/internal/testutil"
)

// hostileCase is one input a hostile user tries: argv, the environment, a
// --config file body (written to cfg.yaml, appended as --config when set),
// and the exit code and message fragment it must get, before any work.
type hostileCase struct {
	name string
	args []string
	env  map[string]string
	yaml string
	want int
	msg  string
}

// hostileCases is the corpus of TestHostileInputs; docs/design.md states
// its size (TestHostileCorpusDocumented).
func hostileCases(dir string) []hostileCase {
	file := filepath.Join(dir, "a-file")
	qp := func(extra ...string) []string { return append([]string{"run", "qp", "--out", dir}, extra...) }
	t4 := func(extra ...string) []string { return append([]string{"reproduce", "table4", "--out", dir}, extra...) }
	mem := map[string]string{"FEDCON_MAX_MEMORY": "8G"} // the same refusal on any machine
	return []hostileCase{
		// Non-finite numbers, on every float flag.
		{"eps-floor NaN", qp("--eps-floor", "NaN"), nil, "", 2, "--eps-floor NaN: must be a finite number"},
		{"eps-floor Inf", qp("--eps-floor", "Inf"), nil, "", 2, "--eps-floor +Inf: must be a finite number"},
		{"eps-floor -Inf", qp("--eps-floor", "-Inf"), nil, "", 2, "--eps-floor -Inf: must be a finite number"},
		{"beta NaN", t4("--beta", "NaN"), nil, "", 2, "--beta NaN"},
		{"q Inf (np)", []string{"run", "np", "--q", "Inf", "--out", dir}, nil, "", 2, "--q +Inf"},
		{"relax NaN (fair)", []string{"run", "fair", "--relax", "NaN", "--out", dir}, nil, "", 2, "--relax NaN"},
		{"DRFL test-mean NaN", []string{"run", "drfl", "--test-mean", "NaN"}, nil, "", 2, "--test-mean NaN: must be a finite number"},
		{"DRFL test-sd Inf", []string{"run", "drfl", "--test-sd", "Inf"}, nil, "", 2, "--test-sd +Inf: must be a finite number"},
		{"eps-floor negative", qp("--eps-floor", "-1"), nil, "", 2, "eps_floor = -1"},
		{"participation 0", qp("--participation", "0"), nil, "", 2, "participation = 0: must be in (0, 1]"},
		{"participation 1.5 (np)", []string{"run", "np", "--participation", "1.5", "--out", dir}, nil, "", 2, "participation = 1.5"},
		{"drop-prob 1 (fair)", []string{"run", "fair", "--drop-prob", "1", "--out", dir}, nil, "", 2, "drop_prob = 1: must be in [0, 1)"},
		{"drop_prob negative (env)", qp(), map[string]string{"FEDCON_DROP_PROB": "-0.1"}, "", 2, "drop_prob = -0.1"},
		{"participation 0 (yaml)", qp(), nil, "participation: 0\n", 2, "participation = 0"},
		{"participation_sampling unknown", qp("--participation-sampling", "rows"), nil, "", 2, `invalid argument "rows" for "--participation-sampling" flag: "rows": want uniform or weighted`},
		// Ranges and shapes.
		{"trials 1e8", qp("--trials", "100000000"), nil, "", 2, "trials = 100000000: must be in [1, 100000]"},
		{"trials 0", qp("--trials", "0"), nil, "", 2, "trials = 0"},
		{"max-outer 1e8", qp("--max-outer", "100000000"), nil, "", 2, "max_outer = 100000000"},
		{"max-inner 0", qp("--max-inner", "0"), nil, "", 2, "max_inner = 0"},
		{"clients 100000", qp("--clients", "100000"), nil, "", 2, "100001 equality rows must be < dim = 100"},
		{"15 equality rows in 5 unknowns", qp("--dim", "5", "--constraints", "3", "--clients", "5"), nil, "", 2, "18 equality rows must be < dim = 5"},
		{"dim 2^20", qp("--dim", "1048576"), nil, "", 2, "dim = 1048576"},
		{"cells flag infeasible", t4("--cells", "5x5x3"), nil, "", 2, "18 equality rows"},
		{"conic cell infeasible", []string{"reproduce", "conic-table1", "--out", dir}, nil, "cells: [[10, 5, 3]]\n", 2, "(n+1)·m̃ = 18 must be < d = 10"},
		// Memory and time, refused with what they need (exit 1).
		{"dim 100000", qp("--dim", "100000"), mem, "", 1, "needs about 1.8 TiB of memory, 8.0 GiB allowed by FEDCON_MAX_MEMORY"},
		{"clients 100000 at dim 200001", qp("--clients", "100000", "--dim", "200001"), mem, "", 1, "of memory, 8.0 GiB allowed"},
		{"dim 3000 over the time limit", qp("--dim", "3000"), map[string]string{"FEDCON_MAX_TIME": "1m", "FEDCON_MAX_MEMORY": "8G"}, "", 1, "over the 1m0s limit (FEDCON_MAX_TIME): rerun with --yes"},
		{"table4 cells over memory", t4("--cells", "5x60000x1"), mem, "", 1, "needs about"},
		{"np 100,000 trials over the time limit", []string{"run", "np", "--dataset", "adult-a", "--trials", "100000", "--out", dir}, mem, "", 1, "over the 2h0m0s limit (FEDCON_MAX_TIME): rerun with --yes"},
		{"fair over memory", []string{"reproduce", "table2", "--out", dir}, map[string]string{"FEDCON_MAX_MEMORY": "1M"}, "", 1, "table2 needs about"},
		{"ssca 100 runs over the time limit", []string{"reproduce", "ssca-figure2", "--out", dir}, map[string]string{"FEDCON_MAX_TIME": "10m", "FEDCON_DATA_DIR": os.Getenv("FEDCON_DATA_DIR")}, "", 1, "ssca figure2 would take about"},
		{"drfl cv figure over the time limit", []string{"reproduce", "drfl-figure3", "--cv", "--out", dir}, map[string]string{"FEDCON_MAX_TIME": "10m"}, "", 1, "reproduce drfl-figure3 would take about"},
		{"drfl figure1 draws over memory", []string{"reproduce", "drfl-figure1", "--draws", "1000000000", "--out", dir}, mem, "", 1, "reproduce drfl-figure1 needs about 14.9 GiB of memory"},
		{"conic figure over the time limit", []string{"reproduce", "conic-figure1", "--out", dir}, map[string]string{"FEDCON_MAX_TIME": "1s"}, "", 1, "rerun with --yes"},
		{"serve qp over memory", []string{"serve", "--problem", "qp", "--cell", "5,100000,1", "--in-process"}, mem, "", 1, "serve qp needs about 1.8 TiB of memory"},
		{"serve qp infeasible", []string{"serve", "--problem", "qp", "--cell", "5,5,3", "--in-process"}, nil, "", 2, "18 equality rows"},
		{"bad FEDCON_MAX_MEMORY", qp(), map[string]string{"FEDCON_MAX_MEMORY": "lots"}, "", 2, "environment FEDCON_MAX_MEMORY=lots"},
		{"bad FEDCON_MAX_TIME", qp(), map[string]string{"FEDCON_MAX_TIME": "-5m"}, "", 2, "environment FEDCON_MAX_TIME=-5m"},
		// Strict YAML: file, line, key, problem.
		{"yaml trials 2.5", t4(), nil, "trials: 2.5\n", 2, "cfg.yaml:1: trials: 2.5 is not an integer"},
		{"yaml seed -4", t4(), nil, "beta: 5\nseed: -4\n", 2, "cfg.yaml:2: seed: -4 is negative"},
		{"yaml beta true", t4(), nil, "beta: true\n", 2, "cfg.yaml:1: beta: true is not a number"},
		{"yaml beta word", t4(), nil, "beta: ten\n", 2, "beta: ten is not a number"},
		{"yaml int overflow", t4(), nil, "trials: 99999999999999999999\n", 2, "trials: 99999999999999999999 overflows a 64-bit integer"},
		{"yaml uint overflow", t4(), nil, "seed: 18446744073709551616\n", 2, "seed: 18446744073709551616 overflows a 64-bit unsigned integer"},
		{"yaml unknown key", t4(), nil, "trials: 2\nbetta: 20\n", 2, `cfg.yaml:2: unknown key "betta" (valid keys: beta, cells,`},
		{"yaml .nan", t4(), nil, "rho: .nan\n", 2, "rho: .nan is not a finite number"},
		{"yaml -.inf", t4(), nil, "eps_floor: -.inf\n", 2, "eps_floor: -.inf is not a finite number"},
		{"yaml fraction in a cell", t4(), nil, "cells: [[2, 10.5, 1]]\n", 2, "cells: 10.5 is not an integer"},
		{"yaml cells scalar", t4(), nil, "cells: 5\n", 2, `cells: want a list, got "5"`},
		{"yaml string as list", t4(), nil, "rng: [fedcon]\n", 2, "rng: want a single value, got a list"},
		{"yaml null", t4(), nil, "trials:\n", 2, "cfg.yaml:1: trials: no value"},
		{"yaml not a mapping", t4(), nil, "- 1\n- 2\n", 2, "file: want a mapping of keys, got a list"},
		{"yaml syntax", t4(), nil, "beta: [1\n", 2, "--config"},
		{"yaml bool for a word", t4(), nil, "inner_test: true\n", 2, "inner_test: true is not a word"},
		// Enums are parsed by their types where they enter, naming the key.
		{"yaml unknown rho rule (np)", []string{"run", "np", "--out", dir}, nil, "rho_rule: osqp\n", 2, `cfg.yaml:1: rho_rule: unknown rho rule "osqp": want fixed (the paper), balance, adaptive or hessian`},
		{"yaml unknown ball parties", []string{"reproduce", "conic-table1", "--out", dir}, nil, "ball_parties: some\n", 2, `cfg.yaml:1: ball_parties: "some": want server, clients or all`},
		{"env unknown inner test", t4(), map[string]string{"FEDCON_INNER_TEST": "x"}, "", 2, `environment FEDCON_INNER_TEST=x (key inner_test): "x": want paper or measured`},
		{"env unknown admm start", []string{"run", "np", "--out", dir}, map[string]string{"FEDCON_ADMM_START": "w1"}, "", 2, `environment FEDCON_ADMM_START=w1 (key admm_start): "w1": want wk or w0`},
		{"yaml nested unknown (drfl)", []string{"run", "drfl"}, nil, "figure1: {draw: 5}\n", 2, `unknown key "figure1.draw"`},
		{"yaml negative unsigned (np)", []string{"run", "np", "--out", dir}, nil, "seed: -1\n", 2, "seed: -1 is negative"},
		// Sweep files: base and swept values have the config's types.
		{"sweep value bool", []string{"sweep", writeSweepFile(dir, "preset: table4\nbase: {cells: [[2, 10, 1]]}\nsweep:\n  beta: [5, true]\n"), "--out", dir}, nil, "", 2, "s.yaml:4: beta: true is not a number"},
		{"sweep base fraction", []string{"sweep", writeSweepFile(dir, "preset: table4\nbase: {trials: 2.5}\nsweep:\n  beta: [5]\n"), "--out", dir}, nil, "", 2, "s.yaml:2: trials: 2.5 is not an integer"},
		// Environment variables are named.
		{"env trials 2.5", t4(), map[string]string{"FEDCON_TRIALS": "2.5"}, "", 2, "environment FEDCON_TRIALS=2.5 (key trials): 2.5 is not an integer"},
		{"env seed -1", t4(), map[string]string{"FEDCON_SEED": "-1"}, "", 2, "FEDCON_SEED=-1 (key seed): -1 is negative"},
		{"env beta NaN", t4(), map[string]string{"FEDCON_BETA": "NaN"}, "", 2, "FEDCON_BETA=NaN (key beta): NaN is not a finite number"},
		{"env overflow", t4(), map[string]string{"FEDCON_MAX_OUTER": "1e400"}, "", 2, "FEDCON_MAX_OUTER=1e400"},
		{"env list element", []string{"reproduce", "table1", "--out", dir}, map[string]string{"FEDCON_CLIENTS": "1,x"}, "", 2, "FEDCON_CLIENTS=1,x (key clients): x is not an integer"},
		// Positional arguments and --out, before any work.
		{"extra argument (run qp)", qp("extra"), nil, "", 2, `unknown command "extra" for "fedcon run qp"`},
		{"extra argument (reproduce table4)", t4("x"), nil, "", 2, `unknown command "x"`},
		{"two dirs (check)", []string{"check", dir, dir}, nil, "", 2, "accepts at most 1 arg(s), received 2"},
		{"no file (sweep)", []string{"sweep"}, nil, "", 2, "accepts 1 arg(s), received 0"},
		{"data describe without a name", []string{"data", "describe"}, nil, "", 2, "want one dataset name"},
		{"out is a file", []string{"run", "qp", "--out", file}, nil, "", 2, "--out " + file + ": is a file, not a directory"},
		{"out under a file", []string{"run", "qp", "--out", filepath.Join(file, "x")}, nil, "", 2, "is a file, not a directory"},
		{"out is a file (reproduce all)", []string{"reproduce", "all", "--quick", "--out", file}, nil, "", 2, "is a file, not a directory"},
		{"out is a file (np)", []string{"run", "np", "--out", file}, nil, "", 2, "is a file, not a directory"},
	}
}

// writeSweepFile writes a sweep file into a fresh directory under dir's parent
// (not dir: a refused command must leave dir as it was).
func writeSweepFile(dir, body string) string {
	d, err := os.MkdirTemp(filepath.Dir(dir), "sweep")
	if err != nil {
		panic(err)
	}
	p := filepath.Join(d, "s.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		panic(err)
	}
	return p
}

// TestHostileInputs: every input of the corpus is one line and its exit
// code, refused before any work (no result directory appears).
func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a-file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadDir(dir)
	for _, c := range hostileCases(dir) {
		t.Run(c.name, func(t *testing.T) {
			f, _, errOut := testFactory()
			f.Getenv = func(k string) string { return c.env[k] }
			args := c.args
			if c.yaml != "" {
				args = append(append([]string(nil), args...), "--config", writeConfig(t, t.TempDir(), c.yaml))
			}
			got := run(context.Background(), f, args)
			msg := strings.TrimSpace(errOut.String())
			if got != c.want {
				t.Fatalf("exit %d, want %d; stderr %q", got, c.want, msg)
			}
			if !strings.Contains(msg, c.msg) {
				t.Errorf("stderr %q lacks %q", msg, c.msg)
			}
			if lines := strings.Count(msg, "\n") + 1; lines > 2 || lines == 2 && !strings.Contains(msg, "--help' for usage") {
				t.Errorf("not one line: %q", msg)
			}
			if strings.Contains(msg, "goroutine") || strings.Contains(msg, "panic") {
				t.Errorf("runtime dump: %q", msg)
			}
		})
	}
	if after, _ := os.ReadDir(dir); len(after) != len(before) {
		t.Errorf("a refused command wrote into --out: %d entries, want %d", len(after), len(before))
	}
}

// TestHostileCorpusDocumented: docs/design.md states the corpus size.
func TestHostileCorpusDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`corpus of (\d+) hostile inputs`).FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/design.md does not state the hostile-input corpus size")
	}
	if n, _ := strconv.Atoi(string(m[1])); n != len(hostileCases(t.TempDir())) {
		t.Errorf("docs/design.md says %d hostile inputs, TestHostileInputs has %d", n, len(hostileCases(t.TempDir())))
	}
}

// presetTypes are the config types of the presets loaded through loadConfig.
var presetTypes = map[string]func() any{
	"table1":         func() any { return &proxal.NPConfig{} },
	"table2":         func() any { return &proxal.FairConfig{} },
	"table2-authors": func() any { return &proxal.FairConfig{} },
	"table4":         func() any { return &proxal.QPConfig{} },
	"conic-table1":   func() any { return &conic.QPConfig{} },
	"conic-table2":   func() any { return &proxal.NPConfig{} },
	"conic-table3":   func() any { return &proxal.FairConfig{} },
	"ssca/ssca":      func() any { return &ssca.Config{} },
	"drfl/drfl":      func() any { return &drfl.Config{} },
}

// TestPresetsPassStrictYAML: every shipped preset, given as --config, is
// accepted by the strict check, and loads into its type.
func TestPresetsPassStrictYAML(t *testing.T) {
	for name, newCfg := range presetTypes {
		b, err := configs.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkConfigYAML(name+".yaml", b, newCfg()); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		f, _, _ := testFactory()
		o := &commonOptions{Config: filepath.Join("..", "configs", name+".yaml")}
		o.flags = newCmdRoot(f).Flags()
		if err := loadConfig(f, o, name, newCfg()); err != nil {
			t.Errorf("%s via --config: %v", name, err)
		}
	}
}

func TestCheckScalar(t *testing.T) {
	i, u, fl, s, b := reflect.TypeFor[int](), reflect.TypeFor[uint64](), reflect.TypeFor[float64](), reflect.TypeFor[string](), reflect.TypeFor[bool]()
	i32 := reflect.TypeFor[int32]()
	cases := []struct {
		s, tag string
		typ    reflect.Type
		bad    string // "" when valid
	}{
		{"10", "!!int", i, ""}, {"0x10", "!!int", i, ""}, {"1_000", "!!int", i, ""},
		{"2.5", "!!float", i, "not an integer"}, {"true", "!!bool", i, "not an integer"},
		{"3000000000", "!!int", i32, "overflows a 32-bit integer"},
		{"-4", "!!int", u, "negative"}, {"18446744073709551615", "!!int", u, ""},
		{"1e-3", "!!float", fl, ""}, {"10", "!!int", fl, ""}, {".inf", "!!float", fl, "not a finite"},
		{".NaN", "!!float", fl, "not a finite"}, {"x", "!!str", fl, "not a number"},
		{"0.01", "!!float", s, ""}, {"true", "!!bool", s, "not a word"}, {"yes", "!!str", s, ""},
		{"false", "!!bool", b, ""}, {"1", "!!int", b, "not true or false"},
		// Environment values carry no tag.
		{"7", "", i, ""}, {"7.0", "", i, "not an integer"}, {"-7", "", u, "negative"},
		{"NaN", "", fl, "not a finite"}, {"1e400", "", fl, "not a number"}, {"1", "", b, ""}, {"maybe", "", b, "not true"},
		{"99999999999999999999", "", i, "overflows"},
	}
	for _, c := range cases {
		got := checkScalar(c.s, c.tag, c.typ)
		if c.bad == "" && got != "" || c.bad != "" && !strings.Contains(got, c.bad) {
			t.Errorf("checkScalar(%q, %q, %v) = %q, want %q", c.s, c.tag, c.typ, got, c.bad)
		}
	}
}

func TestResultsDir(t *testing.T) {
	for _, c := range []struct {
		out   string
		quick bool
		want  string
	}{
		{"results", false, "results"},
		{"results", true, filepath.Join("results", "quick")},
		{"x/quick", true, "x/quick"},
		{"x/quick/", true, "x/quick/"},
		{"x/quickly", true, filepath.Join("x/quickly", "quick")},
	} {
		if got := resultsDir(c.out, c.quick); got != c.want {
			t.Errorf("resultsDir(%q, %v) = %q, want %q", c.out, c.quick, got, c.want)
		}
	}
}

// TestQuickDirsAgree: `reproduce all --quick --out X` writes where
// `check --quick X` and `check --quick X/quick` read.
func TestQuickDirsAgree(t *testing.T) {
	testutil.Slow(t)
	dir := t.TempDir()
	f, _, errOut := testFactory()
	f.Getenv = func(k string) string { return map[string]string{"FEDCON_TRIALS": "1"}[k] }
	if code := run(context.Background(), f, []string{"reproduce", "all", "--quick", "--only", "table4", "--out", dir, "--quiet"}); code != 0 {
		t.Fatalf("reproduce: exit %d: %s", code, errOut)
	}
	for _, d := range []string{dir, filepath.Join(dir, "quick")} {
		errOut.Reset()
		if code := run(context.Background(), f, []string{"check", "--quick", d}); code != 0 {
			t.Errorf("check --quick %s: exit %d: %s", d, code, errOut)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for s, want := range map[string]float64{"512": 512, "1K": 1024, "8G": 8 << 30, "1.5t": 1.5 * (1 << 40), "2GiB": 2 << 30, "3MB": 3 << 20} {
		if got, err := parseBytes(s); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %g, %v; want %g", s, got, err, want)
		}
	}
	for _, s := range []string{"", "G", "-1G", "NaN", "Inf", "lots"} {
		if _, err := parseBytes(s); err == nil {
			t.Errorf("parseBytes(%q): no error", s)
		}
	}
}

// TestCheckCost: the memory limit refuses whatever --yes says; the time
// limit yields to --yes; time is wall time over the workers.
func TestCheckCost(t *testing.T) {
	env := map[string]string{"FEDCON_MAX_MEMORY": "1G", "FEDCON_MAX_TIME": "1h"}
	f, _, _ := testFactory()
	f.Getenv = func(k string) string { return env[k] }
	for _, c := range []struct {
		cost    experiments.Cost
		workers int
		yes     bool
		refused string
	}{
		{experiments.Cost{Bytes: 1 << 29, Seconds: 100}, 1, false, ""},
		{experiments.Cost{Bytes: 2 << 30, Seconds: 100}, 1, true, "needs about 2.0 GiB of memory, 1.0 GiB allowed"},
		{experiments.Cost{Bytes: 1 << 20, Seconds: 7200}, 1, false, "would take about 2.0 h with 1 workers"},
		{experiments.Cost{Bytes: 1 << 20, Seconds: 7200}, 1, true, ""},
		{experiments.Cost{Bytes: 1 << 20, Seconds: 7200}, 2, false, ""},
	} {
		err := checkCost(f, &commonOptions{Yes: c.yes}, "x", c.cost, c.workers)
		if c.refused == "" && err != nil || c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused) || exitCode(err) != exitFailure) {
			t.Errorf("%+v: err %v, want %q", c, err, c.refused)
		}
	}
}

// FuzzCheckConfigYAML: whatever the strict check accepts, viper decodes
// into the typed config exactly (no unknown key, no type error) and with
// finite numbers only: the check is at least as strict as the decoder.
func FuzzCheckConfigYAML(f *testing.F) {
	for _, s := range []string{"trials: 2\n", "trials: 2.5\n", "seed: -4\n", "beta: true\n", "cells: [[2, 10, 1]]\n",
		"rho: .nan\n", "seed: 18446744073709551615\n", "q: 0.5\neps1: 1e-4\n", "rng: numpy\n", "{}", "a: [1, {b: 2}]\n",
		"inner_test: measured\n", "inner_test: 1\n", "rng: ''\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg := &proxal.QPConfig{}
		if checkConfigYAML("f.yaml", b, cfg) != nil {
			return
		}
		v := viper.New()
		v.SetConfigType("yaml")
		if err := v.ReadConfig(bytes.NewReader(b)); err != nil {
			return // a document viper cannot read as a map (e.g. empty)
		}
		if err := v.UnmarshalExact(cfg, viper.DecodeHook(experiments.DecodeHook())); err != nil { // loadConfig's decoder
			t.Fatalf("accepted %q, but decoding fails: %v", b, err)
		}
		if err := experiments.CheckFinite(cfg); err != nil {
			t.Fatalf("accepted %q, but %v", b, err)
		}
	})
}

// TestFaultHelperProcess is not a test: TestFault* run it as a child
// process that executes fedcon with the arguments after "--".
func TestFaultHelperProcess(t *testing.T) {
	if os.Getenv("FEDCON_FAULT_HELPER") != "1" {
		t.Skip("helper process of TestFault*")
	}
	for i, a := range os.Args {
		if a == "--" {
			os.Args = append([]string{"fedcon"}, os.Args[i+1:]...)
			break
		}
	}
	os.Exit(Main())
}

// TestFaultInterruptQP: SIGINT or SIGTERM stops `run qp` within 2 s with
// exit 130 and the one interrupt line, both while a dim-3000 cell is being
// built (about a minute of dense algebra) and between solver iterations,
// where the trials finished before the signal stay on disk. Process-level:
// run by make test-faults, skipped by go test -short.
func TestFaultInterruptQP(t *testing.T) {
	if testing.Short() {
		t.Skip("process-level fault test: make test-faults")
	}
	for _, c := range []struct {
		name string
		sig  os.Signal
		args []string
		kept bool // wait for a finished trial before the signal
	}{
		{"cell build SIGINT", os.Interrupt, []string{"--dim", "3000", "--trials", "2"}, false},
		{"cell build SIGTERM", syscall.SIGTERM, []string{"--dim", "3000", "--trials", "2"}, false},
		{"solver SIGINT", os.Interrupt, []string{"--dim", "300", "--clients", "2", "--trials", "200"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"-test.run=^TestFaultHelperProcess$", "--", "run", "qp", "--workers", "1", "--out", dir, "--quiet"}, c.args...)
			p := exec.Command(os.Args[0], args...)
			p.Env = append(os.Environ(), "FEDCON_FAULT_HELPER=1", "FEDCON_MAX_MEMORY=64G", "FEDCON_MAX_TIME=100h")
			var stderr bytes.Buffer
			p.Stderr = &stderr
			if err := p.Start(); err != nil {
				t.Fatal(err)
			}
			defer p.Process.Kill()
			trials := func() int {
				m, _ := filepath.Glob(filepath.Join(dir, "*", "trials", "*.json"))
				return len(m)
			}
			time.Sleep(time.Second)
			for deadline := time.Now().Add(2 * time.Minute); c.kept && trials() == 0; time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("no trial finished in 2 min; stderr %s", stderr.String())
				}
			}
			sent := time.Now()
			if err := p.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- p.Wait() }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("still running 5 s after %v; stderr %s", c.sig, stderr.String())
			}
			if dt := time.Since(sent); dt > 2*time.Second {
				t.Errorf("exited %.1f s after %v, want within 2 s", dt.Seconds(), c.sig)
			}
			if code := p.ProcessState.ExitCode(); code != exitInterrupted {
				t.Errorf("exit %d, want %d; stderr %s", code, exitInterrupted, stderr.String())
			}
			if msg := stderr.String(); !strings.Contains(msg, "fedcon: interrupted; finished trials are kept on disk") || strings.Contains(msg, "goroutine ") {
				t.Errorf("stderr %q", msg)
			}
			if c.kept && trials() == 0 {
				t.Errorf("the finished trials were not kept")
			}
		})
	}
}

// TestDRFLYes: a DRFL figure over FEDCON_MAX_TIME is refused before any
// work, naming its estimate, and runs with --yes.
func TestDRFLYes(t *testing.T) {
	testutil.Slow(t)
	data := os.Getenv("FEDCON_DATA_DIR")
	for _, c := range []struct {
		name string
		args []string
		data bool // needs the UCI files
		want int
		msg  string
	}{
		{"figure1 refused", []string{"reproduce", "drfl-figure1", "--quick"}, false, 1, "reproduce drfl-figure1 would take about 0 s with 1 workers, over the 1ms limit (FEDCON_MAX_TIME): rerun with --yes"},
		{"figure1 --yes", []string{"reproduce", "drfl-figure1", "--quick", "--yes"}, false, 0, "wrote"},
		{"noise figure refused", []string{"reproduce", "drfl-figure5", "--quick"}, true, 1, "reproduce drfl-figure5 would take about"},
		{"noise figure --yes", []string{"reproduce", "drfl-figure5", "--quick", "--yes"}, true, 0, "wrote"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.data && data == "" {
				t.Skip("FEDCON_DATA_DIR not set")
			}
			out := t.TempDir()
			f, _, errOut := testFactory()
			env := map[string]string{"FEDCON_MAX_TIME": "1ms", "FEDCON_DATA_DIR": data}
			f.Getenv = func(k string) string { return env[k] }
			got := run(context.Background(), f, append(c.args, "--out", out))
			msg := errOut.String()
			if got != c.want || !strings.Contains(msg, c.msg) {
				t.Fatalf("exit %d, want %d; stderr %q lacks %q", got, c.want, msg, c.msg)
			}
			entries, _ := os.ReadDir(out)
			if c.want != 0 && len(entries) > 0 {
				t.Errorf("a refused figure wrote %d entries into --out", len(entries))
			}
		})
	}
}

// TestRunDRFLYes: `run drfl` is one fit, estimated before any data is read.
func TestRunDRFLYes(t *testing.T) {
	data := os.Getenv("FEDCON_DATA_DIR")
	if data == "" {
		t.Skip("FEDCON_DATA_DIR not set")
	}
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		want int
		msg  string
	}{
		{"refused by time", map[string]string{"FEDCON_MAX_TIME": "1ms"}, nil, 1, "run drfl would take about"},
		{"refused by memory", map[string]string{"FEDCON_MAX_MEMORY": "1K"}, nil, 1, "run drfl needs about"},
		{"--yes", map[string]string{"FEDCON_MAX_TIME": "1ms"}, []string{"--yes"}, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, _, errOut := testFactory()
			c.env["FEDCON_DATA_DIR"] = data
			f.Getenv = func(k string) string { return c.env[k] }
			got := run(context.Background(), f, append([]string{"run", "drfl", "--quiet"}, c.args...))
			if msg := errOut.String(); got != c.want || !strings.Contains(msg, c.msg) {
				t.Fatalf("exit %d, want %d; stderr %q lacks %q", got, c.want, msg, c.msg)
			}
		})
	}
}
