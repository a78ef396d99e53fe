package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
)

// TestReportCommand: report writes index.html and report.md into the
// results directory and prints their paths; a broken file is a warning on
// stderr, not a failure; no directory or no results is a usage error.
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	f, out, errOut := testFactory()
	if code := run(context.Background(), f, []string{"report", filepath.Join(dir, "none")}); code != 2 || !strings.Contains(errOut.String(), "no such directory") {
		t.Fatalf("missing dir: exit %d (%s)", code, errOut)
	}
	errOut.Reset()
	if code := run(context.Background(), f, []string{"report", dir}); code != 2 || !strings.Contains(errOut.String(), "no results in") {
		t.Fatalf("empty dir: exit %d (%s)", code, errOut)
	}
	if code := run(context.Background(), f, []string{"reproduce", "table4", "--config", writeConfig(t, dir, "cells: [[2, 10, 1]]\ntrials: 2\n"), "--out", dir, "--quiet"}); code != 0 {
		t.Fatalf("reproduce: exit %d (%s)", code, errOut)
	}
	if err := os.MkdirAll(filepath.Join(dir, "broken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken", "manifest.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errOut.Reset()
	if code := run(context.Background(), f, []string{"report", dir}); code != 0 {
		t.Fatalf("report: exit %d (%s)", code, errOut)
	}
	want := filepath.Join(dir, "index.html") + "\n" + filepath.Join(dir, "report.md") + "\n"
	if out.String() != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	if w := errOut.String(); strings.Count(w, "\n") != 1 || !strings.Contains(w, "warning: broken/manifest.json: invalid manifest") {
		t.Errorf("stderr %q, want one warning about broken/manifest.json", w)
	}
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run(context.Background(), f, []string{"report", "--json", dir}); code != 0 {
		t.Fatalf("report --json: exit %d (%s)", code, errOut)
	}
	var doc struct {
		Written  []string
		Runs     int
		Gates    []struct{ Pass bool }
		Warnings []string
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Written) != 2 || doc.Runs != 2 ||
		len(doc.Gates) != 1 || doc.Gates[0].Pass || len(doc.Warnings) != 1 {
		t.Errorf("report --json: %v %+v", err, doc)
	}
	// The page's verdict is the check command's: broken/, a manifest that
	// is not JSON without its result, fails both.
	out.Reset()
	if code := run(context.Background(), f, []string{"check", "--json", dir}); code != 1 {
		t.Fatalf("check: exit %d (%s)", code, errOut)
	}
	var rows []experiments.CheckRow
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil || len(rows) == 0 {
		t.Fatalf("check --json: %v (%d rows)", err, len(rows))
	}
	verdict := fmt.Sprintf("FAIL: %d checks, 1 failed", len(rows))
	for _, s := range []string{"Table 4", verdict, `href="table4/manifest.json"`, "broken/manifest.json"} {
		if !strings.Contains(string(page), s) {
			t.Errorf("index.html lacks %q", s)
		}
	}
}
