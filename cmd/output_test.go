package cmd

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
)

// TestRunOutputBegin: opening a run replaces a finished run's manifest of
// another configuration with an incomplete one of its own before any work
// (a run killed then never leaves the old one claiming completion), and a
// second opening of the same directory fails naming the holder.
func TestRunOutputBegin(t *testing.T) {
	dir := t.TempDir()
	f, _, _ := testFactory()
	o := &commonOptions{OutDir: dir, Quiet: true}
	old := map[string]any{"experiment": "table4", "config_hash": "0123456789abcdef", "complete": true, "trial_files": []string{"n9-d9-m1-t00.json"}}
	b, _ := json.Marshal(old)
	if err := os.MkdirAll(filepath.Join(dir, "table4"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "table4", "manifest.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{"seed": 2}
	out, err := newRunOutput(f, o, "table4", cfg, 2, "feedfacefeedface", 1)
	if err != nil {
		t.Fatal(err)
	}
	var m experiments.Manifest
	if b, err = os.ReadFile(filepath.Join(dir, "table4", "manifest.json")); err != nil || json.Unmarshal(b, &m) != nil {
		t.Fatalf("manifest: %v", err)
	}
	if m.Complete || m.ConfigHash != experiments.ConfigHash(cfg) || m.TrialHash != "feedfacefeedface" || len(m.TrialFiles) != 0 || !strings.Contains(m.Error, "running") {
		t.Errorf("manifest at the start of a run: complete %v, config %s, trial hash %s, files %v, error %q", m.Complete, m.ConfigHash, m.TrialHash, m.TrialFiles, m.Error)
	}
	if _, err := newRunOutput(f, o, "table4", cfg, 2, "feedfacefeedface", 1); !errors.Is(err, experiments.ErrLocked) || exitCode(err) != exitFailure {
		t.Errorf("second open: %v (exit %d), want ErrLocked, exit 1", err, exitCode(err))
	}
	out.unlock()
	again, err := newRunOutput(f, o, "table4", cfg, 2, "feedfacefeedface", 1)
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	again.unlock()
}
