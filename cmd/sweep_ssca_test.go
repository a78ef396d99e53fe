package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/ssca"
)

// TestSweepSSCA: a τ sweep over Figure 2's curves on a tiny data set
// writes the curves' and the claims' tables per point; --dry-run writes
// nothing; an unknown key names the preset's keys.
func TestSweepSSCA(t *testing.T) {
	tiny, dir := t.TempDir(), t.TempDir()
	writeTinyIDX(t, tiny, 60, 20, nil)
	file := filepath.Join(dir, "tau.yaml")
	os.WriteFile(file, []byte(`preset: ssca-figure2
base:
  dataset: mnist
  clients: 2
  hidden: 4
  rounds: 6
  runs: 2
  sample_batches: [1, 10]
  fedavg: [{batch: 1, local_steps: 1}]
sweep:
  tau: [0.1, 0.5]
`), 0o644)
	out := filepath.Join(dir, "out")
	f, _, errOut := testFactory()
	if code := run(context.Background(), f, []string{"sweep", file, "--data-dir", tiny, "--out", out, "--dry-run", "--workers", "2"}); code != 0 ||
		!strings.Contains(errOut.String(), "sweep-tau: 2 points, estimated ") || !strings.Contains(errOut.String(), "with 2 workers") {
		t.Fatalf("dry run: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("--dry-run wrote %s", out)
	}
	f, _, errOut = testFactory()
	if code := run(context.Background(), f, []string{"sweep", file, "--data-dir", tiny, "--out", out, "--quiet"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(out, "sweep-tau", "sweep-tau.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res ssca.SweepResult
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 2 || res.Points[0].Config.Tau != 0.1 || res.Points[1].Config.Tau != 0.5 || res.Points[0].TrialHash == res.Points[1].TrialHash {
		t.Fatalf("points %+v", res.Points)
	}
	for _, p := range res.Points {
		// Alg. 1 B=1, 10, FedAvg B=1, Alg. 2 B=1, 10; claims: larger B (Alg. 1, 2) and Alg. 1 vs FedAvg, 3 metrics each.
		if len(p.Curves) != 5 || len(p.Claims) != 9 || p.Curves[0].Runs != 2 {
			t.Errorf("tau %v: %d curves, %d claims: %+v", p.Config.Tau, len(p.Curves), len(p.Claims), p.Curves)
		}
	}
	// τ changes the SSCA curves, not FedAvg's.
	a, c := res.Points[0].Curves, res.Points[1].Curves
	if a[0].Cost == c[0].Cost || a[2].Label != "FedAvg B=1 E=1" || a[2].Cost != c[2].Cost {
		t.Errorf("tau's effect: %+v vs %+v", a, c)
	}
	csv, _ := os.ReadFile(filepath.Join(out, "sweep-tau", "sweep-tau.csv"))
	if !strings.HasPrefix(string(csv), "tau,method,runs,") || !strings.Contains(string(csv), "tau,claim,A,B,metric") {
		t.Errorf("csv:\n%s", csv)
	}
	if _, err := os.Stat(filepath.Join(out, "sweep-tau", "trials", "tau=0.5")); err != nil {
		t.Error(err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("preset: ssca-figure2\nsweep:\n  taux: [0.1]\n"), 0o644)
	f, _, errOut = testFactory()
	if code := run(context.Background(), f, []string{"sweep", bad, "--out", out}); code != 2 || !strings.Contains(errOut.String(), "unknown for preset ssca-figure2") ||
		!strings.Contains(errOut.String(), "tau") {
		t.Errorf("bad key: exit %d: %s", code, errOut)
	}
}

// TestSweepSSCATauFiles: the committed τ sweeps (Figures 2 and 3) read and
// every point validates with the τ swept.
func TestSweepSSCATauFiles(t *testing.T) {
	for file, preset := range map[string]string{"ssca-tau.yaml": "ssca-figure2", "ssca-tau-figure3.yaml": "ssca-figure3"} {
		sf, axes, err := readSweep(filepath.Join("..", "configs", "sweeps", file))
		if err != nil {
			t.Fatal(err)
		}
		if sf.Preset != preset || len(axes) != 1 || axes[0].Key != "tau" || len(axes[0].Values) != 4 {
			t.Fatalf("%s: %+v %+v", file, sf, axes)
		}
		f, _, _ := testFactory()
		c := newCmdSweep(f, func(*SweepOptions) error { return nil })
		c.SetArgs([]string{"x"})
		if err := c.Execute(); err != nil {
			t.Fatal(err)
		}
		o := &SweepOptions{commonOptions: commonOptions{flags: c.Flags()}}
		for _, p := range experiments.Product(axes) {
			cfg, err := sweepConfig(f, o, sf.Preset, sf.Base, axes, p)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if sc := cfg.(*ssca.Config); sc.Runs != 20 || sc.Tau != p[0] || len(sc.SGDRates) == 0 {
				t.Errorf("%s point %v: runs %d, tau %v, %d SGD rates", file, p, sc.Runs, sc.Tau, len(sc.SGDRates))
			}
		}
	}
}
