package cmd

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/fedcon/fedcon/configs"
	"github.com/fedcon/fedcon/experiments/drfl"
)

// TestDRFLPresetDefaults: without --config, env or flags each DRFL command
// reads the preset exactly (experiments.DefaultDRFLConfig, whose values
// TestDRFLPreset pins to the paper's and the old code's), and the flags
// show the preset's values as their defaults.
func TestDRFLPresetDefaults(t *testing.T) {
	def := drfl.DefaultConfig()
	f, _, _ := testFactory()
	var run *DRFLOptions
	var noise *DRFLNoiseOptions
	var fig1 *DRFLFigure1Options
	cmds := []*cobra.Command{
		newCmdRunDRFL(f, func(o *DRFLOptions) error { run = o; return nil }),
		newCmdReproduceDRFLNoise(f, "drfl-figure3", func(o *DRFLNoiseOptions) error { noise = o; return nil }),
		newCmdReproduceDRFLFigure1(f, func(o *DRFLFigure1Options) error { fig1 = o; return nil }),
	}
	for _, c := range cmds {
		c.SetArgs(nil)
		if err := c.Execute(); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(run.Cfg, def) || !reflect.DeepEqual(noise.Cfg, def) || fig1.Config != def.Figure1Config(false) {
		t.Fatalf("loaded %+v\npreset %+v", run.Cfg, def)
	}
	// Each flag's default is its key's preset value.
	cases := []struct {
		cmd         *cobra.Command
		wantDefault map[string]string
	}{
		{cmds[0], map[string]string{"rho": "0.01", "kappa": "0.5", "theta": "0.01", "p": "1", "qhat": "size",
			"support": "box", "c": "1", "tol": "0.0001", "max-rounds": "10000", "epsilon": "1.35", "seed": "1"}},
		{cmds[1], map[string]string{"rho": "0.01", "kappa": "0.5", "theta": "0.01", "p": "1", "seed": "1",
			"repetitions": "10", "folds": "5"}},
		{cmds[2], map[string]string{"seed": "1", "runs": "100", "samples": "1000", "draws": "10000"}},
	}
	for _, tc := range cases {
		if err := presetDefaults(tc.cmd); err != nil { // as the root applies them
			t.Fatal(err)
		}
		keys := 0
		tc.cmd.Flags().VisitAll(func(fl *pflag.Flag) {
			if configKey(fl) != "" {
				keys++
			}
		})
		if keys != len(tc.wantDefault) {
			t.Errorf("%s: %d configuration flags, %d checked", tc.cmd.Name(), keys, len(tc.wantDefault))
		}
		for name, want := range tc.wantDefault {
			fl := tc.cmd.Flags().Lookup(name)
			if fl == nil || fl.DefValue != want {
				t.Errorf("%s --%s: default %v, want %s", tc.cmd.Name(), name, fl, want)
			}
		}
	}
}

// TestDRFLConfigFile: preset < --config file < FEDCON_* < flags set on the
// command line, as seen by each command's runF (no fits).
func TestDRFLConfigFile(t *testing.T) {
	file := writeConfig(t, t.TempDir(), `
rho: 0.05
kappa: 0.3
tol: 1e-5
seed: 7
cv_grid: {rho: [0.1, 0.2], theta: [0.5]}
figure5:
  - {dataset: heart, imbalanced: true, fixed_sd: 0.2, fixed_mean: 0.5, ratio: 0.5}
figure1: {draws: 500, runs: 20}
`)
	env := map[string]string{"FEDCON_TOL": "2e-5", "FEDCON_THETA": "0.2", "FEDCON_CV_GRID_KAPPA": "0.3,0.6", "FEDCON_FIGURE1_SAMPLES": "300"}
	cases := []struct {
		name  string
		build func(f *Factory, check func(any)) *cobra.Command
		args  []string
		check func(t *testing.T, got any)
	}{
		{"run drfl: file, env", func(f *Factory, check func(any)) *cobra.Command {
			return newCmdRunDRFL(f, func(o *DRFLOptions) error { check(o); return nil })
		}, []string{"--config", file}, func(t *testing.T, got any) {
			o := got.(*DRFLOptions)
			p, err := o.Cfg.Params(o.Model, o.Loss)
			if err != nil || p.Rho != 0.05 || p.Kappa != 0.3 || p.Theta != 0.2 || o.Cfg.Tol != 2e-5 || o.Cfg.Seed != 7 || o.Cfg.C != 1 {
				t.Errorf("params %+v (%v), config %+v", p, err, o.Cfg)
			}
		}},
		{"run drfl: flags beat file and env", func(f *Factory, check func(any)) *cobra.Command {
			return newCmdRunDRFL(f, func(o *DRFLOptions) error { check(o); return nil })
		}, []string{"--config", file, "--rho", "0.1,0.2,0.3", "--tol", "1e-3", "--theta", "0"}, func(t *testing.T, got any) {
			o := got.(*DRFLOptions)
			p, err := o.Cfg.Params(o.Model, o.Loss)
			if err != nil || !reflect.DeepEqual(p.Rhos, []float64{0.1, 0.2, 0.3}) || o.Cfg.Tol != 1e-3 || p.Theta != 0 || p.Kappa != 0.3 {
				t.Errorf("params %+v (%v), config %+v", p, err, o.Cfg)
			}
		}},
		{"figure5: rho, grid and protocols from the file", func(f *Factory, check func(any)) *cobra.Command {
			return newCmdReproduceDRFLNoise(f, "drfl-figure5", func(o *DRFLNoiseOptions) error { check(o); return nil })
		}, []string{"--config", file, "--cv"}, func(t *testing.T, got any) {
			o := got.(*DRFLNoiseOptions)
			n, err := drflNoiseConfig(o, o.Cfg.FigureRows(o.Name)[0], false)
			if err != nil || n.Params[0].Rho != 0.05 || n.Params[0].Kappa != 0.3 || n.Params[0].Theta != 0.2 || n.Seed != 7 || n.Tol != 2e-5 {
				t.Errorf("run %+v: %v", n, err)
			}
			// A file's list replaces the preset's, and a nested key's
			// variable (FEDCON_CV_GRID_KAPPA) the file's.
			if g := n.CV; g == nil || !reflect.DeepEqual(g.Rho, []float64{0.1, 0.2}) || !reflect.DeepEqual(g.Theta, []float64{0.5}) || !reflect.DeepEqual(g.Kappa, []float64{0.3, 0.6}) {
				t.Errorf("grid %+v", g)
			}
			if n.Figure.FixedSD != 0.2 || n.Figure.Name != "drfl-figure5" || n.Data.Imbalance == nil || len(n.Levels) != 11 || n.Repetitions != 10 {
				t.Errorf("figure %+v, data %+v, %d levels", n.Figure, n.Data, len(n.Levels))
			}
		}},
		{"figure1: file, --quick, flag", func(f *Factory, check func(any)) *cobra.Command {
			return newCmdReproduceDRFLFigure1(f, func(o *DRFLFigure1Options) error { check(o); return nil })
		}, []string{"--config", file, "--quick", "--runs", "30"}, func(t *testing.T, got any) {
			c := got.(*DRFLFigure1Options).Config
			if c.Draws != 2000 || c.RhoStep != 1e-4 || c.Runs != 30 || c.Samples != 300 {
				t.Errorf("figure 1 %+v", c)
			}
		}},
		{"figure1: an explicit --draws beats --quick", func(f *Factory, check func(any)) *cobra.Command {
			return newCmdReproduceDRFLFigure1(f, func(o *DRFLFigure1Options) error { check(o); return nil })
		}, []string{"--config", file, "--quick", "--draws", "300"}, func(t *testing.T, got any) {
			if c := got.(*DRFLFigure1Options).Config; c.Draws != 300 || c.RhoStep != 1e-4 || c.Runs != 20 {
				t.Errorf("figure 1 %+v", c)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, _, _ := testFactory()
			f.Getenv = func(k string) string { return env[k] }
			var got any
			c := tc.build(f, func(o any) { got = o })
			c.SetArgs(tc.args)
			if err := c.Execute(); err != nil {
				t.Fatal(err)
			}
			tc.check(t, got)
		})
	}
}

// TestDRFLConfigHash: a --config file that changes a value the results
// depend on changes the hash the figure's trials are stored under.
func TestDRFLConfigHash(t *testing.T) {
	hash := func(t *testing.T, yaml string, regression bool) string {
		f, _, _ := testFactory()
		var h string
		c := newCmdReproduceDRFLNoise(f, "drfl-figure2", func(o *DRFLNoiseOptions) error {
			n, err := drflNoiseConfig(o, o.Cfg.FigureRows(o.Name)[0], regression)
			h = n.TrialHash()
			return err
		})
		c.SetArgs([]string{"--config", writeConfig(t, t.TempDir(), yaml), "--cv"})
		if err := c.Execute(); err != nil {
			t.Fatal(err)
		}
		return h
	}
	base := hash(t, "{}", false)
	for _, yaml := range []string{"rho: 0.02", "kappa: 0.6", "theta: 0.1", "p: inf", "qhat: uniform", "support: free",
		"c: 2", "tol: 1e-5", "max_rounds: 50", "seed: 2", "train_share: 0.7", "train_noise: {heart: {sd: 1}}",
		"noise_step: 0.5", "noise_max: 1", "folds: 3", "cv_grid: {kappa: [0.5]}",
		"figure2: [{dataset: heart, fixed_sd: 1, fixed_mean: 0, ratio: 1}]"} {
		if hash(t, yaml, false) == base {
			t.Errorf("%s: same trial hash as the preset", yaml)
		}
	}
	// Values a run does not read leave it: repetitions (a rerun with more
	// reuses the stored ones), Figure 1, and ε for the SVM; ε changes the
	// Huber rows.
	for _, yaml := range []string{"repetitions: 3", "figure1: {draws: 10}", "epsilon: 2"} {
		if hash(t, yaml, false) != base {
			t.Errorf("%s: changed the trial hash", yaml)
		}
	}
	if hash(t, "epsilon: 2", true) == hash(t, "{}", true) {
		t.Error("epsilon: same Huber trial hash")
	}
}

// TestDRFLConfigBadInput: a bad --config (unknown key, bad value) exits 2
// with one line before any work, for each DRFL command.
func TestDRFLConfigBadInput(t *testing.T) {
	out := t.TempDir()
	cases := []struct {
		cmd  string
		yaml string
		msg  []string
	}{
		{"run drfl", "kapa: 0.5\n", []string{`cfg.yaml:1: unknown key "kapa"`, "valid keys: c, clients, cv_grid,", "max_rounds"}},
		{"run drfl", "kappa: -1\n", []string{"kappa = -1"}},
		{"run drfl", "p: 3\n", []string{`cfg.yaml:1: p: "3": want 1, 2 or inf`}},
		{"run drfl", "qhat: 0.5,0.5\n", []string{"want 3 weights"}},
		{"run drfl", "clients: 2\n", []string{"imbalance", "want 2 ratios"}},
		{"run drfl", "train_noise: {heart: {sd: -1}}\n", []string{"train_noise.heart"}},
		{"run drfl", "max_rounds: 0\n", []string{"tol/max_rounds"}},
		{"run drfl", "tol: abc\n", []string{"cfg.yaml:1: tol: abc is not a number"}},
		{"reproduce drfl-figure5", "kappa: -1\n", []string{"kappa = -1"}},
		{"reproduce drfl-figure5", "p: 3\n", []string{`cfg.yaml:1: p: "3": want 1, 2 or inf`}},
		{"reproduce drfl-figure5", "figures: 5\n", []string{`unknown key "figures"`, "valid keys:"}},
		{"reproduce drfl-figure5", "rho: 0.1,0.2,0.3\n", []string{"one radius for every client"}},
		{"reproduce drfl-figure5", "figure5: [{dataset: heart, fixed_sd: -1}]\n", []string{"figure5"}},
		{"reproduce drfl-figure5", "figure5: [{dataset: heart, fixed_sd: 1, sd: 2}]\n", []string{`unknown key "figure5.sd" (valid keys: dataset, fixed_mean, fixed_sd, imbalanced, ratio)`}},
		{"reproduce drfl-figure5", "repetitions: 0\n", []string{"repetitions = 0"}},
		{"reproduce drfl-figure5", "folds: 0\n", []string{"folds = 0"}}, // also without --cv
		{"reproduce drfl-figure2", "cv_grid: {kappa: [0]}\n", []string{"cv_grid.kappa"}},
		{"reproduce drfl-figure1", "figure1: {runs: 0}\n", []string{"runs = 0"}},
		{"reproduce drfl-figure1", "figure1: {draw: 5}\n", []string{`unknown key "figure1.draw"`}},
	}
	for _, tc := range cases {
		t.Run(tc.cmd+" "+strings.TrimSpace(tc.yaml), func(t *testing.T) {
			f, _, errOut := testFactory()
			// No data: every case must fail before loading any.
			args := append(strings.Fields(tc.cmd), "--config", writeConfig(t, t.TempDir(), tc.yaml), "--data-dir", filepath.Join(out, "none"))
			if strings.HasPrefix(tc.cmd, "reproduce") {
				args = append(args, "--out", out)
			}
			if strings.HasSuffix(tc.cmd, "figure2") {
				args = append(args, "--cv")
			}
			if got := run(context.Background(), f, args); got != 2 {
				t.Fatalf("exit %d, want 2; stderr %s", got, errOut)
			}
			msg := strings.TrimSpace(errOut.String())
			for _, m := range tc.msg {
				if !strings.Contains(msg, m) {
					t.Errorf("stderr %q, want %q", msg, m)
				}
			}
			if strings.Count(msg, "\n") > 1 {
				t.Errorf("stderr %q: more than one line", msg)
			}
		})
	}
	// A bad FEDCON_* value is a config error too.
	f, _, errOut := testFactory()
	f.Getenv = func(k string) string { return map[string]string{"FEDCON_KAPPA": "-2"}[k] }
	if got := run(context.Background(), f, []string{"run", "drfl", "--data-dir", filepath.Join(out, "none")}); got != 2 || !strings.Contains(errOut.String(), "kappa = -2") {
		t.Errorf("FEDCON_KAPPA=-2: exit %d, stderr %s", got, errOut)
	}
}

// TestEnvNames: every key of every preset has its own environment
// variable, a name a shell can export; a list of maps is refused with a
// one-line pointer to --config, and list items may carry spaces.
func TestEnvNames(t *testing.T) {
	valid := regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)
	for _, name := range configs.Presets() {
		b, err := configs.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		v := viper.New()
		v.SetConfigType("yaml")
		if err := v.ReadConfig(bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		seen := map[string]string{}
		for _, k := range v.AllKeys() {
			e := envName(k)
			if !valid.MatchString(e) {
				t.Errorf("%s: key %s: variable %s cannot be exported", name, k, e)
			}
			if o, dup := seen[e]; dup {
				t.Errorf("%s: keys %s and %s share %s", name, o, k, e)
			}
			seen[e] = k
		}
	}
	run := func(env map[string]string) (*DRFLNoiseOptions, error) {
		f, _, _ := testFactory()
		f.Getenv = func(k string) string { return env[k] }
		var got *DRFLNoiseOptions
		c := newCmdReproduceDRFLNoise(f, "drfl-figure5", func(o *DRFLNoiseOptions) error { got = o; return nil })
		c.SetArgs([]string{"--cv"})
		err := c.Execute()
		return got, err
	}
	o, err := run(map[string]string{"FEDCON_CV_GRID_THETA": "0.1, 0.2", "FEDCON_TRAIN_NOISE_BREAST_CANCER_WISC_SD": "0.7"})
	if err != nil || !reflect.DeepEqual(o.Cfg.Grid.Theta, []float64{0.1, 0.2}) || o.Cfg.Data("breast-cancer-wisc", false).NoiseSD != 0.7 {
		t.Errorf("%v: grid %+v", err, o)
	}
	if _, err := run(map[string]string{"FEDCON_FIGURE5": "x"}); err == nil || !strings.Contains(err.Error(), "--config") {
		t.Errorf("list of maps from the environment: %v", err)
	}
}
