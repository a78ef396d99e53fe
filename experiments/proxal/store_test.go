package proxal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
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
	if experiments.ConfigHash(more) == experiments.ConfigHash(base) {
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
	newStore := func(c *QPConfig, force bool) *experiments.Store {
		return &experiments.Store{Dir: dir, Hash: c.TrialHash(), Force: force, Version: "test"}
	}
	s := newStore(cfg, false)
	first, err := RunQP(ctx, cfg, experiments.RunOptions{Workers: 2, Store: s})
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
	again, err := RunQP(ctx, cfg, experiments.RunOptions{Workers: 1, Store: s})
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
	var st experiments.StoredTrial
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
	res, err := RunQP(ctx, &cfg3, experiments.RunOptions{Workers: 2, Store: s})
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
	for _, s := range []*experiments.Store{newStore(&other, false), newStore(&cfg3, true)} {
		c := &cfg3
		if s.Hash != cfg3.TrialHash() {
			c = &other
		}
		res, err := RunQP(ctx, c, experiments.RunOptions{Workers: 2, Store: s})
		if err != nil {
			t.Fatal(err)
		}
		if n := s.Counts(); n.Computed != 3 || n.Reused != 0 || res.Trials[1].Alg1.Objective == 123 {
			t.Fatalf("force=%v: %+v", s.Force, n)
		}
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
	s := &experiments.Store{Dir: dir, Hash: cfg.TrialHash()}
	_, err := RunQP(ctx, cfg, experiments.RunOptions{Workers: 1, Store: s, Progress: func(done, total int, _ string) {
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
	s = &experiments.Store{Dir: dir, Hash: cfg.TrialHash()}
	res, err := RunQP(context.Background(), cfg, experiments.RunOptions{Workers: 1, Store: s})
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Counts(); c.Reused != kept || c.Reused+c.Computed != 3 || len(res.Trials) != 3 {
		t.Fatalf("rerun: %+v, %d trials", c, len(res.Trials))
	}
}

// TestStoreRecomputesInvalidFiles: a trial file that parses but fails
// validation is named in one warning line and recomputed, never reused as
// zeros; the rerun's rows equal a clean run's. A valid file of another
// configuration is replaced without a warning.
func TestStoreRecomputesInvalidFiles(t *testing.T) {
	cfg := smallQP()
	cfg.Cells, cfg.Trials = [][]int{{2, 10, 1}}, 2
	clean, err := RunQP(context.Background(), cfg, experiments.RunOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := stripWall(t, clean)
	const key = "n2-d10-m1-t00"
	cases := []struct {
		name string
		edit func(file, trial map[string]any)
		warn string // "" for no warning
	}{
		{"objective null", func(_, tr map[string]any) { tr["alg1"].(map[string]any)["objective"] = nil }, "trial.alg1.objective is null"},
		{"Algorithm 1 block missing", func(_, tr map[string]any) { delete(tr, "alg1") }, "trial.alg1 missing"},
		{"stats block missing", func(_, tr map[string]any) { delete(tr["cprox"].(map[string]any), "stats") }, "trial.cprox.stats missing"},
		{"trial null", func(f, _ map[string]any) { f["trial"] = nil }, "trial: want an object"},
		{"no schema (older format)", func(f, _ map[string]any) { delete(f, "schema") }, "no trial schema"},
		{"future schema", func(f, _ map[string]any) { f["schema"] = experiments.PointTrialSchema + 1 }, "trial schema 5"},
		{"older schema", func(f, _ map[string]any) { f["schema"] = experiments.TrialSchema }, "rerun the experiment"},
		{"no point", func(_, tr map[string]any) { delete(tr["alg1"].(map[string]any), "w") }, "no returned point"},
		{"seed missing", func(f, _ map[string]any) { delete(f, "seed") }, "file.seed missing"},
		{"version missing", func(f, _ map[string]any) { delete(f, "fedcon_version") }, "file.fedcon_version missing"},
		{"another key", func(f, _ map[string]any) { f["key"] = "n2-d10-m1-t01" }, "key"},
		{"negative residual", func(_, tr map[string]any) {
			tr["alg1"].(map[string]any)["kkt_residuals"].(map[string]any)["feasibility"] = -1.0
		}, "negative"},
		{"unknown status", func(_, tr map[string]any) { tr["cprox"].(map[string]any)["status"] = "Great" }, "unknown status"},
		{"cell zero", func(_, tr map[string]any) { tr["n"] = 0.0 }, "bad cell"},
		{"another configuration", func(f, _ map[string]any) { f["config_hash"] = "0123456789abcdef" }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s := &experiments.Store{Dir: dir, Hash: cfg.TrialHash(), Version: "test"}
			if _, err := RunQP(context.Background(), cfg, experiments.RunOptions{Workers: 1, Store: s}); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, key+".json")
			editJSON(t, p, func(m map[string]any) {
				var tr map[string]any
				if v, ok := m["trial"].(map[string]any); ok {
					tr = v
				}
				c.edit(m, tr)
			})
			var warnings []string
			s = &experiments.Store{Dir: dir, Hash: cfg.TrialHash(), Version: "test", Warn: func(m string) { warnings = append(warnings, m) }}
			res, err := RunQP(context.Background(), cfg, experiments.RunOptions{Workers: 1, Store: s})
			if err != nil {
				t.Fatal(err)
			}
			if n := s.Counts(); n.Computed != 1 || n.Reused != 1 {
				t.Errorf("counts %+v, want 1 computed, 1 reused", n)
			}
			if got := stripWall(t, res); got != want {
				t.Errorf("rows after recomputing differ from a clean run")
			}
			switch {
			case c.warn == "" && len(warnings) > 0:
				t.Errorf("warnings %q, want none", warnings)
			case c.warn != "" && (len(warnings) != 1 || !strings.Contains(warnings[0], p) || !strings.Contains(warnings[0], c.warn) || strings.Contains(warnings[0], "\n")):
				t.Errorf("warnings %q, want one line naming %s and %q", warnings, p, c.warn)
			}
			// The recomputed file is valid again.
			s = &experiments.Store{Dir: dir, Hash: cfg.TrialHash(), Version: "test"}
			if _, err := RunQP(context.Background(), cfg, experiments.RunOptions{Workers: 1, Store: s}); err != nil || s.Counts().Reused != 2 {
				t.Errorf("third run: %+v, %v", s.Counts(), err)
			}
		})
	}
}

// TestHashRefusesUnencodable: a configuration with NaN or ±Inf has no hash
// (never the hash of an empty encoding, shared by every such configuration),
// and a store under it refuses before computing anything.
func TestHashRefusesUnencodable(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		cfg := smallQP()
		cfg.EpsFloor = v
		if _, err := experiments.HashConfig(cfg, "trials"); err == nil {
			t.Errorf("eps_floor %v: hashed", v)
		}
		if h := cfg.TrialHash(); h != "" {
			t.Errorf("eps_floor %v: trial hash %q", v, h)
		}
		if h := experiments.ConfigHash(cfg); h != "" {
			t.Errorf("eps_floor %v: config hash %q", v, h)
		}
		dir := t.TempDir()
		s := &experiments.Store{Dir: dir, Hash: cfg.TrialHash()}
		computed := false
		_, err := experiments.Cached(s, "k", 1, func() (int, error) { computed = true; return 1, nil })
		if err == nil || computed {
			t.Errorf("eps_floor %v: store ran a trial (err %v)", v, err)
		}
	}
	a, b := smallQP(), smallQP()
	b.EpsFloor = 1e-9
	if a.TrialHash() == b.TrialHash() || a.TrialHash() == "" {
		t.Errorf("distinct configurations share a hash")
	}
}

// FuzzDecodeTrial: the trial-file parser never panics, and whatever it
// accepts survives a save and a second validation unchanged.
func FuzzDecodeTrial(f *testing.F) {
	dir := f.TempDir()
	cfg := smallQP()
	cfg.Cells, cfg.Trials = [][]int{{1, 6, 1}}, 1
	s := &experiments.Store{Dir: dir, Hash: "h", Version: "test"}
	if _, err := RunQP(context.Background(), cfg, experiments.RunOptions{Workers: 1, Store: s}); err != nil {
		f.Fatal(err)
	}
	valid, err := os.ReadFile(filepath.Join(dir, "n1-d6-m1-t00.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add(bytes.Replace(valid, []byte(`"objective": `), []byte(`"objective": null, "x": `), 1))
	f.Add([]byte(`{"schema": 3, "config_hash": "h", "key": "n1-d6-m1-t00", "trial": {}}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var tr QPTrial
		if _, err := experiments.DecodeTrial(b, "n1-d6-m1-t00", "h", &tr); err != nil {
			return
		}
		s := &experiments.Store{Dir: t.TempDir(), Hash: "h", Version: "test"}
		if err := s.Save("n1-d6-m1-t00", 1, &tr); err != nil {
			t.Fatalf("accepted trial cannot be saved: %v", err)
		}
		var again QPTrial
		if !s.Load("n1-d6-m1-t00", &again) {
			t.Fatalf("accepted trial fails validation once saved")
		}
		x, _ := json.Marshal(&tr)
		y, _ := json.Marshal(&again)
		if !bytes.Equal(x, y) {
			t.Fatalf("round trip changed the trial:\n%s\n%s", x, y)
		}
	})
}
