package experiments

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// TrialSchema is the version of the trial file format of a trial type that
// does not declare its own (SchemaOf); files of another schema (or none)
// are recomputed.
const TrialSchema = 3

// PointTrialSchema is the format of the trials that store their returned
// point and multipliers (the prox-AL classification trials): schema 3 plus w
// and μ per algorithm, which `fedcon check` recomputes the certificate from.
// The other trial types keep schema 3, so their files stay valid.
const PointTrialSchema = 4

// SchemaOf is the trial schema of v's type: that of its TrialSchema method
// (a trial type whose format changed declares its own), else TrialSchema.
func SchemaOf(v any) int {
	if s, ok := v.(interface{ TrialSchema() int }); ok {
		return s.TrialSchema()
	}
	return TrialSchema
}

// OldestSchemaOf is the oldest trial schema whose files v's type still
// reads: that of its OldestTrialSchema method (a type whose files gained
// fields it can do without), else SchemaOf(v).
func OldestSchemaOf(v any) int {
	if s, ok := v.(interface{ OldestTrialSchema() int }); ok {
		return s.OldestTrialSchema()
	}
	return SchemaOf(v)
}

// knownSchema reports whether s is the schema of some trial type.
func knownSchema(s int) bool { return s == TrialSchema || s == PointTrialSchema }

// Store keeps one JSON file per finished trial in Dir, written atomically, so
// that Ctrl-C or a crash loses no finished trial and a rerun with the same
// configuration reuses them. A nil *Store keeps nothing.
type Store struct {
	Dir string
	// Hash identifies what a trial's outcome depends on (TrialHash). A file
	// recorded under another hash is never overwritten: it is moved to
	// Dir/@<its hash>/ (AsidePath) and the trial computed, or taken back
	// from Dir/@<Hash>/ when an earlier run set it aside. Empty means the
	// configuration could not be hashed: the store refuses every trial.
	Hash string
	// Force recomputes every trial.
	Force bool
	// Version is recorded in every file written.
	Version string
	// Warn, if set, receives one line per trial file that is present but
	// invalid (and therefore recomputed).
	Warn func(msg string)
	// Shard, if set, limits the run to the trials its shard owns (Owner):
	// the others are neither computed nor loaded and come back as zero
	// values, so only the trial files of a shard run mean anything.
	Shard *ShardLog
	// ReuseOnly computes nothing: a trial not stored, valid, is an error
	// (ErrMissingTrial). A merge of shards runs so.
	ReuseOnly bool

	mu       sync.Mutex
	reused   int
	computed int
	versions map[string]int      // fedcon versions of the reused files
	aside    map[string]int      // trial hash -> files of it set aside
	used     map[string]struct{} // keys reused or computed by this run
}

// StoredTrial is the file format of one trial.
type StoredTrial struct {
	Schema     int             `json:"schema"`
	ConfigHash string          `json:"config_hash"`
	Version    string          `json:"fedcon_version"`
	Key        string          `json:"key"`
	Seed       uint64          `json:"seed"`
	Trial      json.RawMessage `json:"trial"`
}

// HashConfig is the SHA-256 (first 16 hex digits) of cfg's canonical JSON
// encoding without the keys in drop. It fails on a configuration JSON cannot
// encode (NaN, ±Inf), so that no two configurations share a hash.
func HashConfig(cfg any, drop ...string) (string, error) {
	b, err := json.Marshal(cfg)
	if err != nil {
		return "", fmt.Errorf("experiments: configuration cannot be hashed: %w", err)
	}
	var m map[string]any
	if json.Unmarshal(b, &m) == nil {
		for _, k := range drop {
			delete(m, k)
		}
		if b, err = json.Marshal(m); err != nil { // map keys are sorted: a canonical encoding
			return "", fmt.Errorf("experiments: configuration cannot be hashed: %w", err)
		}
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8]), nil
}

// TrialHash hashes cfg's JSON encoding without the keys in drop: those that
// only select which trials run (trials, cells, clients, datasets), so that
// adding cells or trials reuses the ones already on disk. It is empty when
// cfg cannot be hashed (HashConfig), and a Store with an empty hash refuses
// to store or reuse anything.
func TrialHash(cfg any, drop ...string) string {
	h, _ := HashConfig(cfg, drop...)
	return h
}

// Path is the file of trial key.
func (s *Store) Path(key string) string { return filepath.Join(s.Dir, key+".json") }

// AsidePath is where the trial file of key computed under trial hash hash is
// kept while the directory holds another configuration's trial of that key.
func AsidePath(dir, key, hash string) string {
	return filepath.Join(dir, "@"+hash, key+".json")
}

// SetAside moves the trial file at path to dir/@<its hash>/ when it holds a
// trial of another trial hash than hash (a file is never replaced by
// another configuration's), and returns that hash ("" when nothing moved:
// no file, a file of hash, or one that is not a trial file of a known
// schema, which the caller replaces with a warning).
func SetAside(path, hash string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("experiments: %w", err)
	}
	var st StoredTrial
	if json.Unmarshal(b, &st) != nil || !knownSchema(st.Schema) || st.ConfigHash == hash || !isTrialHash(st.ConfigHash) {
		return "", nil
	}
	dst := AsidePath(filepath.Dir(path), strings.TrimSuffix(filepath.Base(path), ".json"), st.ConfigHash)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", fmt.Errorf("experiments: %w", err)
	}
	if err := os.Rename(path, dst); err != nil {
		return "", fmt.Errorf("experiments: keep the trial of another configuration: %w", err)
	}
	return st.ConfigHash, nil
}

// isTrialHash reports whether h is a trial hash (16 lower-case hex digits),
// safe as a directory name.
func isTrialHash(h string) bool {
	if len(h) != 16 {
		return false
	}
	for _, c := range h {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// setAside moves key's file of another configuration aside and counts it.
func (s *Store) setAside(key string) error {
	h, err := SetAside(s.Path(key), s.Hash)
	if err != nil || h == "" {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.aside == nil {
		s.aside = map[string]int{}
	}
	s.aside[h]++
	return nil
}

// takeBack restores key's trial of the store's hash that an earlier run set
// aside, setting aside the file in its place; it reports whether it did.
func (s *Store) takeBack(key string, v any) bool {
	src := AsidePath(s.Dir, key, s.Hash)
	b, err := os.ReadFile(src)
	if err != nil {
		return false
	}
	if _, err := DecodeTrial(b, key, s.Hash, v); err != nil {
		return false // recomputed; Save sets the file in its place aside
	}
	if s.setAside(key) != nil {
		return false
	}
	return os.Rename(src, s.Path(key)) == nil
}

// Load fills v from the trial stored under key and reports whether it was
// there, valid, under the store's hash. A file that is there but invalid is
// reported through Warn.
func (s *Store) Load(key string, v any) bool {
	if s == nil || s.Force || s.Hash == "" {
		return false
	}
	b, err := os.ReadFile(s.Path(key))
	var st *StoredTrial
	if err == nil {
		st, err = DecodeTrial(b, key, s.Hash, v)
	}
	if (errors.Is(err, errOtherConfig) || errors.Is(err, fs.ErrNotExist)) && s.takeBack(key, v) {
		// An earlier run set this configuration's trial aside.
		if b, err = os.ReadFile(s.Path(key)); err == nil {
			st, err = DecodeTrial(b, key, s.Hash, v)
		}
	}
	if err != nil {
		// No file, or another configuration's (Save sets it aside).
		if !errors.Is(err, errOtherConfig) && !errors.Is(err, fs.ErrNotExist) && s.Warn != nil {
			what := "recomputing it"
			if s.ReuseOnly {
				what = "not used"
			}
			s.Warn(fmt.Sprintf("warning: %s: %v; %s", s.Path(key), err, what))
		}
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reused++
	if s.versions == nil {
		s.versions = map[string]int{}
	}
	s.versions[st.Version]++
	s.use(key)
	return true
}

// use records key as part of this run; s.mu is held.
func (s *Store) use(key string) {
	if s.used == nil {
		s.used = map[string]struct{}{}
	}
	s.used[key] = struct{}{}
}

// errOtherConfig marks a trial file of another configuration: it is set
// aside (SetAside), never replaced, and the run's summary counts it.
var errOtherConfig = errors.New("trial of another configuration")

// DecodeTrial validates a trial file's bytes (schema, hash, key, every field
// of the trial present and not null, the trial's own checks) and decodes its
// trial into v. A type that still reads older schemas (OldestSchemaOf)
// checks itself by CheckSchema, told the file's schema, instead of Check.
func DecodeTrial(b []byte, key, hash string, v any) (*StoredTrial, error) {
	var st StoredTrial
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("not a trial file: %w", err)
	}
	want, oldest := SchemaOf(v), OldestSchemaOf(v)
	switch {
	case st.Schema == 0:
		return nil, fmt.Errorf("no trial schema (an older format), want schema %d: rerun the experiment", want)
	case st.Schema < oldest:
		return nil, fmt.Errorf("trial schema %d, want %d (written by an older fedcon): rerun the experiment", st.Schema, want)
	case st.Schema > want:
		return nil, fmt.Errorf("trial schema %d, want %d", st.Schema, want)
	case st.ConfigHash != hash && !isTrialHash(st.ConfigHash):
		return nil, fmt.Errorf("config_hash %q is not a trial hash", st.ConfigHash)
	case st.ConfigHash != hash:
		return nil, errOtherConfig
	case st.Key != key:
		return nil, fmt.Errorf("key %q, want %q", st.Key, key)
	}
	if err := requireFields(&st, b, "file"); err != nil {
		return nil, err
	}
	if err := requireFields(v, st.Trial, "trial"); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(st.Trial, v); err != nil {
		return nil, fmt.Errorf("trial: %w", err)
	}
	if c, ok := v.(interface{ CheckSchema(int) error }); ok {
		if err := c.CheckSchema(st.Schema); err != nil {
			return nil, err
		}
	} else if c, ok := v.(interface{ Check() error }); ok {
		if err := c.Check(); err != nil {
			return nil, err
		}
	}
	return &st, nil
}

// requireFields checks that raw has every field that v's type encodes, at
// every depth, and no null where the type's zero value is not null: a
// missing block or a null objective would otherwise decode as zeros.
func requireFields(v any, raw []byte, what string) error {
	zero := reflect.New(reflect.TypeOf(v).Elem()).Interface()
	tb, err := json.Marshal(zero)
	if err != nil {
		return fmt.Errorf("trial: %w", err)
	}
	var tmpl, got any
	if err := json.Unmarshal(tb, &tmpl); err != nil {
		return fmt.Errorf("trial: %w", err)
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		return fmt.Errorf("trial: %w", err)
	}
	return sameShape(what, tmpl, got)
}

func sameShape(path string, tmpl, got any) error {
	switch t := tmpl.(type) {
	case nil:
		return nil // a nil slice or map: any value, checked by decoding
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object", path)
		}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			gv, ok := g[k]
			if !ok {
				return fmt.Errorf("%s.%s missing", path, k)
			}
			if err := sameShape(path+"."+k, t[k], gv); err != nil {
				return err
			}
		}
	default:
		if got == nil {
			return fmt.Errorf("%s is null", path)
		}
	}
	return nil
}

// Save records trial v under key.
func (s *Store) Save(key string, seed uint64, v any) error {
	if s == nil {
		return nil
	}
	if s.Hash == "" {
		return errNoHash
	}
	tb, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("experiments: encode trial %s: %w", key, err)
	}
	b, err := json.MarshalIndent(StoredTrial{Schema: SchemaOf(v), ConfigHash: s.Hash, Version: s.Version, Key: key, Seed: seed, Trial: tb}, "", " ")
	if err != nil {
		return fmt.Errorf("experiments: encode trial %s: %w", key, err)
	}
	if err := s.setAside(key); err != nil {
		return err
	}
	if err := WriteAtomic(s.Path(key), append(b, '\n')); err != nil {
		return err
	}
	s.mu.Lock()
	s.computed++
	s.use(key)
	s.mu.Unlock()
	return nil
}

var errNoHash = errors.New("experiments: the configuration cannot be hashed (a value JSON cannot encode, such as NaN or Inf)")

// Cached returns the trial stored under key, or computes, stores and returns it.
func Cached[T any](s *Store, key string, seed uint64, compute func() (T, error)) (T, error) {
	var v T
	if s != nil && s.Hash == "" {
		return v, errNoHash // before any work, so that none is lost
	}
	if s != nil && s.Shard != nil {
		if Owner(key, s.Shard.Shard.N) != s.Shard.Shard.K {
			s.Shard.own(s.Dir, s.Hash, "")
			return v, nil
		}
		s.Shard.own(s.Dir, s.Hash, s.Path(key))
	}
	if s.Load(key, &v) {
		if s.Shard != nil {
			s.Shard.done(s.Path(key), 0, false)
		}
		return v, nil
	}
	if s != nil && s.ReuseOnly {
		return v, fmt.Errorf("%w: %s", ErrMissingTrial, s.Path(key))
	}
	start := time.Now()
	v, err := compute()
	if err != nil {
		return v, err
	}
	if err := s.Save(key, seed, v); err != nil {
		return v, err
	}
	if s != nil && s.Shard != nil {
		s.Shard.done(s.Path(key), time.Since(start), true)
	}
	return v, nil
}

// StoreCounts is what a run did with its trials: the manifest records it.
type StoreCounts struct {
	Reused   int `json:"trials_reused"`
	Computed int `json:"trials_computed"`
	// ReusedVersions counts reused trials by the fedcon version that computed them.
	ReusedVersions map[string]int `json:"reused_versions,omitempty"`
	// SetAside counts, by trial hash, the files of other configurations
	// this run moved to trials/@<hash>/ instead of replacing them.
	SetAside map[string]int `json:"trials_set_aside,omitempty"`
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
		c.ReusedVersions = maps.Clone(s.versions)
	}
	if len(s.aside) > 0 {
		c.SetAside = maps.Clone(s.aside)
	}
	return c
}

// Files lists the trial files this run reused or computed, sorted: not the
// other files of the directory (other configurations, trials not asked for).
func (s *Store) Files() ([]string, error) {
	if s == nil {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.used))
	for k := range s.used {
		out = append(out, k+".json")
	}
	sort.Strings(out)
	return out, nil
}
