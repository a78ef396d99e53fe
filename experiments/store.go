package experiments

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// Store keeps one JSON file per finished trial in Dir, written atomically, so
// that Ctrl-C or a crash loses no finished trial and a rerun with the same
// configuration reuses them. A nil *Store keeps nothing.
type Store struct {
	Dir string
	// Hash identifies what a trial's outcome depends on (TrialHash); a file
	// recorded under another hash is recomputed and overwritten.
	Hash string
	// Force recomputes every trial.
	Force bool
	// Version is recorded in every file written.
	Version string

	mu       sync.Mutex
	reused   int
	computed int
	versions map[string]int // fedcon versions of the reused files
}

// storedTrial is the file format of one trial.
type storedTrial struct {
	ConfigHash string          `json:"config_hash"`
	Version    string          `json:"fedcon_version"`
	Key        string          `json:"key"`
	Seed       uint64          `json:"seed"`
	Trial      json.RawMessage `json:"trial"`
}

// TrialHash hashes cfg's JSON encoding without the keys in drop: those that
// only select which trials run (trials, cells, clients, datasets), so that
// adding cells or trials reuses the ones already on disk.
func TrialHash(cfg any, drop ...string) string {
	b, _ := json.Marshal(cfg)
	var m map[string]any
	if json.Unmarshal(b, &m) == nil {
		for _, k := range drop {
			delete(m, k)
		}
		b, _ = json.Marshal(m) // map keys are sorted: a canonical encoding
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

func (s *Store) path(key string) string { return filepath.Join(s.Dir, key+".json") }

// load fills v from the trial stored under key and reports whether it was
// there under the store's hash.
func (s *Store) load(key string, v any) bool {
	if s == nil || s.Force {
		return false
	}
	b, err := os.ReadFile(s.path(key))
	if err != nil {
		return false
	}
	var st storedTrial
	if json.Unmarshal(b, &st) != nil || st.ConfigHash != s.Hash || st.Key != key {
		return false
	}
	if json.Unmarshal(st.Trial, v) != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reused++
	if s.versions == nil {
		s.versions = map[string]int{}
	}
	s.versions[st.Version]++
	return true
}

// save records trial v under key.
func (s *Store) save(key string, seed uint64, v any) error {
	if s == nil {
		return nil
	}
	tb, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("experiments: encode trial %s: %w", key, err)
	}
	b, err := json.MarshalIndent(storedTrial{ConfigHash: s.Hash, Version: s.Version, Key: key, Seed: seed, Trial: tb}, "", " ")
	if err != nil {
		return fmt.Errorf("experiments: encode trial %s: %w", key, err)
	}
	if err := WriteAtomic(s.path(key), append(b, '\n')); err != nil {
		return err
	}
	s.mu.Lock()
	s.computed++
	s.mu.Unlock()
	return nil
}

// cached returns the trial stored under key, or computes, stores and returns it.
func cached[T any](s *Store, key string, seed uint64, compute func() (T, error)) (T, error) {
	var v T
	if s.load(key, &v) {
		return v, nil
	}
	v, err := compute()
	if err != nil {
		return v, err
	}
	return v, s.save(key, seed, v)
}

// StoreCounts is what a run did with its trials: the manifest records it.
type StoreCounts struct {
	Reused   int `json:"trials_reused"`
	Computed int `json:"trials_computed"`
	// ReusedVersions counts reused trials by the fedcon version that computed them.
	ReusedVersions map[string]int `json:"reused_versions,omitempty"`
}

// Counts reports the trials reused and computed so far.
func (s *Store) Counts() StoreCounts {
	if s == nil {
		return StoreCounts{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := StoreCounts{Reused: s.reused, Computed: s.computed}
	if len(s.versions) > 0 {
		c.ReusedVersions = map[string]int{}
		for k, v := range s.versions {
			c.ReusedVersions[k] = v
		}
	}
	return c
}

// Files lists the trial files in the store's directory.
func (s *Store) Files() ([]string, error) {
	if s == nil {
		return nil, nil
	}
	ents, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && filepath.Ext(e.Name()) == ".json" {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}
