package drfl

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
)

// TestFigure1Recomputed: the gate's recomputation of DRFL Figure 1 passes
// an honest run of Appendix D's example (sizes cut down) and fails each
// forgery of what it plots or tables: a run's distance, a radius moved one
// grid step up (still covering, not the smallest) or down (not covering),
// a volume, a point of the coverage curve in the CSV, and a seed changed
// in the configuration without the figure.
func TestFigure1Recomputed(t *testing.T) {
	cfg := Figure1Config{Seed: 3, Runs: 40, Samples: 300, RhoStep: 1e-3, RhoMax: 0.5, Draws: 2000}
	res, err := RunFigure1(cfg)
	if err != nil {
		t.Fatal(err)
	}
	honest, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	csv := res.CSV()
	for _, c := range []struct {
		name string
		edit func(f map[string]any)
		csv  func(string) string
		want string // in the failed row's detail; "" for a pass
	}{
		{"honest", nil, nil, ""},
		{"distance edited", func(f map[string]any) { bumpList(f["dist_wafl"], 3, 1e-6) }, nil, "run 4: distances"},
		{"radius one step up", func(f map[string]any) { bumpList(f["rho_drfl"], 2, cfg.RhoStep) }, nil, "is not the smallest"},
		{"radius one step down", func(f map[string]any) { bumpList(f["rho_wafl"], 5, -cfg.RhoStep) }, nil, "below the level"},
		{"volume edited", func(f map[string]any) { bumpList(f["volume_drfl"], 0, 0.01) }, nil, "level 0.10 DRFL: volume"},
		{"coverage point edited", nil, func(s string) string {
			// The curve's 30th point: ρ = 0.03; its DRFL coverage doubled.
			lines := strings.Split(s, "\n")
			for i, l := range lines {
				if strings.HasPrefix(l, "0.03,") {
					p := strings.Split(l, ",")
					p[1] = p[1] + "1"
					lines[i] = strings.Join(p, ",")
				}
			}
			return strings.Join(lines, "\n")
		}, "coverage line 30"},
		{"seed changed", func(f map[string]any) { f["config"].(map[string]any)["seed"] = 4.0 }, nil, "run 1: distances"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var f map[string]any
			if err := json.Unmarshal(honest, &f); err != nil {
				t.Fatal(err)
			}
			if c.edit != nil {
				c.edit(f)
			}
			b, err := json.Marshal(f)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			text := csv
			if c.csv != nil {
				text = c.csv(csv)
				if text == csv {
					t.Fatal("the CSV edit changed nothing")
				}
			}
			if err := os.WriteFile(filepath.Join(dir, "figure1.csv"), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			rows := genericDRFLFigure1(experiments.VerifyInput{Dir: dir, Name: "drfl-figure1", Result: b})
			if len(rows) != 1 {
				t.Fatalf("%d rows, want the figure recomputed row", len(rows))
			}
			r := rows[0]
			switch {
			case c.want == "" && !r.Pass:
				t.Fatalf("honest figure fails: %s", r.Detail)
			case c.want != "" && (r.Pass || !strings.Contains(r.Detail, c.want)):
				t.Fatalf("pass %v, %q; want a failure naming %q", r.Pass, r.Detail, c.want)
			}
		})
	}
	// A noise figure's result is not Figure 1's: no row.
	if rows := genericDRFLFigure1(experiments.VerifyInput{Result: []byte(`{"config": {"figure": {"dataset": "heart"}}, "runs": []}`)}); len(rows) != 0 {
		t.Errorf("a noise figure got %d Figure 1 rows", len(rows))
	}
}

// bumpList adds delta to entry i of a JSON list of numbers.
func bumpList(v any, i int, delta float64) { l := v.([]any); l[i] = l[i].(float64) + delta }
