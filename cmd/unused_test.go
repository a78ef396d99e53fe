package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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
		{"run ssca alg1: --local-steps", []string{"run", "ssca", "--algo", "alg1", "--local-steps", "3"}, nil, 2, "--local-steps: fedcon run ssca --algo alg1 does not use it (FedAvg's local SGD steps: --algo fedavg)"},
		{"run ssca alg2: --labels", []string{"run", "ssca", "--algo", "alg2", "--labels", "client0"}, nil, 2, "--labels: fedcon run ssca --algo alg2 does not use it (feature-based labels: --algo alg3, alg4 or fsgd)"},
		{"run ssca fedavg: FEDCON_LABELS", []string{"run", "ssca", "--algo", "fedavg"}, map[string]string{"FEDCON_LABELS": "client0"}, 2, "(key labels): fedcon run ssca --algo fedavg does not use it"},
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
// command has a key in at least one of the command's flag maps, so that no
// configuration flag exists that no run could read.
func TestConfigFlagsMapped(t *testing.T) {
	maps := []map[string]string{alFlagKeys, qpFlagKeys, conicQPFlagKeys, conicClassFlagKeys, drflRunFlagKeys,
		drflFigure1FlagKeys, drflNoiseFlagKeys, sscaFlagKeys, serveFlagKeys, serveDRFLFlagKeys}
	f, _, _ := testFactory()
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			if fl.Annotations[keyFlagAnnotation] == nil {
				return
			}
			n++
			for _, m := range maps {
				if _, ok := m[fl.Name]; ok {
					return
				}
			}
			t.Errorf("%s --%s: a configuration flag in no flag map", c.CommandPath(), fl.Name)
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
