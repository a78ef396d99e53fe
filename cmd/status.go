package cmd

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/experiments"
)

func newCmdStatus(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "status DIR",
		Short: "Progress of a sharded run: finished/owned trials per experiment and an ETA",
		Long: `status reads the shard manifests and trial files under DIR (the shards' --out
directories, or one above them) and prints, per experiment, the shards seen,
the trials finished of those the shards have taken so far, and an estimate
of the time left from each shard's rate of finished trials.

An unfinished shard whose directory lock no process holds (a killed process's
lock is released by the kernel) is shown as stopped. Where the lock cannot be
probed (taken on another host, or no lock file), a shard whose manifest has not
changed for over twice its slowest trial plus 5 minutes is flagged as making
no progress. Rerun a stopped shard: it resumes.`,
		Example: "  fedcon status /shared/fedcon",
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if st, err := os.Stat(args[0]); err != nil || !st.IsDir() {
				return &FlagError{err: fmt.Errorf("status: %s: not a directory", args[0]), usage: c.CommandPath()}
			}
			all, err := findShards(args[0])
			if err != nil {
				return fmt.Errorf("status: %w", err)
			}
			if len(all) == 0 {
				return fmt.Errorf("status: no shard manifests (shard-K-of-N.json) under %s", args[0])
			}
			t := statusTable(all, time.Now())
			if json, _ := c.Flags().GetBool("json"); json {
				return printJSON(f.IO.Out, t)
			}
			return printTables(f.IO.Out, f.tableWidth(), t)
		},
	}
}

// statusTable summarises the shards by experiment (and result).
func statusTable(all []*foundShard, now time.Time) *experiments.Table {
	type agg struct {
		name, command      string
		shards, n, fin     int
		owned, done        int
		eta                float64 // seconds, the slowest shard's
		atLeast            bool    // a running shard has done every trial it took so far
		unknown, anyFailed bool
		stopped            int
		// killed are the shards that hold no lock but did not finish;
		// stale, those whose lock cannot be probed that made no progress
		// for long.
		killed, stale []string
		staleNote     string // the verdict of a stale shard
	}
	groups := map[string]*agg{}
	var order []string
	for _, s := range all {
		g := strings.TrimSuffix(shardFileRE.ReplaceAllString(s.file, "$3"), ".json")
		key := s.m.Experiment + g
		if _, seen := groups[key]; seen && groups[key].command != strings.Join(s.m.Command, " ") {
			key += " (" + strings.Join(s.m.Command, " ") + ")" // another run under the same directory
		}
		a := groups[key]
		if a == nil {
			a = &agg{name: key, n: s.m.Shards, command: strings.Join(s.m.Command, " ")}
			groups[key] = a
			order = append(order, key)
		}
		a.shards++
		done := 0
		for _, p := range s.m.Owned {
			if _, err := os.Stat(filepath.Join(s.root, s.dir, filepath.FromSlash(p))); err == nil {
				done++
			}
		}
		a.owned += len(s.m.Owned)
		a.done += done
		if s.m.Error != "" {
			a.anyFailed = true
		}
		if s.m.Interrupted {
			a.stopped++
		}
		if s.m.Complete {
			a.fin++
			continue
		}
		if s.m.Error == "" && !s.m.Interrupted {
			switch verdict := shardAlive(s, now); {
			case verdict == "":
			case verdict == "stopped":
				a.killed = append(a.killed, fmt.Sprint(s.m.Shard))
				continue
			default:
				a.stale = append(a.stale, fmt.Sprint(s.m.Shard))
				a.staleNote = verdict
				continue
			}
		}
		// The shard's rate: trials it computed over the time it has run.
		el := now.Sub(s.m.Start).Seconds()
		if len(s.m.TrialWall) == 0 || el <= 0 {
			a.unknown = true
			continue
		}
		rate := float64(len(s.m.TrialWall)) / el
		rem := float64(len(s.m.Owned)-done) / rate
		if done >= len(s.m.Owned) {
			// Not complete, yet every trial taken is done: the shard is
			// walking to its next cell. At least one trial is left.
			rem, a.atLeast = 1/rate, true
		}
		a.eta = max(a.eta, rem)
	}
	sort.Strings(order)
	t := &experiments.Table{Title: "sharded run status", Header: []string{"experiment", "shards (finished)", "trials done/taken", "ETA"}}
	for _, k := range order {
		a := groups[k]
		eta := "done"
		switch {
		case a.anyFailed:
			eta = "FAILED (see the shard manifest)"
		case a.fin == a.n && a.shards == a.n:
			eta = "done"
		case len(a.killed) == 1:
			eta = fmt.Sprintf("shard %s stopped (not complete; rerun the shard to resume)", a.killed[0])
		case len(a.killed) > 1:
			eta = fmt.Sprintf("shards %s stopped (not complete; rerun them to resume)", strings.Join(a.killed, ", "))
		case a.stopped > 0:
			eta = fmt.Sprintf("%d shards interrupted: rerun them", a.stopped)
		case len(a.stale) == 1:
			eta = "shard " + a.stale[0] + ": " + a.staleNote
		case len(a.stale) > 1: // one line however many
			eta = fmt.Sprintf("shards %s: no progress for over twice their slowest trial + %s: stopped? rerun them to resume",
				strings.Join(a.stale, ", "), shortDuration(staleMargin))
		case a.unknown:
			eta = "unknown (no trial finished yet)"
		case a.fin < a.shards || a.shards < a.n:
			eta = (time.Duration(math.Ceil(a.eta)) * time.Second).String()
			if a.atLeast {
				eta = "at least " + eta + " (shards still taking trials)"
			}
			if a.shards < a.n {
				eta += " (not every shard started)"
			}
		}
		t.Rows = append(t.Rows, []string{a.name, fmt.Sprintf("%d/%d (%d)", a.shards, a.n, a.fin),
			fmt.Sprintf("%d/%d", a.done, a.owned), eta})
	}
	return t
}

// staleMargin is added to twice the slowest trial before a shard whose lock
// cannot be probed counts as stale: the manifest is rewritten at most every
// two seconds, and the clocks of two hosts may differ.
const staleMargin = 5 * time.Minute

// shardAlive judges an unfinished shard: "" while it runs (or cannot be
// judged), "stopped" when no process holds its directory lock (a killed
// process's lock is released by the kernel), else, when the lock cannot be
// probed (no lock file, or held on another host), a note when its manifest
// has not changed for over twice its slowest trial plus staleMargin.
func shardAlive(s *foundShard, now time.Time) string {
	dirs := []string{filepath.Join(s.root, s.dir)}
	for d := range s.m.ConfigHashes { // DRFL's locks are on its trial directories
		if !filepath.IsAbs(d) && !strings.HasPrefix(filepath.Clean(d), "..") {
			dirs = append(dirs, filepath.Join(s.root, s.dir, filepath.FromSlash(d)))
		}
	}
	free := false
	for _, d := range dirs {
		switch experiments.ProbeLock(d) {
		case experiments.LockHeld:
			return ""
		case experiments.LockFree:
			free = true
		}
	}
	if free {
		return "stopped"
	}
	slowest := 0.0
	for _, w := range s.m.TrialWall {
		slowest = max(slowest, w)
	}
	idle := now.Sub(s.m.Updated)
	if slowest == 0 || s.m.Updated.IsZero() || idle < 2*time.Duration(slowest*float64(time.Second))+staleMargin {
		return ""
	}
	return fmt.Sprintf("no progress for %s (slowest trial %s): stopped? rerun the shard to resume",
		shortDuration(idle), shortDuration(time.Duration(slowest*float64(time.Second))))
}

// shortDuration is d to the second, or to the minute from an hour on.
func shortDuration(d time.Duration) string {
	if d >= time.Hour {
		d = d.Round(time.Minute)
	} else {
		d = d.Round(time.Second)
	}
	out := d.String()
	if strings.HasSuffix(out, "m0s") {
		out = strings.TrimSuffix(out, "0s")
	}
	return out
}
