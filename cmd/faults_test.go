package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/proxal"
)

// The process-level fault tests (`make test-faults`) build fedcon, run it,
// kill it and tamper with what it wrote. They need FEDCON_FAULTS=1.

// faultBinary builds fedcon into a temporary directory.
func faultBinary(t *testing.T) string {
	t.Helper()
	if os.Getenv("FEDCON_FAULTS") == "" {
		t.Skip("process-level fault test: set FEDCON_FAULTS=1 (make test-faults)")
	}
	bin := filepath.Join(t.TempDir(), "fedcon")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/fedcon/fedcon").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// faultRun runs fedcon to the end and returns its exit code and stderr.
func faultRun(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, bin, args...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	err := c.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stderr.String()
	}
	t.Fatalf("%v: %v", args, err)
	return -1, ""
}

// faultTable4 is a Table 4 run slow enough to be killed mid-way (seconds).
func faultTable4(out string) []string {
	return []string{"reproduce", "table4", "--cells", "5x500x5,1x300x3", "--trials", "5", "--workers", "1", "--out", out}
}

// trialFiles lists the finished trial files of dir/table4.
func trialFiles(t *testing.T, out string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(out, "table4", "trials", "*.json"))
	return m
}

// waitFor polls cond every 10 ms until it holds or the process exits.
func waitFor(t *testing.T, c *exec.Cmd, done <-chan error, what string, cond func() bool) {
	t.Helper()
	for {
		select {
		case err := <-done:
			t.Fatalf("fedcon exited (%v) before %s", err, what)
		case <-time.After(10 * time.Millisecond):
		}
		if cond() {
			return
		}
	}
}

func readManifest(t *testing.T, out string) experiments.Manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "table4", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m experiments.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// deterministic is a result file without what may differ between runs
// (wall times, the run record).
func deterministic(t *testing.T, out string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "table4", "table4.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r proxal.QPResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	r.Info = nil
	for i := range r.Trials {
		for _, a := range []*proxal.QPAlg{&r.Trials[i].Alg1, &r.Trials[i].CProx} {
			a.Wall, a.Stats.Runtime = 0, 0
		}
	}
	for i := range r.Rows {
		r.Rows[i].Wall1, r.Rows[i].WallC = experiments.MeanStd{}, experiments.MeanStd{}
	}
	b, _ = json.Marshal(r)
	return string(b)
}

// TestFaultKillResume: SIGKILL mid-run leaves finished trials, maybe a
// temporary file, and a manifest that says incomplete (the gate fails);
// the rerun removes the temporary file, reuses the trials, and writes the
// same results as an uninterrupted run; the gate then passes.
func TestFaultKillResume(t *testing.T) {
	bin := faultBinary(t)
	ref := t.TempDir()
	if code, errOut := faultRun(t, bin, append(faultTable4(ref), "--quiet")...); code != 0 {
		t.Fatalf("uninterrupted run: exit %d\n%s", code, errOut)
	}
	out := t.TempDir()
	c := exec.Command(bin, append(faultTable4(out), "--quiet")...)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	waitFor(t, c, done, "its first trial", func() bool { return len(trialFiles(t, out)) >= 1 })
	_ = c.Process.Signal(syscall.SIGKILL)
	<-done
	kept := len(trialFiles(t, out))
	if kept >= 10 {
		t.Skipf("the run finished all %d trials before SIGKILL", kept)
	}
	// A write cut short by the kill.
	stale := filepath.Join(out, "table4", "trials", ".n1-d300-m3-t04.json.tmp4242")
	if err := os.WriteFile(stale, []byte(`{"schema": 2, "tri`), 0o600); err != nil {
		t.Fatal(err)
	}
	if m := readManifest(t, out); m.Complete {
		t.Fatalf("after SIGKILL the manifest says complete")
	}
	if code, _ := faultRun(t, bin, "check", out); code != 1 {
		t.Errorf("gate on a killed run: exit %d, want 1", code)
	}
	code, errOut := faultRun(t, bin, faultTable4(out)...)
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "removed 1 temporary files") {
		t.Errorf("resume did not report the stale temporary file:\n%s", errOut)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("stale %s left", stale)
	}
	m := readManifest(t, out)
	if !m.Complete || m.Reused != kept || m.Reused+m.Computed != 10 || len(m.TrialFiles) != 10 {
		t.Errorf("manifest after resume: complete %v, reused %d (kept %d), computed %d, %d files", m.Complete, m.Reused, kept, m.Computed, len(m.TrialFiles))
	}
	if deterministic(t, out) != deterministic(t, ref) {
		t.Errorf("resumed results differ from an uninterrupted run")
	}
	if code, errOut := faultRun(t, bin, "check", out); code != 0 {
		t.Errorf("gate after resume: exit %d\n%s", code, errOut)
	}
}

// TestFaultConcurrentRuns: a second run on the same directory exits 1 at
// once, naming the holder's pid and command, and writes nothing; the first
// finishes alone and passes the gate.
func TestFaultConcurrentRuns(t *testing.T) {
	bin := faultBinary(t)
	out := t.TempDir()
	first := exec.Command(bin, append(faultTable4(out), "--quiet")...)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- first.Wait() }()
	holder := fmt.Sprintf("pid %d", first.Process.Pid)
	waitFor(t, first, done, "taking its lock", func() bool {
		b, _ := os.ReadFile(filepath.Join(out, "table4", experiments.LockFile))
		return strings.Contains(string(b), holder)
	})
	start := time.Now()
	code, errOut := faultRun(t, bin, append(faultTable4(out), "--quiet")...)
	if code != 1 || !strings.Contains(errOut, "in use") || !strings.Contains(errOut, holder) || !strings.Contains(errOut, "reproduce table4") {
		t.Errorf("second run: exit %d, stderr %q; want 1 naming %s", code, errOut, holder)
	}
	if lines := strings.Count(strings.TrimSpace(errOut), "\n"); lines > 0 {
		t.Errorf("second run printed %d lines, want one", lines+1)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("second run took %v to refuse", d)
	}
	if err := <-done; err != nil {
		t.Fatalf("first run: %v", err)
	}
	m := readManifest(t, out)
	if !m.Complete || m.Computed != 10 || m.Reused != 0 {
		t.Errorf("first run's manifest: complete %v, computed %d, reused %d", m.Complete, m.Computed, m.Reused)
	}
	if code, errOut := faultRun(t, bin, "check", out); code != 0 {
		t.Errorf("gate: exit %d\n%s", code, errOut)
	}
}

// TestFaultStoredFiles: through the binary, an incomplete trial file is
// named in one warning and recomputed (the rerun's results equal the
// first's), and a tampered table or trial fails the gate with exit 1.
func TestFaultStoredFiles(t *testing.T) {
	bin := faultBinary(t)
	out := t.TempDir()
	args := []string{"reproduce", "table4", "--cells", "1x100x1,5x100x1", "--trials", "2", "--out", out}
	if code, errOut := faultRun(t, bin, append(args, "--quiet")...); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	want := deterministic(t, out)
	if code, errOut := faultRun(t, bin, "check", out); code != 0 {
		t.Fatalf("gate on an honest run: exit %d\n%s", code, errOut)
	}
	trial := filepath.Join(out, "table4", "trials", "n5-d100-m1-t01.json")
	orig, err := os.ReadFile(trial)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(old, new string) {
		t.Helper()
		if !bytes.Contains(orig, []byte(old)) {
			t.Fatalf("%s has no %q", trial, old)
		}
		if err := os.WriteFile(trial, bytes.Replace(orig, []byte(old), []byte(new), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit(`"objective": `, `"objective": null, "x": `)
	code, errOut := faultRun(t, bin, args...)
	if code != 0 || !strings.Contains(errOut, "warning: "+trial) || !strings.Contains(errOut, "objective is null") {
		t.Fatalf("rerun over a null objective: exit %d\n%s", code, errOut)
	}
	if got := deterministic(t, out); got != want {
		t.Errorf("results after recomputing differ")
	}
	for _, c := range []struct {
		name   string
		tamper func()
	}{
		{"table {}", func() { os.WriteFile(filepath.Join(out, "table4", "table4.json"), []byte("{}"), 0o644) }},
		{"KKT residual 500x", func() {
			orig, _ = os.ReadFile(trial)
			edit(`"stationarity": `, `"stationarity": 0.5, "x": `)
		}},
	} {
		saved := map[string][]byte{}
		for _, p := range []string{filepath.Join(out, "table4", "table4.json"), trial} {
			saved[p], _ = os.ReadFile(p)
		}
		c.tamper()
		if code, errOut := faultRun(t, bin, "check", out); code != 1 || !strings.Contains(errOut, "fedcon check: failed") {
			t.Errorf("%s: gate exit %d, want 1\n%s", c.name, code, errOut)
		}
		for p, b := range saved {
			os.WriteFile(p, b, 0o644)
		}
	}
}

// TestFaultShardRoles: the exit codes of the shard and merge roles with a
// lost peer. Shard 1 is killed with SIGKILL mid-run: the merge exits 1
// naming it as unfinished. Rerun and stopped by SIGTERM, the shard exits
// 130. Rerun to the end, it exits 0 and the merge then exits 0.
func TestFaultShardRoles(t *testing.T) {
	bin := faultBinary(t)
	root := t.TempDir()
	shard := func(k int) []string {
		return append(faultTable4(filepath.Join(root, fmt.Sprintf("s%d", k))), "--shard", fmt.Sprintf("%d/2", k), "--quiet")
	}
	if code, errOut := faultRun(t, bin, shard(0)...); code != 0 {
		t.Fatalf("shard 0: exit %d\n%s", code, errOut)
	}
	merge := []string{"merge", filepath.Join(root, "merged"), filepath.Join(root, "s0"), filepath.Join(root, "s1")}
	// stop runs shard 1 until it has a trial file, then sends sig.
	stop := func(sig syscall.Signal) int {
		c := exec.Command(bin, shard(1)...)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		before := len(trialFiles(t, filepath.Join(root, "s1")))
		waitFor(t, c, done, "a new trial", func() bool { return len(trialFiles(t, filepath.Join(root, "s1"))) > before })
		_ = c.Process.Signal(sig)
		err := <-done
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("shard 1 after %v: %v", sig, err)
		}
		return ee.ExitCode()
	}
	stop(syscall.SIGKILL)
	if code, errOut := faultRun(t, bin, merge...); code != 1 || !strings.Contains(errOut, "shard 1 of 2 not finished") {
		t.Errorf("merge with shard 1 killed: exit %d, want 1 naming shard 1\n%s", code, errOut)
	}
	if code := stop(syscall.SIGTERM); code != exitInterrupted {
		t.Errorf("shard stopped by SIGTERM: exit %d, want %d", code, exitInterrupted)
	}
	if code, errOut := faultRun(t, bin, shard(1)...); code != 0 {
		t.Fatalf("shard 1 rerun: exit %d\n%s", code, errOut)
	}
	if code, errOut := faultRun(t, bin, merge...); code != 0 {
		t.Errorf("merge of both shards: exit %d\n%s", code, errOut)
	}
}

// TestFaultForgedPoint: through the binary, a Table 1 trial file whose
// stored point w or multipliers μ were edited, the table then rebuilt from
// it by a rerun (which reuses the valid-looking file), fails the gate's
// recomputed certificate with exit 1; the honest run passes.
func TestFaultForgedPoint(t *testing.T) {
	bin := faultBinary(t)
	if os.Getenv("FEDCON_DATA_DIR") == "" {
		t.Skip("FEDCON_DATA_DIR not set: the forged point needs breast-cancer-wisc")
	}
	out := t.TempDir()
	args := []string{"reproduce", "table1", "--datasets", "breast-cancer-wisc", "--clients", "2", "--trials", "1", "--out", out, "--quiet"}
	gate := func() (int, string) {
		t.Helper()
		c := exec.Command(bin, "check", "--wide", out)
		b, err := c.Output()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0, string(b)
		case errors.As(err, &ee):
			return ee.ExitCode(), string(b)
		}
		t.Fatal(err)
		return -1, ""
	}
	if code, errOut := faultRun(t, bin, args...); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	if code, stdout := gate(); code != 0 || !strings.Contains(stdout, "certificate recomputed") {
		t.Fatalf("gate on an honest run: exit %d\n%s", code, stdout)
	}
	trial := filepath.Join(out, "table1", "trials", "breast-cancer-wisc-n2-t00.json")
	orig, err := os.ReadFile(trial)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		edit func(tr map[string]any)
	}{
		{"edited w", func(tr map[string]any) {
			w := tr["alg1"].(map[string]any)["w"].([]any)
			w[0] = w[0].(float64) + 0.01
		}},
		{"edited μ", func(tr map[string]any) {
			mu := tr["cprox"].(map[string]any)["mu"].([]any)[1].([]any)
			mu[0] = mu[0].(float64)*2 + 0.01
		}},
	} {
		var f map[string]any
		if err := json.Unmarshal(orig, &f); err != nil {
			t.Fatal(err)
		}
		c.edit(f["trial"].(map[string]any))
		b, _ := json.Marshal(f)
		if err := os.WriteFile(trial, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if code, errOut := faultRun(t, bin, args...); code != 0 {
			t.Fatalf("%s: rebuild: exit %d\n%s", c.name, code, errOut)
		}
		code, stdout := gate()
		failed := ""
		for _, l := range strings.Split(stdout, "\n") {
			if strings.Contains(l, "FAIL") {
				failed += l + "\n"
			}
		}
		if code != 1 || !strings.Contains(failed, "certificate recomputed") {
			t.Errorf("%s: gate exit %d, want 1 with the certificate rule failing\n%s", c.name, code, stdout)
		}
		if err := os.WriteFile(trial, orig, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
