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

// TestRunNPStraggler: the straggler model's clock only measures without a
// deadline (the trial's w is the run's without it, and sim_wall_s is
// recorded and shown); with a deadline late clients miss rounds and the
// trials stay Converged. serve, which has a real clock, refuses the keys;
// bad values exit 2 naming the key.
func TestRunNPStraggler(t *testing.T) {
	data := dataRealDir(t)
	type stored struct {
		Trial struct {
			Alg1 struct {
				Status string    `json:"status"`
				W      []float64 `json:"w"`
				Stats  struct {
					SimWall float64 `json:"sim_wall_s"`
					Rounds  int     `json:"rounds"`
				} `json:"stats"`
				Participation *struct {
					Missed string `json:"missed"`
				} `json:"participation"`
			} `json:"alg1"`
		} `json:"trial"`
	}
	runNP := func(extra ...string) (stored, string) {
		t.Helper()
		out := t.TempDir()
		f, stdout, errOut := testFactory()
		f.Getenv = func(k string) string { return map[string]string{"FEDCON_DATA_DIR": data}[k] }
		args := append([]string{"run", "np", "--dataset", "breast-cancer-wisc", "--clients", "5", "--trials", "1", "--out", out, "--wide"}, extra...)
		if code := run(context.Background(), f, args); code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errOut.String())
		}
		var tr stored
		readJSON(t, filepath.Join(out, "np-breast-cancer-wisc-n5", "trials", "breast-cancer-wisc-n5-t00.json"), &tr)
		return tr, stdout.String()
	}
	clock := []string{"--straggler-per-row", "0.001", "--straggler-tail", "0.3", "--straggler-spread", "0.5", "--straggler-latency", "0.05"}
	plain, _ := runNP()
	timed, table := runNP(clock...)
	if !reflect.DeepEqual(timed.Trial.Alg1.W, plain.Trial.Alg1.W) || timed.Trial.Alg1.Stats.Rounds != plain.Trial.Alg1.Stats.Rounds || timed.Trial.Alg1.Participation != nil {
		t.Fatal("the clock without a deadline changed the run")
	}
	if plain.Trial.Alg1.Stats.SimWall != 0 || !(timed.Trial.Alg1.Stats.SimWall > 0.05*float64(timed.Trial.Alg1.Stats.Rounds)) {
		t.Fatalf("sim_wall_s %v without the clock, %v with it over %d rounds", plain.Trial.Alg1.Stats.SimWall, timed.Trial.Alg1.Stats.SimWall, timed.Trial.Alg1.Stats.Rounds)
	}
	if !strings.Contains(table, "simulated s A1") {
		t.Error("the --wide table has no simulated time column")
	}
	late, _ := runNP(append(clock, "--participation", "0.6", "--straggler-deadline", "0.5")...)
	if late.Trial.Alg1.Status != "Converged" || late.Trial.Alg1.Participation == nil || late.Trial.Alg1.Participation.Missed == "" {
		t.Fatalf("with a deadline: status %s, participation recorded %v", late.Trial.Alg1.Status, late.Trial.Alg1.Participation != nil)
	}
	for _, bad := range [][]string{
		{"run", "np", "--straggler-tail", "-1"},
		{"run", "np", "--straggler-deadline", "1"},
		{"run", "np", "--max-delay", "-2"},
	} {
		f, _, errOut := testFactory()
		if code := run(context.Background(), f, append(bad, "--out", t.TempDir())); code != 2 || !strings.Contains(errOut.String(), strings.ReplaceAll(strings.TrimPrefix(bad[2], "--"), "-", "_")) {
			t.Errorf("%v: exit %d, %q; want 2 naming the key", bad, code, errOut.String())
		}
	}
	cfg := filepath.Join(t.TempDir(), "st.yaml")
	if err := os.WriteFile(cfg, []byte("straggler_tail: 0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, errOut := testFactory()
	if code := run(context.Background(), f, []string{"serve", "--problem", "qp", "--config", cfg, "--in-process"}); code != 2 || !strings.Contains(errOut.String(), "straggler") {
		t.Errorf("serve with a straggler key: exit %d, %q; want 2 naming it", code, errOut.String())
	}
}
