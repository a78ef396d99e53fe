package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
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

// TestReplayServed: `serve --in-process` with partial participation
// records who answered and who missed a round; `run qp --replay` on that
// file reruns trial 0 with exactly that participation, bit for bit (w, the
// record, the rounds and floats sent); a file without a record, or of other n, exits 2 naming the key.
func TestReplayServed(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "served.json")
	f, _, errOut := testFactory()
	if code := run(context.Background(), f, []string{"serve", "--problem", "qp", "--cell", "5,30,3", "--participation", "0.5",
		"--drop-prob", "0.1", "--in-process", "-o", rec}); code != 0 {
		t.Fatalf("serve: exit %d: %s", code, errOut.String())
	}
	var served struct {
		W             []float64       `json:"w"`
		Participation json.RawMessage `json:"participation"`
		Stats         struct {
			Rounds     int   `json:"rounds"`
			FloatsDown int64 `json:"floats_down"`
		} `json:"stats"`
	}
	readJSON(t, rec, &served)
	out := filepath.Join(dir, "out")
	f, _, errOut = testFactory()
	if code := run(context.Background(), f, []string{"run", "qp", "--clients", "5", "--dim", "30", "--constraints", "3", "--trials", "1",
		"--replay", rec, "--out", out, "--quiet"}); code != 0 {
		t.Fatalf("run qp --replay: exit %d: %s", code, errOut.String())
	}
	var trial struct {
		Trial struct {
			Alg1 struct {
				W             []float64       `json:"w"`
				Participation json.RawMessage `json:"participation"`
				Stats         struct {
					Rounds     int   `json:"rounds"`
					FloatsDown int64 `json:"floats_down"`
				} `json:"stats"`
			} `json:"alg1"`
		} `json:"trial"`
	}
	readJSON(t, filepath.Join(out, "qp-n5-d30-m3", "trials", "n5-d30-m3-t00.json"), &trial)
	a := trial.Trial.Alg1
	if !reflect.DeepEqual(a.W, served.W) || a.Stats != served.Stats || !jsonEqual(t, a.Participation, served.Participation) ||
		!strings.Contains(string(served.Participation), `"missed"`) {
		t.Fatalf("replay differs from the served run: %d rounds, want %d", a.Stats.Rounds, served.Stats.Rounds)
	}
	none := filepath.Join(dir, "none.json")
	os.WriteFile(none, []byte(`{"job": {"n": 5}, "w": [1]}`), 0o644)
	for _, bad := range [][]string{{"--replay", none}, {"--replay", rec, "--clients", "4"}, {"--replay", filepath.Join(dir, "missing.json")}} {
		f, _, errOut := testFactory()
		args := append([]string{"run", "qp", "--dim", "30", "--constraints", "3", "--trials", "1", "--out", out, "--quiet", "--clients", "5"}, bad...)
		if code := run(context.Background(), f, args); code != 2 || !strings.Contains(errOut.String(), "replay") {
			t.Errorf("%v: exit %d, %q; want 2 naming replay", bad, code, errOut.String())
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

func jsonEqual(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
