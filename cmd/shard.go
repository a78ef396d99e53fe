package cmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fedcon/fedcon/experiments"
)

// shardManifestSchema is the version of the shard manifest format.
const shardManifestSchema = 1

// shardManifest is <out>/<name>/shard-K-of-N.json: what one shard of a
// cluster run owns and has finished, and the command it ran (which a merge
// reruns, computing nothing).
type shardManifest struct {
	Schema     int    `json:"schema"`
	Experiment string `json:"experiment"`
	Version    string `json:"fedcon_version"`
	// Command is the fedcon command without --shard, --out and --force.
	Command []string `json:"command"`
	Shard   int      `json:"shard"`
	Shards  int      `json:"shards"`
	// ConfigHashes maps each trial directory (relative to the experiment's)
	// to its trial hash.
	ConfigHashes map[string]string `json:"config_hashes"`
	// Owned and Done are the trial files (relative to the experiment's
	// directory) this shard computes and those finished.
	Owned    []string `json:"owned"`
	Done     []string `json:"done"`
	Complete bool     `json:"complete"`
	// Interrupted: stopped by a signal; a rerun resumes.
	Interrupted bool   `json:"interrupted,omitempty"`
	Error       string `json:"error,omitempty"`
	// TrialWall is the compute time of each trial this shard computed (not
	// reused): fedcon status estimates the time left from it.
	TrialWall map[string]float64 `json:"trial_wall_seconds"`
	Start     time.Time          `json:"start"`
	Updated   time.Time          `json:"updated"`
}

// shardFileName is shard-K-of-N.json, or shard-K-of-N-<result>.json in a
// directory whose results have their own manifests (SSCA).
func shardFileName(s experiments.Shard, manifest string) string {
	suffix := strings.TrimSuffix(strings.TrimPrefix(manifest, "manifest"), ".json")
	return fmt.Sprintf("shard-%d-of-%d%s.json", s.K, s.N, suffix)
}

// parseShardFlag reads --shard: K/N, or auto from the batch engine's
// environment (Slurm job arrays; Kubernetes Indexed Jobs with the count in
// FEDCON_SHARD_COUNT). A bad value is a usage error (exit 2).
func parseShardFlag(f *Factory, v string) (*experiments.Shard, error) {
	if v == "" {
		return nil, nil
	}
	bad := func(err error) error { return &FlagError{err: fmt.Errorf("--shard: %w", err)} }
	if v != "auto" {
		s, err := experiments.ParseShard(v)
		if err != nil {
			return nil, bad(err)
		}
		return &s, nil
	}
	env := func(name string) (int, bool, error) {
		s := strings.TrimSpace(f.Getenv(name))
		if s == "" {
			return 0, false, nil
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			return 0, true, bad(fmt.Errorf("auto: %s=%q is not an integer", name, s))
		}
		return n, true, nil
	}
	var k, n int
	id, ok, err := env("SLURM_ARRAY_TASK_ID")
	if ok && strings.TrimSpace(f.Getenv("JOB_COMPLETION_INDEX")) != "" {
		// A pod started from a Slurm job (or the reverse) would silently
		// take the wrong engine's index.
		return nil, bad(fmt.Errorf("auto: both SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX are set: unset the other engine's variable or pass --shard K/N"))
	}
	switch {
	case err != nil:
		return nil, err
	case ok:
		cnt, okc, err := env("SLURM_ARRAY_TASK_COUNT")
		if err != nil {
			return nil, err
		}
		lo, okl, err1 := env("SLURM_ARRAY_TASK_MIN")
		hi, okh, err2 := env("SLURM_ARRAY_TASK_MAX")
		if err1 != nil || err2 != nil {
			return nil, firstErr(err1, err2)
		}
		switch {
		case okl && okh:
			k, n = id-lo, hi-lo+1
			if okc && cnt != n {
				return nil, bad(fmt.Errorf("auto: SLURM_ARRAY_TASK_COUNT=%d but MIN..MAX is %d..%d: use an array of consecutive indices (--array=0-%d)", cnt, lo, hi, cnt-1))
			}
		case okc:
			k, n = id, cnt
		default:
			return nil, bad(fmt.Errorf("auto: SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MIN/MAX"))
		}
	default:
		idx, ok, err := env("JOB_COMPLETION_INDEX")
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, bad(fmt.Errorf("auto: neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set"))
		}
		cnt, okc, err := env("FEDCON_SHARD_COUNT")
		if err != nil {
			return nil, err
		}
		if !okc {
			return nil, bad(fmt.Errorf("auto: JOB_COMPLETION_INDEX is set but FEDCON_SHARD_COUNT (the Job's completions) is not"))
		}
		k, n = idx, cnt
	}
	s, err := experiments.NewShard(k, n)
	if err != nil {
		return nil, bad(fmt.Errorf("auto: %w", err))
	}
	return &s, nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// shardCommand is args without the flags a merge sets itself (--shard,
// --out, --force, --reuse-only) and those that change no result (--workers,
// --quiet, --json, --wide), so that the merge reruns the same command and
// shards may differ in those.
func shardCommand(args []string) []string {
	drop := map[string]bool{"--shard": true, "--out": true, "--workers": true,
		"--force": false, "--reuse-only": false, "--quiet": false, "--json": false, "--wide": false}
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(a, "=")
		takesValue, ok := drop[name]
		if !ok {
			out = append(out, a)
			continue
		}
		if takesValue && !hasValue {
			i++
		}
	}
	return out
}

// shardWriter keeps a shard manifest up to date: after each finished trial
// (at most every two seconds, so that fedcon status sees progress) and at
// the end.
type shardWriter struct {
	r     *runOutput
	log   *experiments.ShardLog
	start time.Time

	mu   sync.Mutex
	last time.Time
}

func (w *shardWriter) changed() {
	w.mu.Lock()
	due := time.Since(w.last) > 2*time.Second
	if due {
		w.last = time.Now()
	}
	w.mu.Unlock()
	if due {
		_ = w.write(false, nil)
	}
}

func (w *shardWriter) path() string {
	return filepath.Join(w.r.dir, shardFileName(w.log.Shard, w.r.manifestName()))
}

func (w *shardWriter) write(complete bool, runErr error) error {
	st := w.log.State()
	rel := func(p string) string {
		if r, err := filepath.Rel(w.r.dir, p); err == nil {
			return filepath.ToSlash(r)
		}
		return p
	}
	m := shardManifest{Schema: shardManifestSchema, Experiment: w.r.name, Version: w.r.f.Version,
		Command: shardCommand(w.r.f.args), Shard: w.log.Shard.K, Shards: w.log.Shard.N,
		ConfigHashes: map[string]string{}, Owned: []string{}, Done: []string{}, TrialWall: map[string]float64{},
		Complete: complete, Start: w.start, Updated: time.Now().UTC()}
	switch {
	case errors.Is(runErr, context.Canceled):
		m.Interrupted = true
	case runErr != nil:
		m.Error = runErr.Error()
	}
	for d, h := range st.Hashes {
		m.ConfigHashes[rel(d)] = h
	}
	for _, p := range st.Owned {
		m.Owned = append(m.Owned, rel(p))
	}
	for _, p := range st.Done {
		m.Done = append(m.Done, rel(p))
	}
	for p, s := range st.Wall {
		m.TrialWall[rel(p)] = s
	}
	return experiments.WriteJSON(w.path(), m)
}

// finishShard ends a shard run: its manifest (complete unless runErr) and
// the summary line; no tables or figures (fedcon merge writes them).
func (r *runOutput) finishShard(runErr error) error {
	defer r.unlock()
	r.finish()
	if rep := r.o.report; rep != nil {
		c := r.counts()
		rep.dir, rep.reused, rep.trials = r.dir, c.Reused, c.Reused+c.Computed
	}
	if err := r.shard.write(runErr == nil, runErr); err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	r.summary(r.shard.path())
	return nil
}
