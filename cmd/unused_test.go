package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fedcon/fedcon/experiments/conic"
	"github.com/fedcon/fedcon/experiments/drfl"
	"github.com/fedcon/fedcon/experiments/proxal"
	"github.com/fedcon/fedcon/experiments/ssca"
)

// TestUnusedFlagsRefused: each command accepts only the flags and keys its
// experiment reads. A configuration flag, --config key or FEDCON_*
// variable that the run ignores is exit 2 with one line naming the flag
// (or key) and the command; what the run reads still passes (--dry-run, or
// serve's check before it listens).
func TestUnusedFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	trials := writeConfig(t, dir, "trials: 3\n")
	const data = "../../shared/datasets"
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		code int
		msg  string
	}{
		{"serve qp: an NP key", []string{"serve", "--problem", "qp", "--r", "0.3"}, nil, 2, "--r: fedcon serve --problem qp does not use it"},
		{"serve qp: a DRFL key", []string{"serve", "--problem", "qp", "--kappa", "5"}, nil, 2, "--kappa: fedcon serve --problem qp does not use it"},
		{"serve qp: the issue's line", []string{"serve", "--problem", "qp", "--r", "0.3", "--kappa", "5"}, nil, 2, "fedcon serve --problem qp does not use it"},
		{"serve qp: --dataset", []string{"serve", "--problem", "qp", "--dataset", "heart"}, nil, 2, "--dataset: fedcon serve --problem qp does not use it (only np, fair, drfl)"},
		{"serve np: --cell", []string{"serve", "--problem", "np", "--cell", "1,2,3"}, nil, 2, "--cell: fedcon serve --problem np does not use it (only qp)"},
		{"serve np: hidden --trials", []string{"serve", "--problem", "np", "--trials", "2"}, nil, 2, "--trials: fedcon serve --problem np does not use it"},
		{"serve fair: --admm-start", []string{"serve", "--problem", "fair", "--admm-start", "w0"}, nil, 2, "--admm-start: fedcon serve --problem fair does not use it"},
		{"serve drfl: an AL key", []string{"serve", "--problem", "drfl", "--beta", "3"}, nil, 2, "--beta: fedcon serve --problem drfl does not use it"},
		{"serve np: trials in --config", []string{"serve", "--problem", "np", "--config", trials}, nil, 2, "key trials: fedcon serve --problem np does not use it"},
		// The QP's own keys pass the rule: serve stops later, at its certificates.
		{"serve qp: the QP's keys pass the rule", []string{"serve", "--problem", "qp", "--beta", "3", "--cell", "2,10,1", "--certs", filepath.Join(dir, "none")}, nil, 2, "ca.pem"},
		{"figure1 --trials", []string{"reproduce", "figure1", "--trials", "3"}, nil, 2, "--trials: fedcon reproduce figure1 does not use it (a figure runs one trial per data set and n)"},
		{"figure1: trials in --config", []string{"reproduce", "figure1", "--config", trials}, nil, 2, "--config " + trials + ": key trials: fedcon reproduce figure1 does not use it"},
		{"figure1: FEDCON_TRIALS", []string{"reproduce", "figure1"}, map[string]string{"FEDCON_TRIALS": "3"}, 2, "environment FEDCON_TRIALS=3 (key trials): fedcon reproduce figure1 does not use it"},
		{"figure1: FEDCON_CLIENTS", []string{"reproduce", "figure1"}, map[string]string{"FEDCON_CLIENTS": "3"}, 2, "(key clients): fedcon reproduce figure1 does not use it (--clients sets n)"},
		{"figure2 --trials", []string{"reproduce", "figure2", "--trials", "2"}, nil, 2, "--trials: fedcon reproduce figure2 does not use it"},
		{"conic-figure1 --trials", []string{"reproduce", "conic-figure1", "--trials", "2"}, nil, 2, "--trials: fedcon reproduce conic-figure1 does not use it"},
		{"conic-figure2: trials in --config", []string{"reproduce", "conic-figure2", "--config", trials}, nil, 2, "key trials: fedcon reproduce conic-figure2 does not use it"},
		{"run ssca alg1: --local-steps", []string{"run", "ssca", "--algo", "alg1", "--local-steps", "3", "--dry-run"}, nil, 2, "--local-steps: fedcon run ssca --algo alg1 does not use it (FedAvg's local SGD steps: --algo fedavg)"},
		{"run ssca alg2: --labels", []string{"run", "ssca", "--algo", "alg2", "--labels", "client0", "--dry-run"}, nil, 2, "--labels: fedcon run ssca --algo alg2 does not use it (feature-based labels: Algorithms 3, 4 and feature SGD)"},
		{"run ssca fedavg: FEDCON_LABELS", []string{"run", "ssca", "--algo", "fedavg", "--dry-run"}, map[string]string{"FEDCON_LABELS": "client0"}, 2, "(key labels): fedcon run ssca --algo fedavg does not use it"},
		// The refusals below carry --dry-run: a broken rule then exits 0 at
		// once instead of running a figure.
		{"run ssca alg1: --c", []string{"run", "ssca", "--algo", "alg1", "--c", "100", "--dry-run"}, nil, 2, "--c: fedcon run ssca --algo alg1 does not use it (slack penalty: Algorithms 2 and 4)"},
		{"run ssca alg1: --U", []string{"run", "ssca", "--algo", "alg1", "--U", "0.5", "--dry-run"}, nil, 2, "--U: fedcon run ssca --algo alg1 does not use it (U of (37)"},
		{"run ssca alg2: --lambda", []string{"run", "ssca", "--algo", "alg2", "--lambda", "0.01", "--dry-run"}, nil, 2, "--lambda: fedcon run ssca --algo alg2 does not use it (λ of (27)"},
		{"run ssca fedavg: --tau", []string{"run", "ssca", "--algo", "fedavg", "--tau", "0.2", "--dry-run"}, nil, 2, "--tau: fedcon run ssca --algo fedavg does not use it"},
		{"run ssca alg3: --sgd-lr", []string{"run", "ssca", "--algo", "alg3", "--sgd-lr", "rates.yaml", "--dry-run"}, nil, 2, "--sgd-lr: fedcon run ssca --algo alg3 does not use it (learning rates of the SGD baselines"},
		{"run ssca alg1: FEDCON_C", []string{"run", "ssca", "--algo", "alg1", "--dry-run"}, map[string]string{"FEDCON_C": "100"}, 2, "environment FEDCON_C=100 (key c): fedcon run ssca --algo alg1 does not use it"},
		{"ssca-figure4 --lambda", []string{"reproduce", "ssca-figure4", "--lambda", "0.01", "--dry-run"}, nil, 2, "--lambda: fedcon reproduce ssca-figure4 does not use it (λ of (27): Algorithms 1, 3 and the SGD baselines; Figure 4 sweeps lambda_sweep)"},
		{"ssca-figure4 --U", []string{"reproduce", "ssca-figure4", "--U", "0.5", "--dry-run"}, nil, 2, "--U: fedcon reproduce ssca-figure4 does not use it (U of (37): Algorithms 2 and 4; Figure 4 sweeps u_sweep)"},
		{"ssca-figure4 --sgd-lr", []string{"reproduce", "ssca-figure4", "--sgd-lr", "rates.yaml", "--dry-run"}, nil, 2, "--sgd-lr: fedcon reproduce ssca-figure4 does not use it"},
		{"ssca-figure2 --labels", []string{"reproduce", "ssca-figure2", "--labels", "client0", "--dry-run"}, nil, 2, "--labels: fedcon reproduce ssca-figure2 does not use it (feature-based labels"},
		{"ssca-figure4 reads --c", []string{"reproduce", "ssca-figure4", "--c", "100", "--runs", "1", "--dry-run"}, nil, 0, ""},
		{"ssca-all reads --lambda and --labels", []string{"reproduce", "ssca-all", "--lambda", "0.01", "--labels", "client0", "--runs", "1", "--dry-run"}, nil, 0, ""},
		// A figure's --config and environment may hold the whole preset: only flags are refused.
		{"ssca-figure4: FEDCON_LAMBDA", []string{"reproduce", "ssca-figure4", "--runs", "1", "--dry-run"}, map[string]string{"FEDCON_LAMBDA": "0.1"}, 0, ""},
		{"drfl-figure3 --folds without --cv", []string{"reproduce", "drfl-figure3", "--folds", "3", "--dry-run"}, nil, 2, "--folds: fedcon reproduce drfl-figure3 does not use it (cross-validation folds: only with --cv)"},
		{"drfl-figure2 --cv --rho", []string{"reproduce", "drfl-figure2", "--cv", "--rho", "0.01", "--dry-run"}, nil, 2, "--rho: fedcon reproduce drfl-figure2 does not use it (--cv selects it from cv_grid)"},
		{"drfl-figure5 --cv --theta", []string{"reproduce", "drfl-figure5", "--cv", "--theta", "0.5", "--dry-run"}, nil, 2, "--theta: fedcon reproduce drfl-figure5 does not use it"},
		{"drfl-figure3 --cv reads --folds", []string{"reproduce", "drfl-figure3", "--cv", "--folds", "3", "--dry-run", "--data-dir", data}, nil, 0, ""},
		{"drfl-figure3 reads --rho", []string{"reproduce", "drfl-figure3", "--rho", "0.01", "--kappa", "0.3", "--dry-run", "--data-dir", data}, nil, 0, ""},
		{"run ssca alg3 reads --labels", []string{"run", "ssca", "--algo", "alg3", "--labels", "client0", "--runs", "1", "--rounds", "2", "--dry-run"}, nil, 0, ""},
		{"figure1 reads its own flags", []string{"reproduce", "figure1", "--clients", "3", "--beta", "20", "--dry-run", "--data-dir", data}, nil, 0, ""},
		{"table1 reads --trials", []string{"reproduce", "table1", "--trials", "3", "--dry-run", "--data-dir", data}, nil, 0, ""},
		{"reproduce all shares --trials with its figures", []string{"reproduce", "all", "--only", "figure1,table4", "--trials", "3", "--dry-run", "--data-dir", data}, nil, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(strings.Join(tc.args, " "), data) {
				if _, err := os.Stat(data); err != nil {
					t.Skip("needs ../shared/datasets")
				}
			}
			f, _, errOut := testFactory()
			f.Getenv = func(k string) string { return tc.env[k] }
			args := tc.args
			if args[0] != "serve" {
				args = append(args, "--out", filepath.Join(dir, "out"))
			}
			code := run(context.Background(), f, args)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, errOut)
			}
			if tc.msg != "" && !strings.Contains(errOut.String(), tc.msg) {
				t.Errorf("stderr %q lacks %q", errOut, tc.msg)
			}
			if tc.code == 2 && strings.Count(strings.TrimSpace(errOut.String()), "\n") > 1 {
				t.Errorf("not one line: %q", errOut)
			}
		})
	}
}

// TestConfigFlagsMapped: every configuration flag (keyFlags) of every
// command sets, by the naming rule, a key of at least one configuration
// type, so that no configuration flag exists that no run could read.
func TestConfigFlagsMapped(t *testing.T) {
	cfgs := []any{&proxal.NPConfig{}, &proxal.FairConfig{}, &proxal.QPConfig{}, &conic.QPConfig{}, &drfl.Config{}, &ssca.Config{}}
	f, _, _ := testFactory()
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			key := configKey(fl)
			if key == "" {
				return
			}
			n++
			for _, cfg := range cfgs {
				if keyType(cfg, key) != nil {
					return
				}
			}
			t.Errorf("%s --%s: sets key %s of no configuration", c.CommandPath(), fl.Name, key)
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newCmdRoot(f))
	if n == 0 {
		t.Fatal("no configuration flags found")
	}
}
