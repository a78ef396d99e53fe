package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/internal/testutil"
)

// timingKey reports the JSON keys that measure time, the only fields in
// which two runs of one configuration differ.
func timingKey(k string) bool {
	return k == "start" || k == "end" || strings.HasPrefix(k, "wall") || strings.Contains(k, "runtime") ||
		strings.HasSuffix(k, "_ns") || strings.HasSuffix(k, "seconds")
}

// timingColumn reports the columns of a rendered table that measure time.
func timingColumn(h string) bool {
	h = strings.ToLower(h)
	return strings.HasPrefix(h, "ms/") || strings.Contains(h, "wall") || strings.Contains(h, "time")
}

func dropTiming(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if hs, ok := t["header"].([]any); ok {
			if rows, ok := t["rows"].([]any); ok {
				for i, h := range hs {
					if s, _ := h.(string); timingColumn(s) {
						for _, r := range rows {
							if r, ok := r.([]any); ok && i < len(r) {
								r[i] = "(time)"
							}
						}
					}
				}
			}
		}
		for k, x := range t {
			if timingKey(k) {
				delete(t, k)
			} else {
				t[k] = dropTiming(x)
			}
		}
	case []any:
		for i := range t {
			t[i] = dropTiming(t[i])
		}
	}
	return v
}

// resultJSON are the result files of a run directory (not trials,
// manifests or shard manifests), with the timing fields dropped.
func resultJSON(t *testing.T, dir string) map[string]any {
	t.Helper()
	out := map[string]any{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && strings.HasSuffix(name, "trials") { // trials/, DRFL's <figure>-trials/
			return filepath.SkipDir
		}
		if d.IsDir() || filepath.Ext(name) != ".json" || strings.HasPrefix(name, "manifest") || strings.HasPrefix(name, "shard-") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = dropTiming(v)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestShardMergeMatchesOneMachine: N shards then a merge write the result
// JSON of a one-machine run, timing fields aside, and the shards split the
// trials without overlap.
func TestShardMergeMatchesOneMachine(t *testing.T) { shardMergeMatches(t, false) }

// TestLongShardMergeMatchesOneMachine: the cases of
// TestShardMergeMatchesOneMachine that take minutes (a quick SSCA figure
// runs its network 3 times: about 3 min on 2 cores).
func TestLongShardMergeMatchesOneMachine(t *testing.T) {
	testutil.Long(t)
	shardMergeMatches(t, true)
}

// shardMergeMatches runs the shard and merge cases of the long tier (long)
// or of the default one.
func shardMergeMatches(t *testing.T, long bool) {
	sweepDir := t.TempDir()
	sweep := filepath.Join(sweepDir, "tiny.yaml")
	if err := os.WriteFile(sweep, []byte("preset: table4\nbase: {cells: [[2, 10, 1], [3, 20, 2]], trials: 3}\nsweep:\n  beta: [5, 10]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		args   []string
		shards int
		slow   bool // skipped with -short, so also by the race pass
		quick  bool // skipped by the quick loop only (testutil.Slow)
		long   bool // TestLongShardMergeMatchesOneMachine's
	}{
		{"sweep", []string{"sweep", sweep}, 4, false, false, false},
		// Some of 16 shards own no trial of 12: their manifests still count.
		{"sweep, idle shards", []string{"sweep", sweep}, 16, false, false, false},
		{"table4 quick", []string{"reproduce", "all", "--quick", "--only", "table4"}, 3, false, true, false},
		{"conic-table1 quick", []string{"reproduce", "all", "--quick", "--only", "conic-table1"}, 2, true, false, false},
		{"ssca-figure2 quick", []string{"reproduce", "all", "--quick", "--no-fetch", "--only", "ssca-figure2"}, 2, true, false, true},
		{"drfl-figure5 quick", []string{"reproduce", "drfl-figure5", "--quick", "--repetitions", "4"}, 3, false, true, false},
		// Two data sets, each with its own repetitions; drfl-figure1 (no
		// trials) is computed by the merge.
		{"drfl-figure2 quick", []string{"reproduce", "all", "--quick", "--only", "drfl-figure1,drfl-figure2"}, 2, true, false, false},
	}
	for _, c := range cases {
		if c.long != long {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			if c.slow && testing.Short() {
				t.Skip("20 s to 3 min")
			}
			if c.quick {
				testutil.Slow(t)
			}
			args := c.args
			var need []string
			for _, a := range c.args {
				for _, job := range strings.Split(a, ",") {
					need = append(need, allJobData[job]...)
				}
			}
			if len(need) > 0 {
				dir := os.Getenv("FEDCON_DATA_DIR")
				if missing, err := datasets.Missing(need, []string{dir}); dir == "" || err != nil || len(missing) > 0 {
					t.Skipf("needs %v in $FEDCON_DATA_DIR", need)
				}
				args = append(slices.Clone(args), "--data-dir", dir)
			}
			root := t.TempDir()
			exec := func(args ...string) {
				t.Helper()
				f, _, errOut := testFactory()
				if code := run(context.Background(), f, append(args, "--quiet", "--workers", "2")); code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, errOut)
				}
			}
			one := filepath.Join(root, "one")
			exec(append(args, "--out", one)...)
			var shardDirs []string
			for k := 0; k < c.shards; k++ {
				d := filepath.Join(root, fmt.Sprintf("shard-%d", k))
				shardDirs = append(shardDirs, d)
				exec(append(args, "--out", d, "--shard", fmt.Sprintf("%d/%d", k, c.shards))...)
				if got := resultJSON(t, d); len(got) != 0 {
					t.Errorf("shard %d wrote results %v", k, got)
				}
			}
			merged := filepath.Join(root, "merged")
			f, _, errOut := testFactory()
			if code := run(context.Background(), f, append([]string{"merge", merged}, shardDirs...)); code != 0 {
				t.Fatalf("merge: exit %d: %s", code, errOut)
			}
			// The files trials name beside them (SSCA final weights) come too.
			_ = filepath.WalkDir(one, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || filepath.Ext(p) != ".w64" {
					return err
				}
				rel, _ := filepath.Rel(one, p)
				a, _ := os.ReadFile(p)
				if b, err := os.ReadFile(filepath.Join(merged, rel)); err != nil || !bytes.Equal(a, b) {
					t.Errorf("%s: not copied by the merge (%v)", rel, err)
				}
				return nil
			})
			want, got := resultJSON(t, one), resultJSON(t, merged)
			if len(want) == 0 {
				t.Fatal("the one-machine run wrote no result JSON")
			}
			if !reflect.DeepEqual(want, got) {
				for k := range want {
					if !reflect.DeepEqual(want[k], got[k]) {
						t.Errorf("%s differs between the merge and the one-machine run", k)
					}
				}
				t.Fatalf("merged results %d files, one-machine %d", len(got), len(want))
			}
			// Every trial is in exactly one shard, and every shard has some.
			var all []*foundShard
			for _, d := range shardDirs {
				s, err := findShards(d)
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, s...)
			}
			seen, per := map[string]int{}, map[int]int{}
			for _, s := range all {
				for _, p := range s.m.Owned {
					seen[filepath.Join(s.dir, p)]++
					per[s.m.Shard]++
				}
			}
			trials := 0
			_ = filepath.WalkDir(one, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && filepath.Ext(p) == ".json" &&
					(strings.Contains(p, string(filepath.Separator)+"trials"+string(filepath.Separator)) || strings.HasSuffix(filepath.Dir(p), "-trials")) {
					trials++
				}
				return nil
			})
			if len(seen) != trials {
				t.Errorf("shards own %d trials, the one-machine run has %d", len(seen), trials)
			}
			for p, n := range seen {
				if n != 1 {
					t.Errorf("%s owned by %d shards", p, n)
				}
			}
			for k := 0; k < c.shards && c.shards <= 4; k++ {
				if per[k] == 0 {
					t.Errorf("shard %d owns no trial (%v)", k, per)
				}
			}
		})
	}
}

// TestMergeRefuses: an incomplete, missing, duplicated, corrupt or
// mismatched shard is refused with one line naming it (exit 1).
func TestMergeRefuses(t *testing.T) {
	root := t.TempDir()
	sweep := filepath.Join(root, "tiny.yaml")
	if err := os.WriteFile(sweep, []byte("preset: table4\nbase: {cells: [[2, 10, 1]], trials: 4}\nsweep:\n  beta: [5]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := func(t *testing.T) (string, string) {
		d := t.TempDir()
		var dirs []string
		for k := 0; k < 2; k++ {
			s := filepath.Join(d, fmt.Sprint(k))
			f, _, errOut := testFactory()
			if code := run(context.Background(), f, []string{"sweep", sweep, "--quiet", "--out", s, "--shard", fmt.Sprintf("%d/2", k)}); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			dirs = append(dirs, s)
		}
		return dirs[0], dirs[1]
	}
	manifest := func(dir string, k int) string {
		return filepath.Join(dir, "sweep-tiny", fmt.Sprintf("shard-%d-of-2.json", k))
	}
	edit := func(t *testing.T, path string, fn func(m *shardManifest)) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var m shardManifest
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		fn(&m)
		b, _ = json.Marshal(m)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ownedFile := func(t *testing.T, dir string, k int) string {
		b, _ := os.ReadFile(manifest(dir, k))
		var m shardManifest
		if err := json.Unmarshal(b, &m); err != nil || len(m.Owned) == 0 {
			t.Fatalf("shard %d owns nothing: %v", k, err)
		}
		return filepath.Join(dir, "sweep-tiny", m.Owned[0])
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, s0, s1 string) []string
		code  int
		want  string
	}{
		{"whole", func(t *testing.T, s0, s1 string) []string { return []string{s0, s1} }, 0, ""},
		{"missing shard", func(t *testing.T, s0, s1 string) []string { return []string{s0, s0} }, 1, "shard 0 given twice"},
		{"absent shard", func(t *testing.T, s0, s1 string) []string {
			_ = os.Remove(manifest(s1, 1))
			return []string{s0, s1}
		}, 1, "missing shards: 1/2 (1 of 2 given)"},
		{"other version", func(t *testing.T, s0, s1 string) []string {
			edit(t, manifest(s1, 1), func(m *shardManifest) { m.Version = "v9.9.9" })
			return []string{s0, s1}
		}, 1, "v9.9.9"},
		{"other config", func(t *testing.T, s0, s1 string) []string {
			edit(t, manifest(s1, 1), func(m *shardManifest) {
				for k := range m.ConfigHashes {
					m.ConfigHashes[k] = "0000000000000000"
				}
			})
			return []string{s0, s1}
		}, 1, "different configurations"},
		// Killed before its manifest first recorded the trial hashes.
		{"killed at once", func(t *testing.T, s0, s1 string) []string {
			edit(t, manifest(s1, 1), func(m *shardManifest) { m.ConfigHashes, m.Done, m.Complete = map[string]string{}, nil, false })
			return []string{s0, s1}
		}, 1, "shard 1 of 2 not finished"},
		{"unfinished", func(t *testing.T, s0, s1 string) []string {
			edit(t, manifest(s0, 0), func(m *shardManifest) { m.Done = m.Done[1:]; m.Complete = false })
			return []string{s0, s1}
		}, 1, "not finished: 1 trials missing"},
		{"interrupted", func(t *testing.T, s0, s1 string) []string {
			edit(t, manifest(s1, 1), func(m *shardManifest) { m.Complete, m.Interrupted = false, true })
			return []string{s0, s1}
		}, 1, "not finished"},
		{"failed", func(t *testing.T, s0, s1 string) []string {
			edit(t, manifest(s1, 1), func(m *shardManifest) { m.Complete, m.Error = false, "disk full" })
			return []string{s0, s1}
		}, 1, "shard 1 failed: disk full"},
		{"truncated trial", func(t *testing.T, s0, s1 string) []string {
			p := ownedFile(t, s1, 1)
			b, _ := os.ReadFile(p)
			_ = os.WriteFile(p, b[:len(b)/2], 0o644)
			return []string{s0, s1}
		}, 1, "corrupt"},
		{"deleted trial", func(t *testing.T, s0, s1 string) []string {
			_ = os.Remove(ownedFile(t, s0, 0))
			return []string{s0, s1}
		}, 1, "trial missing"},
		{"invalid trial", func(t *testing.T, s0, s1 string) []string {
			p := ownedFile(t, s0, 0)
			b, _ := os.ReadFile(p)
			var v map[string]any
			_ = json.Unmarshal(b, &v)
			for k := range v["trial"].(map[string]any) { // drop one field of the trial
				delete(v["trial"].(map[string]any), k)
				break
			}
			b, _ = json.Marshal(v)
			_ = os.WriteFile(p, b, 0o644)
			return []string{s0, s1}
		}, 1, "trial missing"},
		{"not a dir", func(t *testing.T, s0, s1 string) []string { return []string{s0, filepath.Join(s1, "nope")} }, 2, "not a directory"},
		// Patterns are expanded by merge itself (a container has no shell).
		{"pattern", func(t *testing.T, s0, s1 string) []string { return []string{filepath.Join(filepath.Dir(s0), "*")} }, 0, ""},
		{"pattern and dir", func(t *testing.T, s0, s1 string) []string {
			return []string{s0, filepath.Join(filepath.Dir(s1), "[1]")}
		}, 0, ""},
		{"pattern, one shard", func(t *testing.T, s0, s1 string) []string { return []string{filepath.Join(filepath.Dir(s1), "1*")} }, 1, "missing shards: 0/2 (1 of 2 given)"},
		{"pattern, twice", func(t *testing.T, s0, s1 string) []string { return []string{filepath.Join(filepath.Dir(s0), "*"), s0} }, 1, "shard 0 given twice"},
		{"pattern matching nothing", func(t *testing.T, s0, s1 string) []string { return []string{s0, filepath.Join(s1, "shard-*")} }, 2, "matches nothing"},
		{"bad pattern", func(t *testing.T, s0, s1 string) []string { return []string{s0, s1 + "/[x"} }, 2, "syntax error in pattern"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s0, s1 := fresh(t)
			dirs := c.setup(t, s0, s1)
			f, _, errOut := testFactory()
			code := run(context.Background(), f, append([]string{"merge", filepath.Join(t.TempDir(), "out")}, dirs...))
			if code != c.code {
				t.Fatalf("exit %d, want %d: %s", code, c.code, errOut)
			}
			if c.want == "" {
				return
			}
			msg := strings.TrimSpace(errOut.String())
			lines := strings.Split(msg, "\n")
			if !strings.Contains(lines[len(lines)-1], c.want) && !strings.Contains(msg, c.want) {
				t.Errorf("stderr %q lacks %q", msg, c.want)
			}
			if c.code == 1 && strings.Count(msg, "\n") > 1 {
				t.Errorf("want one line (plus a warning at most), got %q", msg)
			}
		})
	}
}

// TestShardFlag: --shard K/N and auto from Slurm or Kubernetes environments;
// every bad value is a usage error.
func TestShardFlag(t *testing.T) {
	cases := []struct {
		flag    string
		env     map[string]string
		k, n    int
		wantErr string
	}{
		{"2/4", nil, 2, 4, ""},
		{"0/1", nil, 0, 1, ""},
		{"4/4", nil, 0, 0, "index must be in 0..3"},
		{"-1/4", nil, 0, 0, "index must be in 0..3"},
		{"0/0", nil, 0, 0, "at least 1"},
		{"1", nil, 0, 0, "want K/N"},
		{"a/b", nil, 0, 0, "integers"},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4"}, 3, 4, ""},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "4", "SLURM_ARRAY_TASK_MAX": "7"}, 1, 4, ""},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "4", "SLURM_ARRAY_TASK_MAX": "7", "SLURM_ARRAY_TASK_COUNT": "2"}, 0, 0, "consecutive"},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4"}, 0, 0, "index must be in 0..3"},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "x"}, 0, 0, "not an integer"},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "1"}, 0, 0, "neither SLURM_ARRAY_TASK_COUNT"},
		{"auto", map[string]string{"JOB_COMPLETION_INDEX": "1", "FEDCON_SHARD_COUNT": "3"}, 1, 3, ""},
		{"auto", map[string]string{"JOB_COMPLETION_INDEX": "1"}, 0, 0, "FEDCON_SHARD_COUNT"},
		{"auto", map[string]string{"JOB_COMPLETION_INDEX": "0", "FEDCON_SHARD_COUNT": "0"}, 0, 0, "at least 1"},
		{"auto", nil, 0, 0, "neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX"},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "4", "JOB_COMPLETION_INDEX": "2", "FEDCON_SHARD_COUNT": "4"}, 0, 0, "both SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX"},
		{" 1/3", nil, 0, 0, "integers"},
		{"01/3", nil, 0, 0, "leading zeros"},
		{"+1/3", nil, 0, 0, "without signs"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s %v", c.flag, c.env), func(t *testing.T) {
			f, _, _ := testFactory()
			f.Getenv = func(k string) string { return c.env[k] }
			s, err := parseShardFlag(f, c.flag)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || exitCode(err) != exitUsage {
					t.Fatalf("got %v (exit %d), want a usage error with %q", err, exitCode(err), c.wantErr)
				}
				return
			}
			if err != nil || s.K != c.k || s.N != c.n {
				t.Fatalf("got %v %v, want %d/%d", s, err, c.k, c.n)
			}
		})
	}
	// Through the command line: one line, exit 2, before any work.
	for _, v := range []string{"3/3", "", "01/3"} {
		f, _, errOut := testFactory()
		dir := t.TempDir()
		if code := run(context.Background(), f, []string{"reproduce", "all", "--quick", "--only", "table4", "--out", dir, "--shard", v}); code != 2 {
			t.Fatalf("--shard %q: exit %d, want 2: %s", v, code, errOut)
		}
		if strings.Count(strings.TrimSpace(errOut.String()), "\n") > 1 || !strings.Contains(errOut.String(), "shard") {
			t.Errorf("--shard %q: not one line naming --shard: %q", v, errOut)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("--shard %q left %d entries in --out", v, len(entries))
		}
	}
}

func TestShardCommand(t *testing.T) {
	got := shardCommand([]string{"reproduce", "all", "--quick", "--shard", "1/4", "--out=x", "--force", "--only", "table4", "--out", "y",
		"--shard=auto", "--reuse-only", "--workers", "8", "--quiet", "--json=true", "--wide"})
	want := []string{"reproduce", "all", "--quick", "--only", "table4"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestStatus: a finished and an unfinished shard.
func TestStatus(t *testing.T) {
	root := t.TempDir()
	sweep := filepath.Join(root, "tiny.yaml")
	if err := os.WriteFile(sweep, []byte("preset: table4\nbase: {cells: [[2, 10, 1]], trials: 4}\nsweep:\n  beta: [5]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, out, errOut := testFactory()
	if code := run(context.Background(), f, []string{"sweep", sweep, "--quiet", "--out", filepath.Join(root, "s0"), "--shard", "0/2"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if code := run(context.Background(), f, []string{"status", root}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out.String(), "sweep-tiny") || !strings.Contains(out.String(), "1/2 (1)") || !strings.Contains(out.String(), "not every shard started") {
		t.Errorf("status:\n%s", out)
	}
	if code := run(context.Background(), f, []string{"status", filepath.Join(root, "none")}); code != 2 {
		t.Errorf("status of a missing directory: exit %d, want 2", code)
	}
}

// FuzzShardManifest: any bytes in a shard manifest are read or refused,
// never a panic, and the merge check and status of what is read do not
// panic either.
func FuzzShardManifest(f *testing.F) {
	f.Add([]byte(`{"schema":1,"experiment":"t","fedcon_version":"v","command":["sweep","x"],"shard":0,"shards":2,"config_hashes":{"trials":"ab"},"owned":["trials/a-t00.json"],"done":["trials/a-t00.json"],"complete":true,"trial_wall_seconds":{},"start":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"}`))
	f.Add([]byte(`{"schema":1,"shard":5,"shards":2}`))
	f.Add([]byte(`{"schema":1,"owned":["../../etc/passwd"],"shards":1,"complete":true}`))
	f.Add([]byte(`{`))
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeShardManifest(b, "shard-0-of-2.json")
		if err != nil {
			return
		}
		if m.Shard != 0 || m.Shards != 2 || m.Schema != shardManifestSchema {
			t.Fatalf("accepted shard %d of %d, schema %d", m.Shard, m.Shards, m.Schema)
		}
		all := []*foundShard{{root: root, dir: "x", file: "shard-0-of-2.json", m: m}}
		if _, err := checkShards(all); err == nil {
			t.Fatal("one shard of two passed the merge check")
		}
		_ = statusTable(all, time.Now())
	})
}

// TestStatusLockChild is the child process of TestStatusStopped: it holds
// the lock of $FEDCON_STATUS_CHILD_DIR until it is killed.
func TestStatusLockChild(t *testing.T) {
	dir := os.Getenv("FEDCON_STATUS_CHILD_DIR")
	if dir == "" {
		t.Skip("the child of TestStatusStopped")
	}
	if _, err := experiments.LockDir(dir, "status test child"); err != nil {
		t.Fatal(err)
	}
	fmt.Println("locked")
	time.Sleep(2 * time.Minute)
}

// TestStatusStopped: an unfinished shard is running while a process holds
// its lock, stopped once that process is killed (SIGKILL: the kernel
// releases the lock), and, when its lock cannot be probed, flagged after
// twice its slowest trial plus the margin without progress.
func TestStatusStopped(t *testing.T) {
	root := t.TempDir()
	sweep := filepath.Join(root, "tiny.yaml")
	if err := os.WriteFile(sweep, []byte("preset: table4\nbase: {cells: [[2, 10, 1]], trials: 4}\nsweep:\n  beta: [5]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, errOut := testFactory()
	if code := run(context.Background(), f, []string{"sweep", sweep, "--quiet", "--out", filepath.Join(root, "s0"), "--shard", "0/1"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	dir := filepath.Join(root, "s0", "sweep-tiny")
	manifest := filepath.Join(dir, "shard-0-of-1.json")
	now := time.Now()
	// unfinished rewrites the manifest as a shard that stopped updating it
	// idle ago, its slowest trial taking slowest seconds.
	unfinished := func(t *testing.T, idle time.Duration, slowest float64) {
		t.Helper()
		b, err := os.ReadFile(manifest)
		if err != nil {
			t.Fatal(err)
		}
		var m shardManifest
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		m.Complete, m.Done = false, m.Done[:1]
		m.Start, m.Updated = now.Add(-idle-time.Hour), now.Add(-idle)
		m.TrialWall = map[string]float64{m.Owned[0]: slowest}
		if b, err = json.Marshal(m); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(manifest, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	status := func(t *testing.T) string {
		t.Helper()
		all, err := findShards(root)
		if err != nil || len(all) != 1 {
			t.Fatalf("%d shards, %v", len(all), err)
		}
		tb := statusTable(all, now)
		return tb.Rows[0][len(tb.Rows[0])-1]
	}
	host, _ := os.Hostname()
	lockFile := filepath.Join(dir, experiments.LockFile)
	const stopped = "shard 0 stopped (not complete; rerun the shard to resume)"

	t.Run("killed child", func(t *testing.T) {
		unfinished(t, time.Hour, 1) // stale by the time rule: the lock wins
		child := exec.Command(os.Args[0], "-test.run=^TestStatusLockChild$")
		child.Env = append(os.Environ(), "FEDCON_STATUS_CHILD_DIR="+dir)
		out, err := child.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := child.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
		line, _ := bufio.NewReader(out).ReadString('\n')
		if strings.TrimSpace(line) != "locked" {
			t.Fatalf("child: %q", line)
		}
		if got := status(t); strings.Contains(got, "stopped") || strings.Contains(got, "no progress") {
			t.Errorf("while the child holds the lock: %q", got)
		}
		if err := child.Process.Kill(); err != nil { // SIGKILL: no handler runs
			t.Fatal(err)
		}
		_ = child.Wait()
		if got := status(t); got != stopped {
			t.Errorf("after SIGKILL: %q, want %q", got, stopped)
		}
	})

	cases := []struct {
		name    string
		lock    string // lock file contents; "-": no lock file; "held": held in-process
		idle    time.Duration
		slowest float64
		want    string
	}{
		{"held in-process", "held", time.Hour, 60, "ETA"},
		{"released", "", time.Hour, 60, stopped},
		{"released by a killed run", "pid 1 on " + host + " since 2026-01-01T00:00:00Z: fedcon sweep\n", time.Minute, 60, stopped},
		{"no lock file, recent", "-", time.Minute, 60, "ETA"},
		{"no lock file, stale", "-", 30 * time.Minute, 60, "shard 0: no progress for 30m (slowest trial 1m): stopped? rerun the shard to resume"},
		{"no lock file, slow trials", "-", 30 * time.Minute, 15 * 60, "ETA"},
		{"no lock file, no trial timed", "-", 30 * time.Minute, 0, "ETA"},
		{"another host's lock, stale", "pid 1 on fedcon-test-other-host since 2026-01-01T00:00:00Z: fedcon sweep\n", 2 * time.Hour, 60,
			"shard 0: no progress for 2h0m (slowest trial 1m): stopped? rerun the shard to resume"},
		{"another host's lock, recent", "pid 1 on fedcon-test-other-host since 2026-01-01T00:00:00Z: fedcon sweep\n", time.Minute, 60, "ETA"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			unfinished(t, c.idle, c.slowest)
			_ = os.Remove(lockFile)
			switch c.lock {
			case "-":
			case "held":
				l, err := experiments.LockDir(dir, "test")
				if err != nil {
					t.Fatal(err)
				}
				defer l.Unlock()
			default:
				if err := os.WriteFile(lockFile, []byte(c.lock), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got := status(t)
			if c.want == "ETA" {
				if strings.Contains(got, "stopped") || strings.Contains(got, "no progress") {
					t.Errorf("got %q, want an ETA", got)
				}
				return
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestTuneShardMerge: tune ssca-sgd in 3 shards and a merge writes the
// result JSON and the chosen rates of a one-process search; no shard
// writes rates.
func TestTuneShardMerge(t *testing.T) {
	testutil.Slow(t)
	root := t.TempDir()
	tiny := t.TempDir()
	writeTinyIDX(t, tiny, 1000, 20, nil) // 100 images per client: FedAvg's largest batch
	grid := filepath.Join(root, "grid.yaml")
	if err := os.WriteFile(grid, []byte("a: [0.1, 1]\nbeta: [0, 0.5]\nseed: 100001\nseeds: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rates := filepath.Join(root, "sgd-lr.yaml")
	args := []string{"tune", "ssca-sgd", "--dataset", "mnist", "--data-dir", tiny, "--rounds", "4", "--grid", grid, "--write", rates, "--quiet"}
	exec := func(extra ...string) {
		t.Helper()
		f, _, errOut := testFactory()
		if code := run(context.Background(), f, append(slices.Clone(args), extra...)); code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errOut)
		}
	}
	one := filepath.Join(root, "one")
	exec("--out", one)
	want, err := os.ReadFile(rates)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(rates); err != nil {
		t.Fatal(err)
	}
	var shards []string
	for k := 0; k < 3; k++ {
		d := filepath.Join(root, fmt.Sprintf("shard-%d", k))
		exec("--out", d, "--shard", fmt.Sprintf("%d/3", k), "--workers", "1")
		if got := resultJSON(t, d); len(got) != 0 {
			t.Errorf("shard %d wrote results %v", k, slices.Sorted(mapKeys(got)))
		}
		if _, err := os.Stat(rates); err == nil {
			t.Fatalf("shard %d wrote the rates", k)
		}
		shards = append(shards, d)
	}
	merged := filepath.Join(root, "merged")
	f, _, errOut := testFactory()
	if code := run(context.Background(), f, []string{"merge", merged, filepath.Join(root, "shard-*")}); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	if w, g := resultJSON(t, one), resultJSON(t, merged); len(w) == 0 || !reflect.DeepEqual(w, g) {
		t.Errorf("merged results differ from the one-process run's (%d and %d files)", len(g), len(w))
	}
	if got, err := os.ReadFile(rates); err != nil || string(got) != string(want) {
		t.Errorf("merged rates %q (%v), want %q", got, err, want)
	}
	all := 0
	for _, d := range shards {
		s, err := findShards(d)
		if err != nil || len(s) != 1 || len(s[0].m.Owned) == 0 {
			t.Fatalf("%s: %d manifests, %v", d, len(s), err)
		}
		all += len(s[0].m.Owned)
	}
	if want := 2 * 2 * 2 * 2; all < want { // baselines × a × beta × seeds
		t.Errorf("shards own %d trials, want at least %d", all, want)
	}
}

// TestStatusStoppedShards: several stopped or stale shards of one
// experiment are named on one line.
func TestStatusStoppedShards(t *testing.T) {
	now := time.Now()
	shards := func(t *testing.T, lock bool) []*foundShard {
		var all []*foundShard
		for k := 0; k < 3; k++ {
			root := t.TempDir()
			if lock {
				if err := os.MkdirAll(filepath.Join(root, "e"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, "e", experiments.LockFile), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			m := shardManifest{Schema: shardManifestSchema, Experiment: "e", Shard: k, Shards: 3, Owned: []string{"trials/a.json"},
				TrialWall: map[string]float64{"trials/b.json": 60}, Start: now.Add(-2 * time.Hour), Updated: now.Add(-time.Hour)}
			m.Complete = k == 1
			all = append(all, &foundShard{root: root, dir: "e", file: fmt.Sprintf("shard-%d-of-3.json", k), m: m})
		}
		return all
	}
	cases := []struct {
		name string
		lock bool
		want string
	}{
		{"locks free", true, "shards 0, 2 stopped (not complete; rerun them to resume)"},
		{"no locks, stale", false, "shards 0, 2: no progress for over twice their slowest trial + 5m: stopped? rerun them to resume"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tb := statusTable(shards(t, c.lock), now)
			if len(tb.Rows) != 1 || tb.Rows[0][len(tb.Rows[0])-1] != c.want {
				t.Errorf("rows %q, want one ending in %q", tb.Rows, c.want)
			}
		})
	}
}

// TestStatusETARunning: a shard still running never shows an ETA of 0s,
// even when it has done every trial it has taken so far.
func TestStatusETARunning(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		name        string
		owned, done int
		want        string
	}{
		// 2 trials computed in 20 s: 10 s per trial.
		{"two trials left", 4, 2, "20s"},
		{"every trial taken done", 2, 2, "at least 10s (shards still taking trials)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, "e", "trials"), 0o755); err != nil {
				t.Fatal(err)
			}
			m := shardManifest{Schema: shardManifestSchema, Experiment: "e", Shard: 0, Shards: 1,
				TrialWall: map[string]float64{"trials/t0.json": 10, "trials/t1.json": 10}, Start: now.Add(-20 * time.Second), Updated: now}
			for i := range c.owned {
				p := fmt.Sprintf("trials/t%d.json", i)
				m.Owned = append(m.Owned, p)
				if i < c.done {
					m.Done = append(m.Done, p)
					if err := os.WriteFile(filepath.Join(root, "e", p), []byte("{}"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			tb := statusTable([]*foundShard{{root: root, dir: "e", file: "shard-0-of-1.json", m: m}}, now)
			if got := tb.Rows[0][len(tb.Rows[0])-1]; got != c.want {
				t.Errorf("ETA %q, want %q", got, c.want)
			}
		})
	}
}

// TestDryRun: --dry-run checks the configuration, --shard and the cost and
// writes nothing; a bad value fails it as it would fail the run.
func TestDryRun(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want int
	}{
		{"one experiment", []string{"reproduce", "table4", "--shard", "0/4"}, 0},
		{"reproduce all", []string{"reproduce", "all", "--quick", "--only", "table4", "--shard", "1/4"}, 0},
		{"bad value", []string{"reproduce", "table4", "--beta", "-1", "--shard", "0/4"}, 2},
		{"bad shard", []string{"reproduce", "table4", "--shard", "4/4"}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, _, errOut := testFactory()
			dir := t.TempDir()
			code := run(context.Background(), f, append(c.args, "--dry-run", "--out", dir))
			if code != c.want {
				t.Fatalf("exit %d, want %d: %s", code, c.want, errOut)
			}
			if c.want == 0 && !strings.Contains(errOut.String(), "dry run") {
				t.Errorf("stderr %q does not say it was a dry run", errOut)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("a dry run wrote %d entries into --out", len(entries))
			}
		})
	}
}
