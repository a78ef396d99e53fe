package experiments

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrialHash: the keys that only select cells and trials do not change
// the hash; a parameter does.
func TestTrialHash(t *testing.T) {
	base := smallQP()
	h := base.TrialHash()
	more := smallQP()
	more.Trials, more.Cells = 10, [][]int{{5, 100, 10}}
	if more.TrialHash() != h {
		t.Errorf("trials/cells changed the trial hash")
	}
	other := smallQP()
	other.Beta = 11
	if other.TrialHash() == h {
		t.Errorf("beta did not change the trial hash")
	}
	if ConfigHash(more) == ConfigHash(base) {
		t.Errorf("the run's config hash must still see trials and cells")
	}
}

// TestStoreResume: a rerun reuses stored trials (a tampered stored value
// shows up in the result), adding trials computes only the new ones, and
// another configuration or Force recomputes.
func TestStoreResume(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	cfg := smallQP()
	cfg.Cells, cfg.Trials = [][]int{{2, 10, 1}}, 2
	newStore := func(c *QPConfig, force bool) *Store {
		return &Store{Dir: dir, Hash: c.TrialHash(), Force: force, Version: "test"}
	}
	s := newStore(cfg, false)
	first, err := RunQP(ctx, cfg, RunOptions{Workers: 2, Store: s})
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Counts(); c.Computed != 2 || c.Reused != 0 {
		t.Fatalf("first run: %+v", c)
	}
	files, _ := s.Files()
	if strings.Join(files, ",") != "n2-d10-m1-t00.json,n2-d10-m1-t01.json" {
		t.Fatalf("files = %v", files)
	}

	// An identical rerun reuses both and aggregates to the same rows.
	s = newStore(cfg, false)
	again, err := RunQP(ctx, cfg, RunOptions{Workers: 1, Store: s})
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Counts(); c.Computed != 0 || c.Reused != 2 || c.ReusedVersions["test"] != 2 {
		t.Fatalf("rerun: %+v", c)
	}
	a, _ := json.Marshal(first.Rows)
	b, _ := json.Marshal(again.Rows)
	if string(a) != string(b) {
		t.Fatalf("resumed rows differ:\n%s\n%s", a, b)
	}

	// Tamper with trial 1: a reuse must read it back.
	p := filepath.Join(dir, "n2-d10-m1-t01.json")
	raw, _ := os.ReadFile(p)
	var st storedTrial
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	var tr QPTrial
	_ = json.Unmarshal(st.Trial, &tr)
	tr.Alg1.Objective = 123
	st.Trial, _ = json.Marshal(tr)
	raw, _ = json.Marshal(st)
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg3 := *cfg
	cfg3.Trials = 3
	s = newStore(&cfg3, false)
	res, err := RunQP(ctx, &cfg3, RunOptions{Workers: 2, Store: s})
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Counts(); c.Computed != 1 || c.Reused != 2 {
		t.Fatalf("3 trials: %+v", c)
	}
	if res.Trials[1].Alg1.Objective != 123 {
		t.Fatalf("trial 1 was recomputed, not reused")
	}

	// Another beta, or Force: recomputed.
	other := cfg3
	other.Beta = 20
	for _, s := range []*Store{newStore(&other, false), newStore(&cfg3, true)} {
		c := &cfg3
		if s.Hash != cfg3.TrialHash() {
			c = &other
		}
		res, err := RunQP(ctx, c, RunOptions{Workers: 2, Store: s})
		if err != nil {
			t.Fatal(err)
		}
		if n := s.Counts(); n.Computed != 3 || n.Reused != 0 || res.Trials[1].Alg1.Objective == 123 {
			t.Fatalf("force=%v: %+v", s.Force, n)
		}
	}
}

// TestStoreIgnoresBadFiles: a truncated or foreign file is recomputed.
func TestStoreIgnoresBadFiles(t *testing.T) {
	dir := t.TempDir()
	s := &Store{Dir: dir, Hash: "h"}
	for name, body := range map[string]string{"a": `{"config_hash": "h", "key": "a", "tri`, "b": `{"config_hash": "h", "key": "other", "trial": 1}`} {
		if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		var v int
		if s.load(name, &v) {
			t.Errorf("%s: loaded a bad file", name)
		}
	}
	if err := s.save("c", 1, 7); err != nil {
		t.Fatal(err)
	}
	var v int
	if !s.load("c", &v) || v != 7 {
		t.Errorf("round trip: %d", v)
	}
}

// TestStoreKeepsTrialsOnCancel: cancelling after the first finished trial
// (Ctrl-C) keeps it on disk, and the rerun reuses it and computes the rest.
func TestStoreKeepsTrialsOnCancel(t *testing.T) {
	dir := t.TempDir()
	cfg := smallQP()
	cfg.Cells, cfg.Trials = [][]int{{2, 10, 1}}, 3
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &Store{Dir: dir, Hash: cfg.TrialHash()}
	_, err := RunQP(ctx, cfg, RunOptions{Workers: 1, Store: s, Progress: func(done, total int, _ string) {
		if done == 1 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	kept := s.Counts().Computed
	if files, _ := s.Files(); kept < 1 || len(files) != kept {
		t.Fatalf("kept %d trials, files %v", kept, files)
	}
	s = &Store{Dir: dir, Hash: cfg.TrialHash()}
	res, err := RunQP(context.Background(), cfg, RunOptions{Workers: 1, Store: s})
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Counts(); c.Reused != kept || c.Reused+c.Computed != 3 || len(res.Trials) != 3 {
		t.Fatalf("rerun: %+v, %d trials", c, len(res.Trials))
	}
}
