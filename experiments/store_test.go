package experiments

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStoreIgnoresBadFiles: a truncated or foreign file is recomputed.
func TestStoreIgnoresBadFiles(t *testing.T) {
	dir := t.TempDir()
	s := &Store{Dir: dir, Hash: "h"}
	for name, body := range map[string]string{"a": `{"config_hash": "h", "key": "a", "tri`, "b": `{"config_hash": "h", "key": "other", "trial": 1}`} {
		if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		var v int
		if s.Load(name, &v) {
			t.Errorf("%s: loaded a bad file", name)
		}
	}
	if err := s.Save("c", 1, 7); err != nil {
		t.Fatal(err)
	}
	var v int
	if !s.Load("c", &v) || v != 7 {
		t.Errorf("round trip: %d", v)
	}
}

// TestLockDir: a second lock on a directory fails naming the holder (pid
// and command) until the first is released; taking the lock removes the
// temporary files a killed writer left, and nothing else.
func TestLockDir(t *testing.T) {
	dir := t.TempDir()
	stale := []string{filepath.Join(dir, ".table4.json.tmp123"), filepath.Join(dir, "trials", ".n1-d5-m1-t00.json.tmp9")}
	keep := []string{filepath.Join(dir, "table4.json"), filepath.Join(dir, "trials", "n1-d5-m1-t00.json")}
	for _, p := range append(stale, keep...) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := LockDir(dir, "fedcon first")
	if err != nil {
		t.Fatal(err)
	}
	if l.Cleaned != len(stale) {
		t.Errorf("cleaned %d, want %d", l.Cleaned, len(stale))
	}
	for _, p := range stale {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s not removed", p)
		}
	}
	for _, p := range keep {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed", p)
		}
	}
	_, err = LockDir(dir, "fedcon second")
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) || !strings.Contains(err.Error(), "fedcon first") {
		t.Fatalf("second lock: %v", err)
	}
	l.Unlock()
	l2, err := LockDir(dir, "fedcon third")
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	l2.Unlock()
}

// TestStoreKeepsOtherConfigurations: a trial file of another trial hash is
// never replaced: the run computing the trial moves it to @<hash>/, a run of
// that configuration takes it back (reused, not recomputed), and the store
// counts what it set aside. Only valid trial hashes name directories.
func TestStoreKeepsOtherConfigurations(t *testing.T) {
	const hashA, hashB = "aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"
	type trial struct {
		X int `json:"x"`
	}
	run := func(dir, hash string, x int, force bool) (trial, StoreCounts) {
		t.Helper()
		s := &Store{Dir: dir, Hash: hash, Version: "v", Force: force, Warn: func(msg string) { t.Errorf("unexpected warning: %s", msg) }}
		v, err := Cached(s, "k-t00", 1, func() (trial, error) { return trial{x}, nil })
		if err != nil {
			t.Fatal(err)
		}
		return v, s.Counts()
	}
	stored := func(p string) string {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			return ""
		}
		var st StoredTrial
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, st.Trial); err != nil {
			t.Fatal(err)
		}
		return st.ConfigHash + ":" + c.String()
	}
	dir := t.TempDir()
	main := filepath.Join(dir, "k-t00.json")
	steps := []struct {
		name                  string
		hash                  string
		force                 bool
		wantX                 int
		wantReused, wantAside int
		main, asideA, asideB  string
	}{
		{"A computes", hashA, false, 1, 0, 0, hashA + `:{"x":1}`, "", ""},
		{"A reuses", hashA, false, 1, 1, 0, hashA + `:{"x":1}`, "", ""},
		{"B keeps A aside", hashB, false, 3, 0, 1, hashB + `:{"x":3}`, hashA + `:{"x":1}`, ""},
		{"A takes its trial back, B aside", hashA, false, 1, 1, 1, hashA + `:{"x":1}`, "", hashB + `:{"x":3}`},
		{"B takes its trial back", hashB, false, 3, 1, 1, hashB + `:{"x":3}`, hashA + `:{"x":1}`, ""},
		{"B --force recomputes its own in place", hashB, true, 6, 0, 0, hashB + `:{"x":6}`, hashA + `:{"x":1}`, ""},
		// --force does not look aside: the older copy of A stays there.
		{"A --force sets B aside", hashA, true, 7, 0, 1, hashA + `:{"x":7}`, hashA + `:{"x":1}`, hashB + `:{"x":6}`},
	}
	for i, st := range steps {
		v, c := run(dir, st.hash, i+1, st.force)
		aside := 0
		for _, n := range c.SetAside {
			aside += n
		}
		if v.X != st.wantX || c.Reused != st.wantReused || aside != st.wantAside {
			t.Errorf("step %q: x %d reused %d set aside %d, want %d %d %d", st.name, v.X, c.Reused, aside, st.wantX, st.wantReused, st.wantAside)
		}
		for _, f := range []struct{ path, want string }{{main, st.main}, {AsidePath(dir, "k-t00", hashA), st.asideA}, {AsidePath(dir, "k-t00", hashB), st.asideB}} {
			if got := stored(f.path); got != f.want {
				t.Errorf("step %q: %s holds %q, want %q", st.name, f.path, got, f.want)
			}
		}
	}
	// A file whose hash is no trial hash is not a directory name: it is
	// replaced with a warning, never moved.
	if err := os.WriteFile(main, []byte(`{"schema":3,"config_hash":"../../x","fedcon_version":"v","key":"k-t00","seed":1,"trial":{"x":0}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var warned []string
	s := &Store{Dir: dir, Hash: hashA, Version: "v", Warn: func(m string) { warned = append(warned, m) }}
	if _, err := Cached(s, "k-t00", 1, func() (trial, error) { return trial{9}, nil }); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "not a trial hash") || stored(main) != hashA+`:{"x":9}` {
		t.Errorf("foreign hash: warnings %q, file %q", warned, stored(main))
	}
}
