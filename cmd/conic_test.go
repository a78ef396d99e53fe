package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments/conic"
	"github.com/fedcon/fedcon/experiments/proxal"
)

// TestConicExitCodes: bad values of the conic commands are one-line usage
// errors (exit 2), found before any data is read.
func TestConicExitCodes(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		msg  string
	}{
		{"ball ratio", []string{"reproduce", "conic-table1", "--ball-rows", "2", "--ball-ratio", "2", "--out", dir}, "ball_ratio = 2"},
		{"ball parties", []string{"reproduce", "conic-table1", "--ball-rows", "2", "--ball-parties", "some", "--out", dir}, `--ball-parties" flag: "some": want server, clients or all`},
		{"w0 qp", []string{"reproduce", "conic-table1", "--w0", "half", "--out", dir}, `--w0" flag: "half": want sphere, ones or zeros`},
		{"w0 np", []string{"reproduce", "conic-table2", "--w0", "half", "--out", dir}, `--w0" flag: "half": want sphere, ones or zeros`},
		{"w0 fair", []string{"reproduce", "conic-table3", "--w0", "half", "--out", dir}, `--w0" flag: "half": want sphere, ones or zeros`},
		{"negative beta", []string{"reproduce", "conic-table3", "--beta", "-1", "--out", dir}, "beta = -1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, _, errOut := testFactory()
			if got := run(context.Background(), f, c.args); got != 2 {
				t.Fatalf("exit %d, want 2; stderr: %s", got, errOut)
			}
			if !strings.Contains(errOut.String(), c.msg) || strings.Count(strings.TrimSpace(errOut.String()), "\n") > 1 {
				t.Errorf("stderr %q: want one line with %q", errOut, c.msg)
			}
		})
	}
}

// TestConicPresets: each conic command loads its preset with the paper's
// settings, and flags override it.
func TestConicPresets(t *testing.T) {
	f, _, _ := testFactory()
	var qp conic.QPConfig
	c := newCmdReproduceConicTable1(f, func(o *ConicQPOptions) error {
		return loadConfig(f, &o.commonOptions, "conic-table1", &qp)
	})
	c.SetArgs([]string{"--ball-rows", "3"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	// Section 5.1: w0 = ones, s̄ = 0.01, β = 1, ρ_i = 1, 9 cells, 10 instances.
	if qp.W0 != "ones" || qp.SBar != 0.01 || qp.Beta != 1 || qp.Rho != 1 || len(qp.Cells) != 9 || qp.Trials != 10 || qp.BallRows != 3 {
		t.Fatalf("conic-table1 config %+v", qp)
	}
	var np proxal.NPConfig
	c = newCmdReproduceConicTable2(f, func(o *ConicClassOptions) error {
		return loadConfig(f, &o.commonOptions, "conic-table2", &np)
	})
	c.SetArgs(nil)
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	// Section 5.2: w0 = ones, s̄ = 0.001, β = 300, ρ_i = 0.01, r = 0.2.
	if np.W0 != "ones" || np.SBar != 0.001 || np.Beta != 300 || np.Rho != 0.01 || np.R != 0.2 {
		t.Fatalf("conic-table2 config %+v", np)
	}
	var fair proxal.FairConfig
	c = newCmdReproduceConicTable3(f, func(o *ConicClassOptions) error {
		return loadConfig(f, &o.commonOptions, "conic-table3", &fair)
	})
	c.SetArgs([]string{"--w0", "ones"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	// Section 5.3: r = 0.01, s̄ = 0.001, β = 10, ρ_i = 1e8 (w0 = 0 overridden here).
	if fair.W0 != "ones" || fair.R != 0.01 || fair.SBar != 0.001 || fair.Beta != 10 || fair.Rho != 1e8 {
		t.Fatalf("conic-table3 config %+v", fair)
	}
}

// TestConicTable1EndToEnd runs one tiny cell with a norm ball through the
// command and checks the table and the trial files.
func TestConicTable1EndToEnd(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "small.yaml")
	if err := os.WriteFile(cfg, []byte("cells: [[16, 2, 1]]\ntrials: 2\nbeta: 10\nrho: 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, out, errOut := testFactory()
	code := run(context.Background(), f, []string{"reproduce", "conic-table1", "--config", cfg, "--ball-rows", "2", "--ball-parties", "server", "--out", dir})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out.String(), "norm-ball") || strings.Contains(out.String(), "NaN") {
		t.Fatalf("table:\n%s", out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "conic-table1", "trials", "*.json"))
	if len(files) != 2 {
		t.Fatalf("trial files %v", files)
	}
	for _, ext := range []string{"json", "csv", "md"} {
		if _, err := os.Stat(filepath.Join(dir, "conic-table1", "conic-table1."+ext)); err != nil {
			t.Error(err)
		}
	}
}

// TestCheckConicCommand: `fedcon check` gates a conic-table1 result: exit 0
// on a real run of the paper's (100, 1, 1) cell, 1 once a run's status is
// doctored.
func TestCheckConicCommand(t *testing.T) {
	dir := t.TempDir()
	f, _, errOut := testFactory()
	cfg := writeConfig(t, dir, "cells: [[100, 1, 1]]\ntrials: 2\n")
	if code := run(context.Background(), f, []string{"reproduce", "conic-table1", "--config", cfg, "--out", dir, "--quiet"}); code != 0 {
		t.Fatalf("reproduce: exit %d (%s)", code, errOut)
	}
	if code := run(context.Background(), f, []string{"check", dir}); code != 0 {
		t.Fatalf("check: exit %d (%s)", code, errOut)
	}
	path := filepath.Join(dir, "conic-table1", "conic-table1.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.Replace(b, []byte(`"status": "Converged"`), []byte(`"status": "InnerIterationLimit"`), 1)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := run(context.Background(), f, []string{"check", dir}); code != 1 {
		t.Fatalf("doctored: exit %d, want 1", code)
	}
}

// TestConicFigurePresets: the conic figures load the conic paper's settings
// (Sections 5.2-5.3) and their default client counts; --clients overrides
// them, and so does a --config file unless --clients is given.
func TestConicFigurePresets(t *testing.T) {
	dir := t.TempDir()
	cfgFile := writeConfig(t, dir, "clients: [7]\n")
	for _, tc := range []struct {
		name    string
		fair    bool
		args    []string
		clients []int
	}{
		{"figure1 default", false, nil, []int{5}},
		{"figure1 clients", false, []string{"--clients", "10"}, []int{10}},
		{"figure1 config", false, []string{"--config", cfgFile}, []int{7}},
		{"figure2 default", true, nil, []int{5, 10, 20}},
		{"figure2 clients", true, []string{"--clients", "5,20"}, []int{5, 20}},
		{"figure2 config and flag", true, []string{"--config", cfgFile, "--clients", "10"}, []int{10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _, _ := testFactory()
			var np proxal.NPConfig
			var fair proxal.FairConfig
			c := newCmdReproduceConicFigure1(f, func(o *ConicFigureOptions) error {
				err := loadConfig(f, &o.commonOptions, "conic-table2", &np)
				o.figureClients(&np.Clients)
				return err
			})
			if tc.fair {
				c = newCmdReproduceConicFigure2(f, func(o *ConicFigureOptions) error {
					err := loadConfig(f, &o.commonOptions, "conic-table3", &fair)
					o.figureClients(&fair.Clients)
					return err
				})
			}
			c.SetArgs(tc.args)
			if err := c.Execute(); err != nil {
				t.Fatal(err)
			}
			if tc.fair {
				// Section 5.3: w0 = 0, r = 0.01, s̄ = 0.001, β = 10, ρ_i = 1e8.
				if fair.W0 != "zeros" || fair.R != 0.01 || fair.SBar != 0.001 || fair.Beta != 10 || fair.Rho != 1e8 || !slices.Equal(fair.Clients, tc.clients) {
					t.Fatalf("conic-figure2 config %+v", fair)
				}
				return
			}
			// Section 5.2: w0 = ones, s̄ = 0.001, β = 300, ρ_i = 0.01, r = 0.2.
			if np.W0 != "ones" || np.SBar != 0.001 || np.Beta != 300 || np.Rho != 0.01 || np.R != 0.2 || !slices.Equal(np.Clients, tc.clients) {
				t.Fatalf("conic-figure1 config %+v", np)
			}
		})
	}
}
