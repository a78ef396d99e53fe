package experiments

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Shard is shard K (0-based) of N: the share of a run's trials one process
// of a cluster job computes.
type Shard struct {
	K, N int
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// ParseShard reads "K/N" (0 <= K < N).
func ParseShard(v string) (Shard, error) {
	ks, ns, ok := strings.Cut(v, "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want K/N (shard K of N, 0 <= K < N) or auto", v)
	}
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if err := errors.Join(err1, err2); err != nil {
		return Shard{}, fmt.Errorf("shard %q: want K/N with integers K and N", v)
	}
	// One spelling per shard: " 1/3", "01/3" and "+1/3" are refused, so
	// that a typo in a job script is not another shard's name.
	if strconv.Itoa(k) != ks || strconv.Itoa(n) != ns {
		return Shard{}, fmt.Errorf("shard %q: want K/N in decimal without signs, spaces or leading zeros (%d/%d)", v, k, n)
	}
	return NewShard(k, n)
}

// NewShard checks 0 <= k < n.
func NewShard(k, n int) (Shard, error) {
	switch {
	case n < 1:
		return Shard{}, fmt.Errorf("shard %d/%d: the shard count must be at least 1", k, n)
	case k < 0 || k >= n:
		return Shard{}, fmt.Errorf("shard %d/%d: the index must be in 0..%d", k, n, n-1)
	}
	return Shard{K: k, N: n}, nil
}

// Owner is the shard (0..n-1) that computes the trial stored under key.
// Trials of one cell cost about the same, so the trials of every cell are
// dealt round robin over the shards, starting at a shard chosen by the
// cell's name: each shard gets within one trial of 1/n of every cell, hence
// about 1/n of the run's cost whatever the cells cost, and the leftover
// trials of small cells spread over the shards. Keys end in their trial
// number (cell-tNN, rep-NNN); a key without one is placed by its hash.
func Owner(key string, n int) int {
	cell, t := key, 0
	i := len(key)
	for i > 0 && key[i-1] >= '0' && key[i-1] <= '9' {
		i--
	}
	if i < len(key) && len(key)-i <= 9 {
		t, _ = strconv.Atoi(key[i:])
		cell = key[:i]
	}
	h := sha256.Sum256([]byte(cell))
	return int((binary.BigEndian.Uint64(h[:8])%uint64(n) + uint64(t)) % uint64(n))
}

// ShardLog records what a shard owns and finishes, for its shard manifest.
// Paths are those of the trial files.
type ShardLog struct {
	Shard Shard
	// Changed, if set, is called after each finished trial.
	Changed func()

	mu     sync.Mutex
	owned  map[string]bool    // path -> finished
	wall   map[string]float64 // path -> seconds of a computed trial
	hashes map[string]string  // store dir -> trial hash
}

// NewShardLog starts the log of shard s.
func NewShardLog(s Shard) *ShardLog {
	return &ShardLog{Shard: s, owned: map[string]bool{}, wall: map[string]float64{}, hashes: map[string]string{}}
}

func (l *ShardLog) own(dir, hash, path string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hashes[dir] = hash
	if path == "" { // a trial of another shard: only the hash is recorded
		return
	}
	if _, ok := l.owned[path]; !ok {
		l.owned[path] = false
	}
}

func (l *ShardLog) done(path string, wall time.Duration, computed bool) {
	l.mu.Lock()
	l.owned[path] = true
	if computed {
		l.wall[path] = wall.Seconds()
	}
	f := l.Changed
	l.mu.Unlock()
	if f != nil {
		f()
	}
}

// ShardState is a snapshot of a ShardLog.
type ShardState struct {
	// Owned and Done are sorted trial file paths.
	Owned, Done []string
	// Wall is the compute time of each trial this shard computed.
	Wall map[string]float64
	// Hashes maps each trial directory to its trial hash.
	Hashes map[string]string
}

// State snapshots the log.
func (l *ShardLog) State() ShardState {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := ShardState{Wall: map[string]float64{}, Hashes: map[string]string{}}
	for p, d := range l.owned {
		st.Owned = append(st.Owned, p)
		if d {
			st.Done = append(st.Done, p)
		}
	}
	sort.Strings(st.Owned)
	sort.Strings(st.Done)
	for k, v := range l.wall {
		st.Wall[k] = v
	}
	for k, v := range l.hashes {
		st.Hashes[k] = v
	}
	return st
}

// ErrMissingTrial is a trial that a reuse-only run (a merge) did not find.
var ErrMissingTrial = errors.New("trial missing")

// LockState is what ProbeLock learns of an experiment directory's lock.
type LockState int

const (
	// LockUnknown: no lock file, a holder on another host, or no flock on
	// this system; the lock says nothing about the run.
	LockUnknown LockState = iota
	// LockHeld: a process on this host holds the lock.
	LockHeld
	// LockFree: no process holds it (the kernel releases the lock of a
	// killed process).
	LockFree
)

var lockHolderRE = regexp.MustCompile(`^pid \d+ on (\S+) since `)

// ProbeLock reports whether a process holds the lock of dir (LockDir),
// without cleaning anything. A lock taken on another host is not probed:
// not every shared file system carries flock between hosts. The probe holds
// the lock for an instant only, during which a run starting on dir would
// find it in use.
func ProbeLock(dir string) LockState {
	if !lockEnforced {
		return LockUnknown
	}
	path := filepath.Join(dir, LockFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return LockUnknown
	}
	if m := lockHolderRE.FindSubmatch(b); m != nil {
		if host, err := os.Hostname(); err != nil || string(m[1]) != host {
			return LockUnknown
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return LockUnknown
	}
	defer f.Close()
	switch err := flock(f); {
	case err == nil:
		_ = funlock(f)
		return LockFree
	case errors.Is(err, errWouldBlock):
		return LockHeld
	default:
		return LockUnknown
	}
}
