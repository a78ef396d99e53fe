package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
)

// TestCheckNamesRegistered: the paper packages cmd links register every
// gated table with the core's check registry, and nothing else.
func TestCheckNamesRegistered(t *testing.T) {
	want := []string{"conic-table1", "conic-table2", "conic-table3", "table1", "table2", "table2-authors", "table4"}
	if got := experiments.CheckNames(); !slices.Equal(got, want) {
		t.Errorf("CheckNames() = %v, want %v", got, want)
	}
}

// TestGateDataDir: check and report recompute a class table's data-split
// columns from the data sets on --data-dir: the gate of a small honest run
// passes with the directory the run used and fails on the partition rule
// and the recomputed certificate and independent optimum alone, naming the
// directory searched, with one that lacks the data set.
func TestGateDataDir(t *testing.T) {
	data := dataRealDir(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // an empty download cache
	empty := t.TempDir()
	dir := t.TempDir()
	f, out, errOut := testFactory()
	cfg := writeConfig(t, dir, "datasets: [breast-cancer-wisc]\nclients: [2]\nmax_outer: 5\n")
	if code := run(context.Background(), f, []string{"reproduce", "conic-table2", "--config", cfg, "--data-dir", data, "--out", dir, "--quiet"}); code != 0 {
		t.Fatalf("reproduce: exit %d (%s)", code, errOut)
	}
	for _, c := range []struct {
		name, dataDir string
		pass          bool
	}{{"data dir of the run", data, true}, {"dir without the data", empty, false}} {
		t.Run(c.name, func(t *testing.T) {
			out.Reset()
			errOut.Reset()
			if code := run(context.Background(), f, []string{"check", dir, "--json", "--data-dir", c.dataDir}); code != 0 && code != 1 {
				t.Fatalf("check: exit %d (%s)", code, errOut)
			}
			var rows []experiments.CheckRow
			if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(rows, func(r experiments.CheckRow) bool { return r.Rule == "partition recomputed" })
			switch {
			case i < 0:
				t.Fatalf("no partition rule in %d rows", len(rows))
			case rows[i].Pass != c.pass:
				t.Fatalf("partition rule pass = %v (%s), want %v", rows[i].Pass, rows[i].Detail, c.pass)
			case !c.pass && !strings.Contains(rows[i].Detail, empty):
				t.Fatalf("partition rule detail %q does not name %s", rows[i].Detail, empty)
			}
			for _, r := range rows {
				// The recomputed certificate and the independent optimum
				// need the data as well.
				needsData := r.Rule == "certificate recomputed" || r.Rule == "objective vs independent optimum"
				if !r.Pass && r.Rule != "partition recomputed" && (!needsData || !strings.Contains(r.Detail, empty)) {
					t.Fatalf("rule %s fails: %s", r.Rule, r.Detail)
				}
			}
			out.Reset()
			if code := run(context.Background(), f, []string{"report", dir, "--json", "--data-dir", c.dataDir}); code != 0 {
				t.Fatalf("report: exit %d (%s)", code, errOut)
			}
			var doc struct{ Gates []struct{ Pass bool } }
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Gates) != 1 || doc.Gates[0].Pass != c.pass {
				t.Fatalf("report gates %+v, want one with pass = %v", doc.Gates, c.pass)
			}
		})
	}
}

// TestCheckProvenance: a trial file computed by another fedcon is reported
// by check (count and version, exit 0) and fails it under --strict.
func TestCheckProvenance(t *testing.T) {
	dir := t.TempDir()
	f, _, errOut := testFactory()
	f.Version = "devel+111111111111"
	if code := run(context.Background(), f, []string{"reproduce", "table4", "--config", writeConfig(t, dir, "cells: [[1, 10, 1]]\ntrials: 2\n"), "--out", dir, "--quiet"}); code != 0 {
		t.Fatalf("reproduce: exit %d (%s)", code, errOut)
	}
	p := filepath.Join(dir, "table4", "trials", "n1-d10-m1-t01.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, bytes.Replace(b, []byte(`"devel+111111111111"`), []byte(`"devel+222222222222"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
	}{{nil, 0}, {[]string{"--strict"}, 1}} {
		f, out, errOut := testFactory()
		f.Version = "devel+111111111111"
		code := run(context.Background(), f, append([]string{"check", "--json", dir}, tc.args...))
		if code != tc.code {
			t.Fatalf("check %v: exit %d, want %d (%s)", tc.args, code, tc.code, errOut)
		}
		var rows []experiments.CheckRow
		if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range rows {
			if r.Rule == "provenance" {
				found = true
				if r.Value != 1 || !strings.Contains(r.Detail, "devel+222222222222 (1)") {
					t.Errorf("check %v: provenance row %+v", tc.args, r)
				}
			}
		}
		if !found {
			t.Errorf("check %v: no provenance row", tc.args)
		}
	}
}

// TestCheckCoverage: check lists every experiment it found with what it
// checked; one without a reference file (a run qp) gets the generic rules,
// each of which fails on its forgery; an experiment that reproduce all was
// asked for and is absent is a failed "not run" row; the summary line
// counts the experiments checked, not run and skipped.
func TestCheckCoverage(t *testing.T) {
	setup := func(t *testing.T) string {
		t.Helper()
		dir := t.TempDir()
		f, _, errOut := testFactory()
		if code := run(context.Background(), f, []string{"reproduce", "table4", "--config", writeConfig(t, dir, "cells: [[1, 10, 1]]\ntrials: 2\n"), "--out", dir, "--quiet"}); code != 0 {
			t.Fatalf("reproduce: exit %d (%s)", code, errOut)
		}
		if code := run(context.Background(), f, []string{"run", "qp", "--clients", "2", "--dim", "8", "--constraints", "1", "--trials", "2", "--out", dir, "--quiet"}); code != 0 {
			t.Fatalf("run qp: exit %d (%s)", code, errOut)
		}
		return dir
	}
	qp := "qp-n2-d8-m1"
	edit := func(t *testing.T, path, old, new string) {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(old)) {
			t.Fatalf("%s lacks %q", path, old)
		}
		if err := os.WriteFile(path, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		forge   func(t *testing.T, dir string)
		code    int
		rule    string // the failing rule
		summary string
	}{
		{"honest", func(*testing.T, string) {}, 0, "", "2 experiments checked (1 reference, 1 generic), 0 not run, 0 skipped; 22 checks, 0 failed."},
		{"result file removed", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, qp, qp+".json")) }, 1, "result file", ""},
		{"manifest incomplete", func(t *testing.T, dir string) {
			edit(t, filepath.Join(dir, qp, "manifest.json"), `"complete": true`, `"complete": false`)
		}, 1, "manifest", ""},
		{"trial file of another trial hash", func(t *testing.T, dir string) {
			edit(t, filepath.Join(dir, qp, "trials", "n2-d8-m1-t01.json"), `"config_hash": "`, `"config_hash": "0`)
		}, 1, "trial files", ""},
		{"trial edited in its file only", func(t *testing.T, dir string) {
			edit(t, filepath.Join(dir, qp, "trials", "n2-d8-m1-t01.json"), `"objective": `, `"objective": 1`)
		}, 1, "trials = trial files", ""},
		{"Converged above (ε1, ε2), in file and result", func(t *testing.T, dir string) {
			for _, p := range []string{filepath.Join(dir, qp, "trials", "n2-d8-m1-t00.json"), filepath.Join(dir, qp, qp+".json")} {
				edit(t, p, `"stationarity": `, `"stationarity": 1e3, "forged": `)
			}
		}, 1, "trial kkt vs status", ""},
		{"expected and run", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, experiments.ExpectedFile), []byte(`{"schema": 1, "experiments": ["table4"]}`), 0o644)
		}, 0, "", "2 experiments checked (1 reference, 1 generic), 0 not run, 0 skipped; 22 checks, 0 failed."},
		{"expected, not run", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, experiments.ExpectedFile), []byte(`{"schema": 1, "experiments": ["figure1", "table4"], "skipped": {"figure1": "no adult, monks"}}`), 0o644)
		}, 1, "not run", "Not run: figure1 (reproduce all skipped it: no adult, monks). 2 experiments checked (1 reference, 1 generic), 1 not run, 0 skipped; 23 checks, 1 failed."},
		{"shard manifests only: skipped", func(t *testing.T, dir string) {
			os.MkdirAll(filepath.Join(dir, "table1"), 0o755)
			os.WriteFile(filepath.Join(dir, "table1", "shard-0-of-2.json"), []byte(`{}`), 0o644)
		}, 0, "", "Skipped: table1: shard manifests, not merged (fedcon merge). 2 experiments checked (1 reference, 1 generic), 0 not run, 1 skipped; 22 checks, 0 failed."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := setup(t)
			tc.forge(t, dir)
			f, out, errOut := testFactory()
			code := run(context.Background(), f, []string{"check", "--wide", dir})
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, out, errOut)
			}
			text := out.String()
			for _, want := range []string{"fedcon check: experiments", "table4", qp} {
				if !strings.Contains(text, want) {
					t.Errorf("output lacks %q:\n%s", want, text)
				}
			}
			if tc.summary != "" && !strings.Contains(strings.Join(strings.Fields(text), " "), tc.summary) {
				t.Errorf("summary lacks %q:\n%s", tc.summary, text)
			}
			if tc.rule == "" {
				return
			}
			f, out, _ = testFactory()
			run(context.Background(), f, []string{"check", "--json", dir})
			var rows []experiments.CheckRow
			if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
				t.Fatal(err)
			}
			var failed []string
			for _, r := range rows {
				if !r.Pass {
					failed = append(failed, r.Rule)
				}
			}
			if !slices.Contains(failed, tc.rule) {
				t.Errorf("failed rules %v lack %q", failed, tc.rule)
			}
		})
	}
}
