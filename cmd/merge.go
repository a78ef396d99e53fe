package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/experiments"
)

var shardFileRE = regexp.MustCompile(`^shard-(\d+)-of-(\d+)(-[^/]*)?\.json$`)

// foundShard is one shard manifest on disk.
type foundShard struct {
	root string // the shard directory given
	dir  string // the experiment directory, relative to root
	file string // the manifest's file name
	m    shardManifest
}

// group names the experiment directory and result a manifest belongs to.
func (s *foundShard) group() string {
	return filepath.Join(s.dir, shardFileRE.ReplaceAllString(s.file, "shard-N$3.json"))
}

// findShards reads every shard manifest under root. A manifest that does
// not parse is named (exit 1): a merge never guesses around it.
func findShards(root string) ([]*foundShard, error) {
	var out []*foundShard
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "trials" {
			return filepath.SkipDir
		}
		if d.IsDir() || !shardFileRE.MatchString(d.Name()) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		m, err := decodeShardManifest(b, d.Name())
		if err != nil {
			return fmt.Errorf("shard manifest %s: %w", p, err)
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		out = append(out, &foundShard{root: root, dir: rel, file: d.Name(), m: m})
		return nil
	})
	return out, err
}

// decodeShardManifest reads the manifest file named name: known fields
// only, its schema, and the shard its name says.
func decodeShardManifest(b []byte, name string) (shardManifest, error) {
	var m shardManifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, err
	}
	if m.Schema != shardManifestSchema {
		return m, fmt.Errorf("schema %d, want %d", m.Schema, shardManifestSchema)
	}
	if sm := shardFileRE.FindStringSubmatch(name); sm == nil || sm[1] != strconv.Itoa(m.Shard) || sm[2] != strconv.Itoa(m.Shards) {
		return m, fmt.Errorf("records shard %d of %d", m.Shard, m.Shards)
	}
	return m, nil
}

func newCmdMerge(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "merge OUT SHARD_DIR...",
		Short: "Merge the shards of a cluster run into the tables and figures of a one-machine run",
		Long: `merge checks the shard manifests under each SHARD_DIR (the --out of a run with
--shard K/N): one fedcon version, one command and configuration, every shard
0..N-1 present once and finished, no trial owned twice. It then copies the
trial files into OUT and reruns the command with --out OUT, computing nothing:
the tables, figures, manifests and checks are those of a one-machine run.
A missing, unfinished or corrupt trial is named on one line (exit 1).
A SHARD_DIR with *, ? or [ is a pattern that merge expands itself (no shell
needed); one that matches nothing is an error (exit 2).
Run merge where the shards ran (a sweep file is read again by its path).
See docs/cluster.md.`,
		Example: "  fedcon merge results shards/shard-0 shards/shard-1 shards/shard-2 shards/shard-3\n  fedcon merge results 'shards/shard-*'",
		Args:    cobra.MinimumNArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			return mergeRun(c, f, args[0], args[1:])
		},
	}
}

func mergeRun(c *cobra.Command, f *Factory, out string, args []string) error {
	roots, err := expandShardDirs(args)
	if err != nil {
		return &FlagError{err: err, usage: c.CommandPath()}
	}
	var all []*foundShard
	for _, r := range roots {
		if st, err := os.Stat(r); err != nil || !st.IsDir() {
			return &FlagError{err: fmt.Errorf("merge: shard directory %s: not a directory", r), usage: c.CommandPath()}
		}
		s, err := findShards(r)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		all = append(all, s...)
	}
	if len(all) == 0 {
		return fmt.Errorf("merge: no shard manifests (shard-K-of-N.json) under %s", strings.Join(roots, ", "))
	}
	cmdArgs, err := checkShards(all)
	if err != nil {
		return fmt.Errorf("merge refused: %w", err)
	}
	if err := copyShardTrials(all, out); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	root := newCmdRoot(f)
	root.SetArgs(append(slices.Clone(cmdArgs), "--out", out, "--reuse-only"))
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	return root.ExecuteContext(c.Context())
}

// expandShardDirs expands the glob patterns among args (sorted matches),
// so that a merge needs no shell (the container image has none). A pattern
// that matches nothing, or is malformed, is named.
func expandShardDirs(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if !strings.ContainsAny(a, "*?[") {
			out = append(out, a)
			continue
		}
		m, err := filepath.Glob(a)
		if err != nil {
			return nil, fmt.Errorf("merge: shard directory pattern %q: %w", a, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("merge: shard directory pattern %q matches nothing", a)
		}
		sort.Strings(m)
		out = append(out, m...)
	}
	return out, nil
}

// checkShards checks that the manifests make one whole run and returns its
// command.
func checkShards(all []*foundShard) ([]string, error) {
	first := all[0]
	where := func(s *foundShard) string { return filepath.Join(s.root, s.dir, s.file) }
	groups := map[string][]*foundShard{}
	for _, s := range all {
		switch {
		case s.m.Version != first.m.Version:
			return nil, fmt.Errorf("%s ran fedcon %s, %s ran %s", where(s), s.m.Version, where(first), first.m.Version)
		case !slices.Equal(s.m.Command, first.m.Command):
			return nil, fmt.Errorf("%s ran %q, %s ran %q", where(s), strings.Join(s.m.Command, " "), where(first), strings.Join(first.m.Command, " "))
		case s.m.Shards != first.m.Shards:
			return nil, fmt.Errorf("%s is one of %d shards, %s one of %d", where(s), s.m.Shards, where(first), first.m.Shards)
		}
		groups[s.group()] = append(groups[s.group()], s)
	}
	n := first.m.Shards
	for _, g := range slices.Sorted(mapKeys(groups)) {
		ss := groups[g]
		sort.Slice(ss, func(i, j int) bool { return ss[i].m.Shard < ss[j].m.Shard })
		owner := map[string]string{}
		// A shard killed before its manifest first recorded the trial
		// hashes has none: it is compared with nothing (it is unfinished,
		// or owns no trials), not reported as another configuration.
		ref := ss[0]
		for _, s := range ss {
			if len(s.m.ConfigHashes) > 0 {
				ref = s
				break
			}
		}
		for i, s := range ss {
			switch {
			case i > 0 && s.m.Shard == ss[i-1].m.Shard:
				return nil, fmt.Errorf("%s: shard %d given twice (%s and %s)", g, s.m.Shard, where(ss[i-1]), where(s))
			case len(s.m.ConfigHashes) > 0 && !maps2Equal(s.m.ConfigHashes, ref.m.ConfigHashes):
				return nil, fmt.Errorf("%s and %s ran different configurations (trial hashes %v, %v)", where(ref), where(s), ref.m.ConfigHashes, s.m.ConfigHashes)
			case s.m.Error != "":
				return nil, fmt.Errorf("%s: shard %d failed: %s", where(s), s.m.Shard, s.m.Error)
			}
			var missing []string
			for _, p := range s.m.Owned {
				if !slices.Contains(s.m.Done, p) {
					missing = append(missing, p)
				}
				if o, dup := owner[p]; dup {
					return nil, fmt.Errorf("%s: trial %s in two shards (%s and %s)", g, p, o, where(s))
				}
				owner[p] = where(s)
			}
			if len(missing) > 0 || !s.m.Complete {
				return nil, fmt.Errorf("%s: shard %d of %d not finished: %d trials missing (%s) (rerun it: it resumes)", where(s), s.m.Shard, n, len(missing), abbreviate(missing, 3))
			}
		}
		if len(ss) != n {
			var lack []string
			for k := 0; k < n; k++ {
				if !slices.ContainsFunc(ss, func(s *foundShard) bool { return s.m.Shard == k }) {
					lack = append(lack, fmt.Sprintf("%d/%d", k, n))
				}
			}
			return nil, fmt.Errorf("%s: missing shards: %s (%d of %d given)", g, strings.Join(lack, ", "), len(ss), n)
		}
	}
	return first.m.Command, nil
}

func abbreviate(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(", and %d more", len(xs)-n)
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func maps2Equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// copyShardTrials copies every owned trial file into the same place under
// out. A file that is not JSON is named here; the rerun validates every
// trial field by field.
func copyShardTrials(all []*foundShard, out string) error {
	for _, s := range all {
		for _, p := range s.m.Owned {
			if filepath.IsAbs(p) || strings.HasPrefix(filepath.Clean(p), "..") {
				return fmt.Errorf("%s: trial path %s outside its directory", filepath.Join(s.root, s.dir, s.file), p)
			}
			src := filepath.Join(s.root, s.dir, filepath.FromSlash(p))
			b, err := os.ReadFile(src)
			if err != nil {
				return fmt.Errorf("trial missing: %w", err)
			}
			var st experiments.StoredTrial
			if json.Unmarshal(b, &st) != nil {
				return fmt.Errorf("trial %s: corrupt (not JSON): rerun its shard", src)
			}
			dst := filepath.Join(out, s.dir, filepath.FromSlash(p))
			// Another configuration's trial in its place is kept, not replaced.
			if _, err := experiments.SetAside(dst, st.ConfigHash); err != nil {
				return err
			}
			if err := experiments.WriteAtomic(dst, b); err != nil {
				return err
			}
			if err := copySideFile(src, dst, st.Trial); err != nil {
				return err
			}
		}
	}
	return nil
}

// copySideFile copies the file a trial names beside its trial file (an
// SSCA run's final weights, final_w.file) from src's directory to dst's.
func copySideFile(src, dst string, trial json.RawMessage) error {
	var side struct {
		FinalW *struct {
			File string `json:"file"`
		} `json:"final_w"`
	}
	if json.Unmarshal(trial, &side) != nil || side.FinalW == nil {
		return nil
	}
	name := side.FinalW.File
	if name != filepath.Base(name) || name == "." || name == ".." {
		return fmt.Errorf("trial %s: final weights %q outside its directory", src, name)
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(src), name))
	if err != nil {
		return fmt.Errorf("trial %s: final weights missing: %w", src, err)
	}
	return experiments.WriteAtomic(filepath.Join(filepath.Dir(dst), name), b)
}
