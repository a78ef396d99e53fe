package proxal

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
)

// writeQPRun runs cfg as `fedcon reproduce table4` does into dir (trial
// store, result files, manifest last) and returns the result: trials
// already in dir/trials are reused, so a run after editing them writes a
// table consistent with the edits.
func writeQPRun(t *testing.T, dir string, cfg *QPConfig) *QPResult {
	t.Helper()
	s := &experiments.Store{Dir: filepath.Join(dir, "trials"), Hash: cfg.TrialHash(), Version: "test"}
	info := experiments.NewRunInfo("table4", "test", cfg, 1)
	res, err := RunQP(context.Background(), cfg, experiments.RunOptions{Workers: 2, Store: s})
	if err != nil {
		t.Fatal(err)
	}
	res.Info = info
	info.Finish()
	if _, err := experiments.WriteOutputs(dir, "table4", res, res.Tables()...); err != nil {
		t.Fatal(err)
	}
	m, err := experiments.NewManifest(info, cfg.Seed, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := experiments.WriteJSON(filepath.Join(dir, "manifest.json"), m); err != nil {
		t.Fatal(err)
	}
	return res
}

func gateQP() *QPConfig {
	cfg := smallQP()
	cfg.Cells, cfg.Trials = [][]int{{1, 12, 1}, {2, 16, 2}}, 2
	return cfg
}

// gateFailures runs the gate on dir and returns the rules that failed.
func gateFailures(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "table4.json"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := experiments.CheckExperiment(dir, "table4", b, experiments.GateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, r := range rows {
		if !r.Pass {
			failed = append(failed, r.Rule+": "+r.Detail)
		}
	}
	return failed
}

// editJSON rewrites the JSON file at p through edit.
func editJSON(t *testing.T, p string, edit func(map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	if b, err = json.MarshalIndent(m, "", " "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func editText(t *testing.T, p string, edit func(string) string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(edit(string(b))), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// trialOf returns the "trial" object of a trial file's JSON.
func trialOf(m map[string]any) map[string]any { return m["trial"].(map[string]any) }

func alg(m map[string]any, name string) map[string]any {
	return trialOf(m)[name].(map[string]any)
}

// TestGateTampering: the honest run passes the gate; each way of tampering
// with a table, its manifest or a trial file fails it, with the rule named.
// "forge" cases rewrite the trial files and then rebuild every table from
// them, as a careful forger would: only the checks against the algorithms'
// guarantees and an independent solve can catch those.
func TestGateTampering(t *testing.T) {
	honest := t.TempDir()
	cfg := gateQP()
	writeQPRun(t, honest, cfg)
	if f := gateFailures(t, honest); len(f) > 0 {
		t.Fatalf("honest run fails the gate: %v", f)
	}
	trial0 := "trials/n1-d12-m1-t00.json"
	cases := []struct {
		name string
		// tamper edits the copy in dir; forge, when true, then rebuilds the
		// tables from the edited trial files.
		tamper func(t *testing.T, dir string)
		forge  bool
		rule   string // a failed rule must start with this
		detail string // and, if set, name this
	}{
		{"table is {}", func(t *testing.T, d string) {
			os.WriteFile(filepath.Join(d, "table4.json"), []byte("{}"), 0o644)
		}, false, "result file", ""},
		{"rows emptied", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, "table4.json"), func(m map[string]any) { m["rows"] = []any{} })
		}, false, "cells and rows", ""},
		{"a row removed", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, "table4.json"), func(m map[string]any) { m["rows"] = m["rows"].([]any)[:1] })
		}, false, "cells and rows", ""},
		{"trials emptied", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, "table4.json"), func(m map[string]any) { m["trials"] = []any{} })
		}, false, "cells and rows", ""},
		{"a row's objective edited", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, "table4.json"), func(m map[string]any) {
				m["rows"].([]any)[0].(map[string]any)["objective_alg1"].(map[string]any)["mean"] = 1.5
			})
		}, false, "rows recomputed", ""},
		{"a cell removed from the CSV", func(t *testing.T, d string) {
			editText(t, filepath.Join(d, "table4.csv"), func(s string) string {
				l := strings.Split(s, "\n")
				return strings.Join(append(l[:1], l[2:]...), "\n")
			})
		}, false, "tables recomputed", ""},
		{"a Markdown cell edited", func(t *testing.T, d string) {
			editText(t, filepath.Join(d, "table4.md"), func(s string) string { return strings.Replace(s, "| 1 |", "| 7 |", 1) })
		}, false, "tables recomputed", ""},
		{"CSV file is {}", func(t *testing.T, d string) {
			os.WriteFile(filepath.Join(d, "table4.csv"), []byte("{}"), 0o644)
		}, false, "tables recomputed", ""},
		{"Markdown file missing", func(t *testing.T, d string) { os.Remove(filepath.Join(d, "table4.md")) }, false, "tables recomputed", ""},
		{"a trial's objective edited in its file only", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, trial0), func(m map[string]any) { alg(m, "alg1")["objective"] = 3.0 })
		}, false, "trials = trial files", ""},
		{"a trial's KKT residual 500x eps in its file only", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, trial0), func(m map[string]any) {
				alg(m, "cprox")["kkt_residuals"].(map[string]any)["stationarity"] = 500 * cfg.Eps1
			})
		}, false, "trials = trial files", ""},
		{"a trial file deleted", func(t *testing.T, d string) { os.Remove(filepath.Join(d, trial0)) }, false, "trial files", ""},
		{"a trial file's objective null", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, trial0), func(m map[string]any) { alg(m, "alg1")["objective"] = nil })
		}, false, "trial files", ""},
		{"a trial file's Algorithm 1 block missing", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, trial0), func(m map[string]any) { delete(trialOf(m), "alg1") })
		}, false, "trial files", ""},
		{"a trial file of another configuration", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, trial0), func(m map[string]any) { m["config_hash"] = "0123456789abcdef" })
		}, false, "trial files", ""},
		{"a trial file without schema", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, trial0), func(m map[string]any) { delete(m, "schema") })
		}, false, "trial files", ""},
		{"a trial file holding another trial", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, trial0), func(m map[string]any) { trialOf(m)["trial"] = 1.0 })
		}, false, "trial files", ""},
		{"manifest says incomplete", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, "manifest.json"), func(m map[string]any) { m["complete"] = false })
		}, false, "manifest", ""},
		{"manifest missing", func(t *testing.T, d string) { os.Remove(filepath.Join(d, "manifest.json")) }, false, "manifest", ""},
		{"manifest of another configuration", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, "manifest.json"), func(m map[string]any) { m["config_hash"] = "0123456789abcdef" })
		}, false, "manifest", ""},
		{"manifest lists a foreign trial file", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, "manifest.json"), func(m map[string]any) {
				m["trial_files"] = append(m["trial_files"].([]any), "n9-d99-m9-t00.json")
			})
		}, false, "trial files", ""},
		{"recorded configuration edited (a cell dropped)", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, "table4.json"), func(m map[string]any) {
				c := m["run"].(map[string]any)["config"].(map[string]any)
				c["cells"] = c["cells"].([]any)[:1]
			})
		}, false, "manifest", ""},
		{"forge: KKT residual 500x eps", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, trial0), func(m map[string]any) {
				alg(m, "cprox")["kkt_residuals"].(map[string]any)["stationarity"] = 500 * cfg.Eps1
			})
		}, true, "trial kkt vs status", ""},
		{"forge: w edited", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, trial0), func(m map[string]any) {
				w := alg(m, "alg1")["w"].([]any)
				w[2] = w[2].(float64) + 1e-4
			})
		}, true, "certificate recomputed", ""},
		{"forge: μ edited", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, trial0), func(m map[string]any) {
				mu := alg(m, "cprox")["mu"].([]any)[1].([]any)
				mu[0] = mu[0].(float64) + 1e-3
			})
		}, true, "certificate recomputed", ""},
		{"forge: objective and f* scaled together", func(t *testing.T, d string) {
			for _, f := range []string{trial0, "trials/n1-d12-m1-t01.json"} {
				editJSON(t, filepath.Join(d, f), func(m map[string]any) {
					tr := trialOf(m)
					tr["f_star"] = 2 * tr["f_star"].(float64)
					for _, a := range []string{"alg1", "cprox"} {
						alg(m, a)["objective"] = 2 * alg(m, a)["objective"].(float64)
					}
				})
			}
		}, true, "f* recomputed", ""},
		{"forge: a capped last subproblem called Converged", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, trial0), func(m map[string]any) {
				a := alg(m, "alg1")
				a["status"], a["inner_capped"] = "Converged", true
			})
		}, true, "certificate recomputed", "inner cap"},
		{"forge: distance to the optimum halved", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, trial0), func(m map[string]any) {
				a := alg(m, "alg1")
				a["dist_to_optimum_inf"] = a["dist_to_optimum_inf"].(float64) / 2
			})
		}, true, "certificate recomputed", "dist_to_optimum_inf"},
		{"forge: objective band widened", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, trial0), func(m map[string]any) {
				a := alg(m, "cprox")
				a["objective_kkt_band"] = 10 * a["objective_kkt_band"].(float64)
			})
		}, true, "certificate recomputed", "objective_kkt_band"},
		{"forge: objective band shrunk", func(t *testing.T, d string) {
			editJSON(t, filepath.Join(d, trial0), func(m map[string]any) {
				a := alg(m, "alg1")
				a["objective_kkt_band"] = a["objective_kkt_band"].(float64) / 10
			})
		}, true, "certificate recomputed", "objective_kkt_band"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			copyDir(t, honest, dir)
			c.tamper(t, dir)
			if c.forge {
				writeQPRun(t, dir, cfg)
			}
			failed := gateFailures(t, dir)
			if len(failed) == 0 {
				t.Fatalf("the gate passed")
			}
			for _, f := range failed {
				if strings.HasPrefix(f, c.rule) && strings.Contains(f, c.detail) {
					return
				}
			}
			t.Errorf("failed %v, want rule %q naming %q among them", failed, c.rule, c.detail)
		})
	}
}
