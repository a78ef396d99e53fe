package cmd

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRunNPParticipation: through the command, --participation 1 writes
// the same trial files as the paper's full participation (timings aside),
// for any --workers, and --participation 0.5 --drop-prob 0.1 records who
// answered each round.
func TestRunNPParticipation(t *testing.T) {
	data := dataRealDir(t)
	runNP := func(extra ...string) string {
		t.Helper()
		out := t.TempDir()
		f, _, errOut := testFactory()
		f.Getenv = func(k string) string { return map[string]string{"FEDCON_DATA_DIR": data}[k] }
		args := append([]string{"run", "np", "--dataset", "breast-cancer-wisc", "--clients", "5", "--trials", "2", "--out", out, "--quiet"}, extra...)
		if code := run(context.Background(), f, args); code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errOut.String())
		}
		return filepath.Join(out, "np-breast-cancer-wisc-n5", "trials")
	}
	// Wall times and the build's version are the only fields that may differ.
	timing := regexp.MustCompile(`(?m)^\s*"(wall_seconds|runtime_ns)": .*$`)
	read := func(dir, name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return timing.ReplaceAllString(string(b), "")
	}
	paper := runNP()
	for _, extra := range [][]string{{"--participation", "1"}, {"--participation", "1", "--drop-prob", "0", "--workers", "1"}} {
		dir := runNP(extra...)
		for _, name := range []string{"breast-cancer-wisc-n5-t00.json", "breast-cancer-wisc-n5-t01.json"} {
			if read(dir, name) != read(paper, name) {
				t.Errorf("%v: %s differs from the run without participation keys", extra, name)
			}
		}
	}
	partial := read(runNP("--participation", "0.5", "--drop-prob", "0.1", "--workers", "1"), "breast-cancer-wisc-n5-t00.json")
	if !strings.Contains(partial, `"participation": {`) || !strings.Contains(partial, `"retry_rounds"`) {
		t.Fatalf("no participation record in the trial file")
	}
	if again := read(runNP("--participation", "0.5", "--drop-prob", "0.1", "--workers", "2"), "breast-cancer-wisc-n5-t00.json"); again != partial {
		t.Fatal("--workers 2 changed a run with partial participation")
	}
}
