package experiments

import (
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
